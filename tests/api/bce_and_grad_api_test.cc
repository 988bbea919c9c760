// aclnnBinaryCrossEntropyWithLogitsAndGrad (the OpenACLNN extension) through its C API: it must
// reject what the forward or the Backward would reject, with their codes and messages, and
// compute bitwise what the forward followed by the Backward compute.
#include <memory>
#include <random>
#include <string>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "op_tester.h"
#include "openaclnn/aclnn_binary_cross_entropy_with_logits_and_grad.h"

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;

constexpr const char* kFused = "aclnnBinaryCrossEntropyWithLogitsAndGrad";
constexpr const char* kForward = "aclnnBinaryCrossEntropyWithLogits";
constexpr const char* kBackward = "aclnnBinaryCrossEntropyWithLogitsBackward";

// The arguments of one fused call; `out` is the loss, `grad_self` the gradient.
struct Call {
  aclTensor* self = nullptr;
  aclTensor* target = nullptr;
  aclTensor* weight = nullptr;
  aclTensor* pos_weight = nullptr;
  aclTensor* grad_output = nullptr;
  aclTensor* out = nullptr;
  aclTensor* grad_self = nullptr;
  int64_t reduction = 0;
  bool null_workspace_size = false;
  bool null_executor = false;
};

struct Outcome {
  aclnnStatus status;
  std::string message;  // without the time stamp: what follows the "(EZ1001): " code
};

std::string Body(const std::string& message) {
  const size_t code_end = message.find("): ");
  return code_end == std::string::npos ? message : message.substr(code_end + 3);
}

// Phase 1 of one of the three APIs, then (on success) phase 2 and a synchronisation. An
// executor is consumed by its launch, so nothing is left to release.
template <class Plan, class Launch>
Outcome Run(const Call& call, Plan&& plan, Launch&& launch) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = plan(call.null_workspace_size ? nullptr : &workspace_size,
                                  call.null_executor ? nullptr : &executor);
  const std::string message = Body(aclGetRecentErrMsg());
  if (status != ACLNN_SUCCESS) return {status, message};
  void* workspace = nullptr;
  if (workspace_size > 0) {
    EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  const aclnnStatus launched = launch(workspace, workspace_size, executor, AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  return {launched, Body(aclGetRecentErrMsg())};
}

Outcome Fused(const Call& c) {
  return Run(
      c,
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnBinaryCrossEntropyWithLogitsAndGradGetWorkspaceSize(
            c.self, c.target, c.weight, c.pos_weight, c.grad_output, c.reduction, c.out,
            c.grad_self, size, executor);
      },
      aclnnBinaryCrossEntropyWithLogitsAndGrad);
}

Outcome Forward(const Call& c) {
  return Run(
      c,
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
            c.self, c.target, c.weight, c.pos_weight, c.reduction, c.out, size, executor);
      },
      aclnnBinaryCrossEntropyWithLogits);
}

// The Backward of the same call; `grad_output` stands in for a null gradOutput (all ones).
Outcome Backward(const Call& c, aclTensor* grad_output) {
  return Run(
      c,
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
            grad_output, c.self, c.target, c.weight, c.pos_weight, c.reduction, c.grad_self, size,
            executor);
      },
      aclnnBinaryCrossEntropyWithLogitsBackward);
}

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// The fused call must fail exactly as the first of the two calls it replaces that fails: same
// status, same message but for the API's name (and the Backward's "out" being gradSelfOut).
// Returns the fused call's message.
std::string ExpectRejectedAsTheTwoCalls(const Call& call, aclTensor* ones) {
  const Outcome fused = Fused(call);
  EXPECT_NE(fused.status, ACLNN_SUCCESS) << "the fused call accepted it";
  const Outcome forward = Forward(call);
  if (forward.status != ACLNN_SUCCESS) {
    EXPECT_EQ(fused.status, forward.status) << fused.message;
    EXPECT_EQ(Replaced(fused.message, kFused, kForward), forward.message);
    return fused.message;
  }
  const Outcome backward = Backward(call, call.grad_output ? call.grad_output : ones);
  EXPECT_NE(backward.status, ACLNN_SUCCESS) << "both calls accepted it; fused: " << fused.message;
  EXPECT_EQ(fused.status, backward.status) << fused.message;
  EXPECT_EQ(Replaced(Replaced(fused.message, kFused, kBackward), "gradSelfOut", "out"),
            backward.message);
  return fused.message;
}

