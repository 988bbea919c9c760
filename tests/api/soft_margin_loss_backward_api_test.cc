// aclnnSoftMarginLossBackward through its C API: CANN's UT cases by their intent, OpenACLNN's
// decisions (docs/contract/checks-and-codes.md, aclnnSoftMarginLossBackward's section), every
// check's status code, its order and message, and values against a long-double reference.
#include "aclnnop/aclnn_soft_margin_loss_backward.h"

#include <cmath>
#include <limits>

#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;
constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

// The gradient -t g sigmoid(-z), z = x t, before any 1/N: t g and z exact in long double (two
// 24-bit significands), sigmoid(-z) = e / (1 + e) for z > 0 and 1 / (1 + e) otherwise, with
// e = exp(-|z|), so that nothing overflows. Non-finite classes as IEEE gives them.
long double ExactGradient(long double x, long double t, long double g) {
  const long double z = x * t, e = std::exp(-std::fabs(z));
  const long double sigmoid = z > 0 ? e / (1 + e) : 1 / (1 + e);
  return -(t * g) * sigmoid;
}

aclnnStatus Plan(const aclTensor* grad, const aclTensor* self, const aclTensor* target,
                 int64_t reduction, aclTensor* out, uint64_t* workspace_size = nullptr) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnSoftMarginLossBackwardGetWorkspaceSize(
      grad, self, target, reduction, out, &size, &executor);
  if (workspace_size != nullptr) *workspace_size = size;
  return PlanOnly(status, executor);
}

aclnnStatus Plan(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target,
                 int64_t reduction, const DeviceTensor& out) {
  return Plan(grad.get(), self.get(), target.get(), reduction, out.get());
}

aclnnStatus RunOp(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target,
                  int64_t reduction, const DeviceTensor& out) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnSoftMarginLossBackwardGetWorkspaceSize(
      grad.get(), self.get(), target.get(), reduction, out.get(), &size, &executor);
  return LaunchAndSync(status, size, executor, aclnnSoftMarginLossBackward);
}

// The broadcast shape of `shapes` (the tests' shapes broadcast).
Shape Broadcast(std::initializer_list<Shape> shapes) {
  Shape result;
  for (const Shape& shape : shapes) {
    while (result.size() < shape.size()) result.insert(result.begin(), 1);
    for (size_t d = 1; d <= shape.size(); ++d) {
      int64_t& into = result[result.size() - d];
      if (into == 1) into = shape[shape.size() - d];
    }
  }
  return result;
}

// --- CANN's UT cases (13 TEST_F), by their intent ---