::testing::AssertionResult Mentions(const std::string& message, const std::string& word) {
  if (message.find(word) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << message << "\" lacks \"" << word << "\"";
}

// A valid [4,5] fp32 call with every optional operand, from which each check case departs.
class FusedChecks : public ::testing::Test {
 protected:
  const Shape shape_{4, 5};
  DeviceTensor self_{shape_, ACL_FLOAT, {}}, target_{shape_, ACL_FLOAT, {}},
      weight_{{5}, ACL_FLOAT, {}}, pos_weight_{{4, 1}, ACL_FLOAT, {}},
      grad_output_{shape_, ACL_FLOAT, {}}, out_{shape_, ACL_FLOAT, {}},
      grad_self_{shape_, ACL_FLOAT, {}}, ones_{shape_, ACL_FLOAT, std::vector<float>(20, 1.0f)};

  Call Valid() {
    return {self_.get(),        target_.get(), weight_.get(),    pos_weight_.get(),
            grad_output_.get(), out_.get(),    grad_self_.get(), 0};
  }
  // Runs `change` on a valid call and expects the two calls' rejection.
  template <class Change>
  std::string Expect(Change&& change) {
    Call call = Valid();
    change(call);
    return ExpectRejectedAsTheTwoCalls(call, ones_.get());
  }
};

TEST_F(FusedChecks, TheValidCallSucceeds) {
  EXPECT_EQ(Fused(Valid()).status, ACLNN_SUCCESS);
  Call no_grad_output = Valid();
  no_grad_output.grad_output = nullptr;  // all ones
  EXPECT_EQ(Fused(no_grad_output).status, ACLNN_SUCCESS);
}

TEST_F(FusedChecks, NullPointersAreRejectedByName) {
  EXPECT_TRUE(Mentions(Expect([](Call& c) { c.self = nullptr; }), "argument self"));
  Expect([](Call& c) { c.target = nullptr; });
  Expect([](Call& c) { c.out = nullptr; });
  Expect([](Call& c) { c.grad_self = nullptr; });
  const Outcome outcome = Fused([&] {
    Call c = Valid();
    c.grad_self = nullptr;
    return c;
  }());
  EXPECT_EQ(outcome.status, ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(outcome.message, std::string(kFused) +
                                 ": Expected a proper Tensor but got null for argument "
                                 "gradSelfOut.\n");
  Expect([](Call& c) { c.null_workspace_size = true; });
  Expect([](Call& c) { c.null_executor = true; });
}

TEST_F(FusedChecks, DestroyedTensorsAreRejected) {
  const int64_t dims[] = {4, 5};
  std::string message;
  for (int which = 0; which < 7; ++which) {
    aclTensor* dangling =
        aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, ones_.device());
    aclDestroyTensor(dangling);
    Call call = Valid();
    aclTensor** slots[] = {&call.self,        &call.target, &call.weight,   &call.pos_weight,
                           &call.grad_output, &call.out,    &call.grad_self};
    *slots[which] = dangling;
    message = ExpectRejectedAsTheTwoCalls(call, ones_.get());
  }
  EXPECT_TRUE(Mentions(message, "is not a live aclTensor"));
}

TEST_F(FusedChecks, DtypesAreCheckedAsTheTwoCalls) {
  DeviceTensor i64(shape_, ACL_INT64, {}), f64(shape_, ACL_DOUBLE, {}),
      half(shape_, ACL_FLOAT16, {});
  Expect([&](Call& c) { c.self = i64.get(); });
  Expect([&](Call& c) { c.target = f64.get(); });
  Expect([&](Call& c) { c.out = half.get(); });  // out's dtype must be target's
  Expect([&](Call& c) { c.weight = i64.get(); });
  Expect([&](Call& c) { c.pos_weight = f64.get(); });
  Expect([&](Call& c) { c.grad_output = i64.get(); });
  // gradSelfOut's dtype must be target's too.
  EXPECT_TRUE(Mentions(Expect([&](Call& c) { c.grad_self = half.get(); }),
                       "gradSelfOut dtype DT_FLOAT16 must equal target dtype"));
  Expect([&](Call& c) { c.grad_self = f64.get(); });
}

TEST_F(FusedChecks, ReductionOutsideZeroToTwoIsRejected) {
  Expect([](Call& c) { c.reduction = 3; });
  EXPECT_TRUE(
      Mentions(Expect([](Call& c) { c.reduction = -1; }), "Reduction only support [0, 1, 2]"));
}

TEST_F(FusedChecks, ShapesAndBroadcastAreCheckedAsTheTwoCalls) {
  DeviceTensor transposed({5, 4}, ACL_FLOAT, {}), wide({2, 4, 5}, ACL_FLOAT, {}),
      three({3}, ACL_FLOAT, {}), pair({2}, ACL_FLOAT, {}), one({1}, ACL_FLOAT, {});
  const Shape rank9{1, 2, 1, 2, 1, 2, 1, 2, 1};
  DeviceTensor deep(rank9, ACL_FLOAT, {});
  Expect([&](Call& c) { c.target = transposed.get(); });
  Expect([&](Call& c) { c.weight = wide.get(); });
  Expect([&](Call& c) { c.pos_weight = three.get(); });
  Expect([&](Call& c) { c.out = transposed.get(); });
  Expect([&](Call& c) {
    c.out = pair.get();
    c.reduction = 1;
  });
  Expect([&](Call& c) { c.grad_output = three.get(); });
  EXPECT_TRUE(Mentions(Expect([&](Call& c) { c.grad_output = wide.get(); }),
                       "gradOutput shape [2,4,5] cannot broadcast into self shape [4,5]"));
  EXPECT_TRUE(Mentions(Expect([&](Call& c) { c.grad_self = transposed.get(); }),
                       "gradSelfOut shape [5,4] must equal self shape [4,5]"));
  Expect([&](Call& c) { c.grad_self = one.get(); });
  EXPECT_TRUE(Mentions(Expect([&](Call& c) { c.grad_self = deep.get(); }), "rank 9"));
}

TEST_F(FusedChecks, ViewsAndFormatsAreCheckedAsTheTwoCalls) {
  const int64_t dims[] = {4, 5};
  const int64_t too_small[] = {3, 5};
  aclTensor* outside = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, too_small, 2,
                                       grad_self_.device());
  aclTensor* nchw = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, dims, 2,
                                    grad_self_.device());
  EXPECT_TRUE(Mentions(Expect([&](Call& c) { c.grad_self = outside; }), "the view of gradSelfOut"));
  Expect([&](Call& c) { c.grad_output = outside; });
  EXPECT_TRUE(Mentions(Expect([&](Call& c) { c.grad_self = nchw; }), "format"));
  aclDestroyTensor(outside);
  aclDestroyTensor(nchw);
}

// The one check the fused call adds: the gradient flowing into a mean or sum is one value.
TEST_F(FusedChecks, ReducedLossTakesAOneElementGradOutput) {
  DeviceTensor row({5}, ACL_FLOAT, {}), scalar({}, ACL_FLOAT, {2.0f}), one({1, 1}, ACL_FLOAT, {});
  DeviceTensor loss({}, ACL_FLOAT, {});
  Call call = Valid();
  call.out = loss.get();
  call.reduction = 1;
  call.grad_output = row.get();  // broadcasts, so the Backward alone would take it
  const Outcome outcome = Fused(call);
  EXPECT_EQ(outcome.status, ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(outcome.message.find(std::string(kFused) +
                                 ": with reduction mean or sum, gradOutput must hold exactly one "
                                 "element (shape [] or [1]), but its shape is [5]."),
            std::string::npos)
      << outcome.message;
  for (aclTensor* single : {scalar.get(), one.get()}) {
    call.grad_output = single;
    EXPECT_EQ(Fused(call).status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

// ---- Bitwise equality with the two calls ----

enum class Layout { kContiguous, kTransposedInputs, kStridedOutputs };
enum class Weighting { kNone, kFull, kColumnBoth, kRowPos, kScalarWeightFullPos };
struct Dtypes {
  const char* name;
  aclDataType self, target, weight;
};

constexpr int64_t kRows = 67, kCols = 131;  // 8777 elements: three reduction blocks

// Values over the whole float range with every special value sprinkled in.
std::vector<float> Draw(std::mt19937& rng, int64_t count, float low, float high,
                        std::vector<float> specials) {
  std::uniform_real_distribution<float> uniform(low, high);
  std::uniform_int_distribution<size_t> pick(0, specials.size() - 1);
  std::vector<float> values(count);
  for (float& value : values) value = rng() % 16 == 0 ? specials[pick(rng)] : uniform(rng);
  return values;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// An [R, C] tensor; transposed: the view of a [C, R] storage through strides {1, R}.
std::unique_ptr<DeviceTensor> Matrix(aclDataType dtype, const std::vector<float>& values,
                                     bool transposed) {
  if (!transposed) return std::make_unique<DeviceTensor>(Shape{kRows, kCols}, dtype, values);
  return std::make_unique<DeviceTensor>(Shape{kRows, kCols}, dtype, values, Shape{1, kRows}, 0,
                                        Shape{kCols, kRows});
}

struct Case {
  Dtypes dtypes;
  int64_t reduction;
  Weighting weighting;
  Layout layout;
  bool grad_output;
};

std::string Describe(const Case& c) {
  return std::string(c.dtypes.name) + " reduction " + std::to_string(c.reduction) + " weighting " +
         std::to_string(static_cast<int>(c.weighting)) + " layout " +
         std::to_string(static_cast<int>(c.layout)) + (c.grad_output ? " gradOutput" : " null");
}

// The optional operands of a weighting.
void MakeWeights(const Case& c, std::mt19937& rng, std::unique_ptr<DeviceTensor>& weight,
                 std::unique_ptr<DeviceTensor>& pos_weight) {
  const std::vector<float> specials{0.0f, kInf, kNaN, 1e30f, 1e-30f};
  auto make = [&](Shape shape) {
    int64_t count = 1;
    for (int64_t dim : shape) count *= dim;
    return std::make_unique<DeviceTensor>(shape, c.dtypes.weight,
                                          Draw(rng, count, 0.0f, 3.0f, specials));
  };
  switch (c.weighting) {
    case Weighting::kNone:
      break;
    case Weighting::kFull:
      weight = make({kRows, kCols});
      break;
    case Weighting::kColumnBoth:
      weight = make({kCols});
      pos_weight = make({kCols});
      break;
    case Weighting::kRowPos:
      pos_weight = make({kRows, 1});
      break;
    case Weighting::kScalarWeightFullPos:
      weight = make({});
      pos_weight = make({kRows, kCols});
      break;
  }
}

// An output of `shape`'s kind: the loss of a reduction is a single element, read through an
// offset when the outputs are strided; element-wise outputs are then transposed views.
std::unique_ptr<DeviceTensor> Output(const Case& c, bool loss) {
  const aclDataType dtype = c.dtypes.target;
  const bool strided = c.layout == Layout::kStridedOutputs;
  if (loss && c.reduction != 0) {
    if (!strided) return std::make_unique<DeviceTensor>(Shape{}, dtype, std::vector<float>{});
    return std::make_unique<DeviceTensor>(Shape{1}, dtype, std::vector<float>{}, Shape{1}, 1,
                                          Shape{2});
  }
  return Matrix(dtype, {}, strided);
}

void ExpectFusedEqualsTheTwoCalls(const Case& c) {
  SCOPED_TRACE(Describe(c));
  std::mt19937 rng(static_cast<unsigned>(c.reduction * 131 + static_cast<int>(c.weighting) * 7 +
                                         static_cast<int>(c.layout)));
  const int64_t count = kRows * kCols;
  const bool transposed = c.layout == Layout::kTransposedInputs;
  auto self = Matrix(
      c.dtypes.self,
      Draw(rng, count, -30.0f, 30.0f, {kInf, -kInf, kNaN, 0.0f, -0.0f, 100.0f, -100.0f, 1e-30f}),
      transposed);
  auto target =
      Matrix(c.dtypes.target, Draw(rng, count, 0.0f, 1.0f, {0.0f, 1.0f, -0.5f, 1.5f, kNaN, kInf}),
             transposed);
  std::unique_ptr<DeviceTensor> weight, pos_weight, grad_output;
  MakeWeights(c, rng, weight, pos_weight);
  if (c.grad_output && c.reduction == 0) {
    grad_output = std::make_unique<DeviceTensor>(Shape{kCols}, ACL_FLOAT,
                                                 Draw(rng, kCols, -2.0f, 2.0f, {0.0f, kNaN}));
  } else if (c.grad_output) {
    grad_output =
        std::make_unique<DeviceTensor>(Shape{1}, c.dtypes.self, std::vector<float>{-0.75f});
  }
  // All ones, for the Backward where the fused call has a null gradOutput.
  DeviceTensor ones({}, ACL_FLOAT, {1.0f});
  auto loss = Output(c, true), grad = Output(c, false);
  auto fused_loss = Output(c, true), fused_grad = Output(c, false);
  auto get = [](const std::unique_ptr<DeviceTensor>& t) { return t ? t->get() : nullptr; };
  Call call{self->get(),      target->get(), get(weight), get(pos_weight),
            get(grad_output), loss->get(),   grad->get(), c.reduction};
  ASSERT_EQ(Forward(call).status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(Backward(call, grad_output ? grad_output->get() : ones.get()).status, ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  call.out = fused_loss->get();
  call.grad_self = fused_grad->get();
  ASSERT_EQ(Fused(call).status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(fused_loss->Bytes(), loss->Bytes()) << "loss";
  EXPECT_EQ(fused_grad->Bytes(), grad->Bytes()) << "gradient";
}

class FusedEqualsTwoCalls : public ::testing::TestWithParam<Dtypes> {};

TEST_P(FusedEqualsTwoCalls, BitwiseForEveryReductionWeightingAndLayout) {
  for (int64_t reduction : {0, 1, 2}) {
    for (Weighting weighting : {Weighting::kNone, Weighting::kFull, Weighting::kColumnBoth,
                                Weighting::kRowPos, Weighting::kScalarWeightFullPos}) {
      for (Layout layout :
           {Layout::kContiguous, Layout::kTransposedInputs, Layout::kStridedOutputs}) {
        for (bool grad_output : {false, true}) {
          ExpectFusedEqualsTheTwoCalls({GetParam(), reduction, weighting, layout, grad_output});
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FusedEqualsTwoCalls,
                         ::testing::Values(Dtypes{"fp32", ACL_FLOAT, ACL_FLOAT, ACL_FLOAT},
                                           Dtypes{"fp16", ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16},
                                           Dtypes{"bf16", ACL_BF16, ACL_BF16, ACL_BF16},
                                           Dtypes{"mixed", ACL_BF16, ACL_FLOAT, ACL_FLOAT16}),
                         [](const ::testing::TestParamInfo<Dtypes>& param) {
                           return std::string(param.param.name);
                         });

// Over no elements: a mean is NaN, a sum 0, and there is no gradient to write.
TEST(FusedEmptySelf, ReductionsFillAsTheForward) {
  const Shape empty{3, 0};
  for (int64_t reduction : {0, 1, 2}) {
    DeviceTensor self(empty, ACL_FLOAT, {}), target(empty, ACL_FLOAT, {}),
        grad(empty, ACL_FLOAT, {});
    DeviceTensor loss(reduction == 0 ? empty : Shape{}, ACL_FLOAT, {7.0f}),
        fused_loss(reduction == 0 ? empty : Shape{}, ACL_FLOAT, {7.0f});
    Call call{self.get(), target.get(), nullptr,    nullptr,
              nullptr,    loss.get(),   grad.get(), reduction};
    ASSERT_EQ(Forward(call).status, ACLNN_SUCCESS);
    call.out = fused_loss.get();
    ASSERT_EQ(Fused(call).status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(fused_loss.Bytes(), loss.Bytes()) << "reduction " << reduction;
  }
}

}  // namespace
}  // namespace openaclnn::testing