TEST(SoftMarginLossBackwardCann, NullTensorsAre161001InParameterOrder) {
  DeviceTensor tensor({2, 2}, ACL_FLOAT, {});
  const aclTensor* t = tensor.get();
  EXPECT_EQ(Plan(nullptr, t, t, kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions(
      "aclnnSoftMarginLossBackward: Expected a proper Tensor but got null for argument "
      "gradOutput."));
  EXPECT_EQ(Plan(t, nullptr, nullptr, kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument self."));
  EXPECT_EQ(Plan(t, t, nullptr, kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument target."));
  EXPECT_EQ(Plan(t, t, t, kNone, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument out."));
}

TEST(SoftMarginLossBackwardCann, DoubleTensorsAre161002) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    const auto dtype = [&](int index) { return index == which ? ACL_DOUBLE : ACL_FLOAT; };
    DeviceTensor grad({2, 2}, dtype(0), {}), self({2, 2}, dtype(1), {}),
        target({2, 2}, dtype(2), {}), out({2, 2}, dtype(3), {});
    EXPECT_EQ(Plan(grad, self, target, kNone, out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("has dtype DT_DOUBLE"));
  }
}

TEST(SoftMarginLossBackwardCann, EmptyTensorsAreAccepted) {
  DeviceTensor empty({2, 0}, ACL_FLOAT, {});
  uint64_t workspace_size = 1;
  EXPECT_EQ(Plan(empty.get(), empty.get(), empty.get(), kNone, empty.get(), &workspace_size),
            ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  EXPECT_EQ(RunOp(empty, empty, empty, kMean, empty), ACLNN_SUCCESS);
}

// soft_margin_loss_backward_float32, _reduction_mean, _reduction_sum (gradOutput full-shaped in
// each), _diff_target_shape (target [2,1], sum), _float16_float32 (fp32 gradOutput and target,
// fp16 self and out) and ascend910B2_..._bfloat16: accepted, and their values exact.
TEST(SoftMarginLossBackwardCann, CannsCasesGiveTheExactGradient) {
  const struct {
    aclDataType grad, self, target, out;
    int64_t reduction;
    Shape target_shape;
  } cases[] = {{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kNone, {2, 2}},
               {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kMean, {2, 2}},
               {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kSum, {2, 2}},
               {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kSum, {2, 1}},
               {ACL_FLOAT, ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT16, kNone, {2, 2}},
               {ACL_BF16, ACL_BF16, ACL_BF16, ACL_BF16, kNone, {2, 2}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.self << " reduction " << c.reduction);
    DeviceTensor grad({2, 2}, c.grad, UniformValues(4, 0, 1, 1)),
        self({2, 2}, c.self, UniformValues(4, 0, 1, 2));
    DeviceTensor target(c.target_shape, c.target, {-1, 1, 1, -1}), out({2, 2}, c.out, {});
    ASSERT_EQ(RunOp(grad, self, target, c.reduction, out), ACLNN_SUCCESS);
    const std::vector<float> g = grad.Read(), x = self.Read(), t = target.Read(), got = out.Read();
    for (int64_t i = 0; i < 4; ++i) {
      const long double exact =
          ExactGradient(x[i], t[BroadcastIndex({2, 2}, c.target_shape, i)], g[i]);
      EXPECT_TRUE(CorrectlyRounded(got[i], c.reduction == kMean ? exact / 4 : exact, c.out)) << i;
    }
  }
}

TEST(SoftMarginLossBackwardCann, RankNineIs161002) {
  const Shape nine{2, 2, 3, 2, 2, 3, 2, 2, 3};
  DeviceTensor tensor(nine, ACL_FLOAT, {});
  EXPECT_EQ(Plan(tensor, tensor, tensor, kNone, tensor), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput (DT_FLOAT [2,2,3,2,2,3,2,2,3]) has rank 9; at most 8"));
}

// --- OpenACLNN's decisions, and the checks' order ---

TEST(SoftMarginLossBackwardChecks, WorkspaceSizeAndExecutorAreCheckedFirst) {
  DeviceTensor tensor({3}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnSoftMarginLossBackwardGetWorkspaceSize(nullptr, tensor.get(), tensor.get(), 0,
                                                        tensor.get(), nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnSoftMarginLossBackward: workspaceSize is nullptr."));
  EXPECT_EQ(aclnnSoftMarginLossBackwardGetWorkspaceSize(nullptr, tensor.get(), tensor.get(), 0,
                                                        tensor.get(), &workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor is nullptr."));
}

// CANN indexes a three-entry table with the reduction (undefined behaviour outside 0..2);
// OpenACLNN refuses it (D51) after the dtypes and before the shapes.
TEST(SoftMarginLossBackwardChecks, ReductionsOutsideZeroToTwoAre161002AfterTheDtypes) {
  DeviceTensor fp32({2, 3}, ACL_FLOAT, {}), fp64({2, 3}, ACL_DOUBLE, {}), other({4}, ACL_FLOAT, {});
  for (int64_t reduction : {int64_t{3}, int64_t{-1}}) {
    EXPECT_EQ(Plan(fp32, fp32, fp32, reduction, fp32), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("aclnnSoftMarginLossBackward: reduction is " +
                              std::to_string(reduction) + "; Reduction only support [0, 1, 2]"));
  }
  EXPECT_EQ(Plan(fp32, fp32, fp32, 3, fp64), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out has dtype DT_DOUBLE"));
  EXPECT_EQ(Plan(fp32, other, fp32, 3, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("reduction is 3"));
}

// Ranks and views of gradOutput, self, target, out; then gradOutput with self, their broadcast
// with target, and out against the result.
TEST(SoftMarginLossBackwardChecks, ShapesAreCheckedInCannsOrder) {
  DeviceTensor a({2, 3}, ACL_FLOAT, {}), row({3}, ACL_FLOAT, {}), other({4}, ACL_FLOAT, {}),
      column({4, 1, 1}, ACL_FLOAT, {}), big({4, 2, 3}, ACL_FLOAT, {}),
      nine({1, 1, 1, 1, 1, 1, 1, 1, 1}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(a, nine, a, kNone, a), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT [1,1,1,1,1,1,1,1,1]) has rank 9"));
  EXPECT_EQ(Plan(other, a, row, kNone, nine), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out (DT_FLOAT [1,1,1,1,1,1,1,1,1]) has rank 9"));
  EXPECT_EQ(Plan(other, a, row, kNone, a), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput shape [4] and self shape [2,3] cannot broadcast"));
  EXPECT_EQ(Plan(row, a, other, kNone, a), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("the broadcast of gradOutput and self, shape [2,3] and target shape "
                    "[4] cannot broadcast"));
  // Every input may enlarge the shape; out must be exactly the result.
  EXPECT_EQ(Plan(row, a, column, kNone, big), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(column, row, a, kSum, big), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(row, a, column, kNone, a), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("out shape [2,3] must be the broadcast shape of gradOutput, self and "
                    "target, [4,2,3]."));
}

// D52: CANN returns success for an empty self before comparing any shape; OpenACLNN checks the
// shapes first, so a mismatched empty call fails, and a consistent one writes nothing.
TEST(SoftMarginLossBackwardChecks, EmptyInputsAreCheckedBeforeAnythingIsSkipped) {
  DeviceTensor empty({0, 3}, ACL_FLOAT, {}), other({5, 7}, ACL_FLOAT, {}), one({1}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(other, empty, other, kNone, other), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput shape [5,7] and self shape [0,3] cannot broadcast"));
  EXPECT_EQ(Plan(one, empty, one, kNone, other), ACLNN_ERR_PARAM_INVALID);
  // Only target empty (CANN computes on): the broadcast shape is empty, and out too.
  DeviceTensor self({3}, ACL_FLOAT, {1, 2, 3}), empty_target({0, 3}, ACL_FLOAT, {});
  EXPECT_EQ(RunOp(one, self, empty_target, kMean, empty), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(one, self, empty_target, kMean, self), ACLNN_ERR_PARAM_INVALID);
}

TEST(SoftMarginLossBackwardChecks, Bf16FollowsTheSocProfile) {
  DeviceTensor bf16({2}, ACL_BF16, {}), fp32({2}, ACL_FLOAT, {});
  {
    ScopedSocVersion profile("Ascend910_9391");
    EXPECT_EQ(Plan(bf16, bf16, bf16, kNone, bf16), ACLNN_SUCCESS);
  }
  ScopedSocVersion profile("Ascend310P3");
  EXPECT_EQ(Plan(fp32, fp32, fp32, kNone, fp32), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(bf16, fp32, fp32, kNone, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("gradOutput has dtype DT_BF16 (27), which Ascend310P3 does not "
                    "support; supported: DT_FLOAT, DT_FLOAT16."));
}

// --- Values against the long-double reference ---

struct ValueCase {
  aclDataType grad_type, self_type, target_type, out_type;
  int64_t reduction;
  Shape grad_shape, self_shape, target_shape;
};

class SoftMarginLossBackwardValues : public ::testing::TestWithParam<ValueCase> {};

TEST_P(SoftMarginLossBackwardValues, AreTheExactGradientCorrectlyRounded) {
  const ValueCase c = GetParam();
  const Shape shape = Broadcast({c.grad_shape, c.self_shape, c.target_shape});
  // D53: a mean's N is the element count of broadcast(self, target), gradOutput's shape aside.
  const int64_t n = ElementCount(Broadcast({c.self_shape, c.target_shape}));
  for (float range : {5.0f, 40.0f}) {
    SCOPED_TRACE(range);
    DeviceTensor grad(c.grad_shape, c.grad_type,
                      UniformValues(ElementCount(c.grad_shape), -2, 2, 5));
    DeviceTensor self(c.self_shape, c.self_type,
                      UniformValues(ElementCount(c.self_shape), -range, range, 6));
    DeviceTensor target(c.target_shape, c.target_type,
                        UniformValues(ElementCount(c.target_shape), -range, range, 7));
    DeviceTensor out(shape, c.out_type, {});
    ASSERT_EQ(RunOp(grad, self, target, c.reduction, out), ACLNN_SUCCESS);
    const std::vector<float> g = grad.Read(), x = self.Read(), t = target.Read(), got = out.Read();
    for (int64_t i = 0; i < ElementCount(shape); ++i) {
      const long double exact = ExactGradient(x[BroadcastIndex(shape, c.self_shape, i)],
                                              t[BroadcastIndex(shape, c.target_shape, i)],
                                              g[BroadcastIndex(shape, c.grad_shape, i)]);
      ASSERT_TRUE(CorrectlyRounded(got[i], c.reduction == kMean ? exact / n : exact, c.out_type))
          << "element " << i;
    }
  }
}

std::string ValueCaseName(const ::testing::TestParamInfo<ValueCase>& param) {
  static const char* const kReductions[] = {"None", "Mean", "Sum"};
  return std::string(kReductions[param.param.reduction]) + "Case" + std::to_string(param.index);
}

// As CANN's ATK: gradOutput 0-D for mean and sum, full-shaped for none; and broadcasts of every
// input, mixed dtypes, and a gradOutput that enlarges the shape under mean (D53).
INSTANTIATE_TEST_SUITE_P(
    Cases, SoftMarginLossBackwardValues,
    ::testing::Values(
        ValueCase{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kNone, {7, 9}, {7, 9}, {7, 9}},
        ValueCase{ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, kMean, {}, {5000}, {5000}},
        ValueCase{ACL_BF16, ACL_BF16, ACL_BF16, ACL_BF16, kSum, {}, {3, 4, 5}, {3, 4, 5}},
        ValueCase{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kMean, {}, {3, 1000}, {1000}},
        ValueCase{ACL_FLOAT16, ACL_FLOAT, ACL_BF16, ACL_FLOAT, kNone, {5}, {3, 1}, {4, 1, 1}},
        ValueCase{ACL_FLOAT, ACL_BF16, ACL_FLOAT16, ACL_FLOAT16, kMean, {6, 1}, {4}, {1, 4}},
        ValueCase{ACL_BF16, ACL_FLOAT, ACL_FLOAT, ACL_BF16, kSum, {2, 3}, {}, {3}}),
    ValueCaseName);

// CANN's example: fp32 [2,2], gradOutput and self 0..3, target 1, mean; the digits it prints.
TEST(SoftMarginLossBackwardValues, CannsExampleGivesItsDigits) {
  DeviceTensor grad({2, 2}, ACL_FLOAT, {0, 1, 2, 3}), self({2, 2}, ACL_FLOAT, {0, 1, 2, 3}),
      target({2, 2}, ACL_FLOAT, {1, 1, 1, 1}), out({2, 2}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(grad, self, target, kMean, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  const float digits[] = {0, -67235, -59601, -35569};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(std::round(got[i] * 1e6f), digits[i]) << i;
    EXPECT_TRUE(CorrectlyRounded(got[i], ExactGradient(i, 1, i) / 4, ACL_FLOAT)) << i;
  }
  EXPECT_TRUE(std::signbit(got[0]));  // -(t g) = -0: printed "-0.000000"
}

// D54: the exact gradient where exp(-t x) overflows (CANN's and torch's inf / inf = NaN): about
// -t g; beyond, tiny values keep their sign when they round to zero.
TEST(SoftMarginLossBackwardValues, LargeMarginsGiveTheExactGradient) {
  const std::vector<float> x = {-100, -1e4f, -88.8f, 100, 1000, 20, 0.5f};
  const std::vector<float> t = {1, 1, 1, 1, 1, -3, 0.25f};
  const Shape shape{static_cast<int64_t>(x.size())};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor grad({}, ACL_FLOAT, {1}), self(shape, ACL_FLOAT, x), target(shape, ACL_FLOAT, t),
        out(shape, dtype, {});
    ASSERT_EQ(RunOp(grad, self, target, kNone, out), ACLNN_SUCCESS);
    const std::vector<float> got = out.Read();
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(CorrectlyRounded(got[i], ExactGradient(x[i], t[i], 1), dtype)) << i;
    }
    EXPECT_EQ(got[0], -1.0f);
    EXPECT_EQ(got[1], -1.0f);
    EXPECT_EQ(got[4], 0.0f);
    EXPECT_TRUE(std::signbit(got[4]));
  }
}

// The gradient is 0 exactly where t g = 0, with -(t g)'s sign (as CANN and torch); at z = 0 it is
// the rational -t g / 2 / N, correctly rounded (ties to even).
TEST(SoftMarginLossBackwardValues, ZerosKeepTheirSignsAndZeroMarginsAreRational) {
  const std::vector<float> x = {0.5f, 0.5f, 0.5f, 0.5f, 0, -0.0f, 0};
  const std::vector<float> t = {0.0f, -0.0f, 1, 1, 1, 1, -3};
  const std::vector<float> g = {1, 1, 0.0f, -0.0f, 1, 1, 1};
  const Shape shape{7};
  DeviceTensor grad(shape, ACL_FLOAT, g), self(shape, ACL_FLOAT, x), target(shape, ACL_FLOAT, t),
      out(shape, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(grad, self, target, kMean, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  const bool negative[] = {true, false, true, false};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(got[i], 0.0f) << i;
    EXPECT_EQ(std::signbit(got[i]), negative[i]) << i;
  }
  EXPECT_EQ(got[4], -1.0f / 14);  // -1 / 2 / 7, rounded once
  EXPECT_EQ(got[5], -1.0f / 14);
  EXPECT_EQ(got[6], 3.0f / 14);
  for (int i = 4; i < 7; ++i) EXPECT_TRUE(CorrectlyRounded(got[i], -0.5L * t[i] / 7, ACL_FLOAT));
}

// z = +inf: the zero of -(t g)'s sign; z = -inf: -(t g) / N; an infinite g: +-inf, NaN where it
// meets t = 0 or z = +inf; any NaN: NaN.
TEST(SoftMarginLossBackwardValues, NonFiniteInputsTakeTheirClasses) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {inf, -inf, 1, 1, inf, nan, 0};
  const std::vector<float> t = {1, 1, 1, 0, 1, 1, inf};
  const std::vector<float> g = {2, 2, inf, inf, inf, 1, 1};
  const Shape shape{7};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor grad(shape, dtype, {}), self(shape, dtype, {}), target(shape, dtype, {}),
        out(shape, dtype, {});
    UploadWithSpecials(grad, dtype, g);
    UploadWithSpecials(self, dtype, x);
    UploadWithSpecials(target, dtype, t);
    ASSERT_EQ(RunOp(grad, self, target, kMean, out), ACLNN_SUCCESS);
    const std::vector<float> got = out.Read();
    EXPECT_EQ(got[0], 0.0f);
    EXPECT_TRUE(std::signbit(got[0]));
    EXPECT_TRUE(CorrectlyRounded(got[1], -2.0L / 7, dtype));
    EXPECT_EQ(got[2], -inf);
    for (int i = 3; i < 7; ++i) EXPECT_TRUE(std::isnan(got[i])) << i;
  }
}

TEST(SoftMarginLossBackwardValues, NonContiguousTensorsAreReadInPlace) {
  // self is the transpose of a [10,5] storage; gradOutput a column broadcast along rows; out a
  // strided view of a [5,20] storage.
  const std::vector<float> storage = UniformValues(50, -5, 5, 8), g = UniformValues(5, -2, 2, 9);
  DeviceTensor self({5, 10}, ACL_FLOAT, storage, {1, 5}, 0, {10, 5});
  DeviceTensor grad({5, 1}, ACL_FLOAT, g), target({10}, ACL_FLOAT, UniformValues(10, -2, 2, 10));
  DeviceTensor out({5, 10}, ACL_FLOAT, std::vector<float>(100, -1.0f), {20, 2}, 1, {5, 20});
  ASSERT_EQ(RunOp(grad, self, target, kNone, out), ACLNN_SUCCESS);
  const std::vector<float> t = target.Read(), got = out.Read();
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 10; ++col) {
      const long double exact = ExactGradient(storage[col * 5 + row], t[col], g[row]);
      EXPECT_TRUE(CorrectlyRounded(got[row * 20 + 1 + 2 * col], exact, ACL_FLOAT));
      EXPECT_EQ(got[row * 20 + 2 * col], -1.0f);  // between the view's elements: untouched
    }
  }
}

}  // namespace
}  // namespace openaclnn::testing
