// aclnnBinaryCrossEntropy through its C API: CANN's UT cases by their intent, OpenACLNN's
// decisions (docs/contract/checks-and-codes.md §10), every check's status code and message, and
// values against a long-double reference.
#include "aclnnop/aclnn_binary_cross_entropy.h"

#include <cmath>
#include <limits>
#include <memory>

#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;

// CANN's header declares the global reduction names its programs use.
static_assert(Reduction::None == 0 && Reduction::Mean == 1 && Reduction::Sum == 2);

std::vector<float> Probabilities(int64_t count, float start = 0.013f) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = std::fmod(start + 0.0371f * i, 1.0f);
  return values;
}

// Phase 1 only; a successful executor is destroyed.
aclnnStatus Plan(const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                 int64_t reduction, aclTensor* out, uint64_t* workspace_size = nullptr) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBinaryCrossEntropyGetWorkspaceSize(
      self, target, weight, reduction, out, &size, &executor);
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  if (workspace_size != nullptr) *workspace_size = size;
  return status;
}

aclnnStatus Plan(const DeviceTensor& self, const DeviceTensor& target, const DeviceTensor* weight,
                 int64_t reduction, const DeviceTensor& out) {
  return Plan(self.get(), target.get(), weight ? weight->get() : nullptr, reduction, out.get());
}

// Both phases and a sync; returns the first failing status.
aclnnStatus RunOp(const DeviceTensor& self, const DeviceTensor& target, const DeviceTensor* weight,
                  int64_t reduction, const DeviceTensor& out) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus status = aclnnBinaryCrossEntropyGetWorkspaceSize(
          self.get(), target.get(), weight ? weight->get() : nullptr, reduction, out.get(),
          &workspace_size, &executor)) {
    return status;
  }
  void* workspace = nullptr;
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  const aclnnStatus status =
      aclnnBinaryCrossEntropy(workspace, workspace_size, executor, AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

// --- CANN's UT cases (25 TEST_F, 63 calls), by their intent ---

TEST(BinaryCrossEntropyCann, NullSelfTargetOrOutIs161001) {
  const Shape shape{5, 5};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}),
      weight(shape, ACL_FLOAT, {}), out(shape, ACL_FLOAT, {});
  // CANN's op_api returns 561103 here; its docs, and OpenACLNN, 161001.
  EXPECT_EQ(Plan(nullptr, target.get(), weight.get(), Reduction::None, out.get()),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions(
      "aclnnBinaryCrossEntropy: Expected a proper Tensor but got null for argument self."));
  EXPECT_EQ(Plan(self.get(), nullptr, weight.get(), Reduction::None, out.get()),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument target."));
  EXPECT_EQ(Plan(self.get(), target.get(), weight.get(), Reduction::None, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument out."));
}

TEST(BinaryCrossEntropyCann, DoubleTensorsAre161002) {
  const Shape shape{5, 5};
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    const auto dtype = [&](int index) { return index == which ? ACL_DOUBLE : ACL_FLOAT; };
    DeviceTensor self(shape, dtype(0), {}), target(shape, dtype(1), {}),
        weight(shape, dtype(2), {}), out(shape, dtype(3), {});
    EXPECT_EQ(Plan(self, target, &weight, Reduction::None, out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("has dtype DT_DOUBLE"));
  }
}

TEST(BinaryCrossEntropyCann, ReductionThreeIs161002) {
  const Shape shape{5, 5};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}),
      weight(shape, ACL_FLOAT, {}), out(shape, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self, target, &weight, 3, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("reduction is 3; Reduction only support [0, 1, 2]"));
}

TEST(BinaryCrossEntropyCann, TargetOfAnotherShapeIs161002) {
  DeviceTensor self({5, 5}, ACL_FLOAT, {}), target({5, 7}, ACL_FLOAT, {}),
      weight({5, 5}, ACL_FLOAT, {}), out({5, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self, target, &weight, Reduction::None, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target shape [5,7] must equal self shape [5,5]."));
}

// case_reduction_1, case_float_* and case_float16_* (9 calls): fp32 and fp16, every reduction,
// with and without weight, out [5,5] or [1].
TEST(BinaryCrossEntropyCann, EveryReductionWithAndWithoutWeightIsAccepted) {
  const Shape shape{5, 5};
  const struct {
    aclDataType dtype;
    int64_t reduction;
    bool weighted;
  } cases[] = {{ACL_FLOAT, Reduction::Mean, true},   {ACL_FLOAT, Reduction::None, true},
               {ACL_FLOAT, Reduction::None, false},  {ACL_FLOAT, Reduction::Sum, true},
               {ACL_FLOAT, Reduction::Sum, false},   {ACL_FLOAT, Reduction::Mean, false},
               {ACL_FLOAT16, Reduction::None, true}, {ACL_FLOAT16, Reduction::Sum, true},
               {ACL_FLOAT16, Reduction::Mean, true}};
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.dtype << " reduction " << c.reduction);
    DeviceTensor self(shape, c.dtype, Probabilities(25)), target(shape, c.dtype, {}),
        weight(shape, c.dtype, {}),
        out(c.reduction == Reduction::None ? shape : Shape{1}, c.dtype, {});
    EXPECT_EQ(Plan(self, target, c.weighted ? &weight : nullptr, c.reduction, out), ACLNN_SUCCESS);
  }
}

TEST(BinaryCrossEntropyCann, EmptyTensorsAreAccepted) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16}) {
    DeviceTensor self({0, 5}, dtype, {}), target({0, 5}, dtype, {}), weight({0, 5}, dtype, {}),
        out({0, 5}, dtype, {});
    uint64_t workspace_size = 1;
    EXPECT_EQ(
        Plan(self.get(), target.get(), weight.get(), Reduction::None, out.get(), &workspace_size),
        ACLNN_SUCCESS);
    EXPECT_EQ(workspace_size, 0u);
  }
}

TEST(BinaryCrossEntropyCann, NonContiguousSelfIsAccepted) {
  DeviceTensor self({5, 10}, ACL_FLOAT16, Probabilities(50), {1, 5}, 0, {10, 5}),
      target({5, 10}, ACL_FLOAT16, {}), weight({5, 10}, ACL_FLOAT16, {}),
      out({5, 10}, ACL_FLOAT16, {});
  EXPECT_EQ(Plan(self, target, &weight, Reduction::None, out), ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyCann, OutDtypeOtherThanSelfsIs161002) {
  DeviceTensor self({5, 5}, ACL_FLOAT16, {}), target({5, 5}, ACL_FLOAT16, {}),
      weight({5, 5}, ACL_FLOAT16, {}), out({1}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self, target, &weight, Reduction::Mean, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out dtype DT_FLOAT must equal self dtype DT_FLOAT16."));
}

TEST(BinaryCrossEntropyCann, OutFormatOtherThanSelfsIsAccepted) {
  DeviceTensor self({5, 5}, ACL_FLOAT16, {}), target({5, 5}, ACL_FLOAT16, {}),
      weight({5, 5}, ACL_FLOAT16, {}), storage({1}, ACL_FLOAT16, {});
  FormattedTensor out({1}, ACL_FLOAT16, ACL_FORMAT_NCHW, storage.device());
  EXPECT_EQ(Plan(self.get(), target.get(), weight.get(), Reduction::Mean, out.get()),
            ACLNN_SUCCESS);
}

// case_format: 13 formats x 3 reductions, every tensor of the call in the same format.
TEST(BinaryCrossEntropyCann, EveryFormatIsAccepted) {
  const aclFormat formats[] = {ACL_FORMAT_UNDEFINED,   ACL_FORMAT_NCHW,    ACL_FORMAT_NHWC,
                               ACL_FORMAT_ND,          ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z,
                               ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_HWCN,    ACL_FORMAT_NDHWC,
                               ACL_FORMAT_FRACTAL_NZ,  ACL_FORMAT_NCDHW,   ACL_FORMAT_NDC1HWC0,
                               ACL_FRACTAL_Z_3D};
  const Shape shape{5, 5};
  DeviceTensor memory(shape, ACL_FLOAT16, Probabilities(25));
  for (int64_t reduction : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    for (aclFormat format : formats) {
      SCOPED_TRACE(::testing::Message() << "format " << format << " reduction " << reduction);
      FormattedTensor self(shape, ACL_FLOAT16, format, memory.device()),
          target(shape, ACL_FLOAT16, format, memory.device()),
          weight(shape, ACL_FLOAT16, format, memory.device()),
          out(reduction == Reduction::None ? shape : Shape{1}, ACL_FLOAT16, format,
              memory.device());
      EXPECT_EQ(Plan(self.get(), target.get(), weight.get(), reduction, out.get()), ACLNN_SUCCESS);
    }
  }
}

// --- OpenACLNN's decisions (docs/contract/differences-from-cann.md) ---

// CANN compares dtypes only when a weight is given; its docs, and OpenACLNN, always.
TEST(BinaryCrossEntropyChecks, DtypesMustEqualSelfsAlsoWithoutWeight) {
  const Shape shape{4};
  DeviceTensor self(shape, ACL_FLOAT, {}), half(shape, ACL_FLOAT16, {}), out(shape, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self, half, nullptr, Reduction::None, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target dtype DT_FLOAT16 must equal self dtype DT_FLOAT."));
  EXPECT_EQ(Plan(self, self, &half, Reduction::None, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("weight dtype DT_FLOAT16 must equal self dtype DT_FLOAT."));
  EXPECT_EQ(Plan(self, self, nullptr, Reduction::None, half), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out dtype DT_FLOAT16 must equal self dtype DT_FLOAT."));
}

TEST(BinaryCrossEntropyChecks, UnsupportedDtypesComeFirstAndNameTheTensor) {
  const Shape shape{4};
  DeviceTensor self(shape, ACL_FLOAT, {}), ints(shape, ACL_INT64, {}), out(shape, ACL_FLOAT16, {});
  EXPECT_EQ(Plan(self, self, &ints, Reduction::None, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("weight has dtype DT_INT64"));
}

// An extension: CANN's kernels need weight of self's shape; here it broadcasts, as in the
// with-logits family and in PyTorch.
TEST(BinaryCrossEntropyChecks, WeightBroadcastsIntoSelfButDoesNotEnlargeIt) {
  DeviceTensor self({4, 5}, ACL_FLOAT, Probabilities(20)), target({4, 5}, ACL_FLOAT, {}),
      out({4, 5}, ACL_FLOAT, {}), row({5}, ACL_FLOAT, {}), column({4, 1}, ACL_FLOAT, {}),
      scalar({}, ACL_FLOAT, {}), enlarging({2, 4, 5}, ACL_FLOAT, {}), wrong({4}, ACL_FLOAT, {});
  for (const DeviceTensor* weight : {&row, &column, &scalar}) {
    EXPECT_EQ(Plan(self, target, weight, Reduction::None, out), ACLNN_SUCCESS);
  }
  EXPECT_EQ(Plan(self, target, &enlarging, Reduction::None, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("weight shape [2,4,5] cannot broadcast into self shape [4,5]"));
  EXPECT_EQ(Plan(self, target, &wrong, Reduction::None, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("weight shape [4] cannot broadcast"));
}

TEST(BinaryCrossEntropyChecks, OutShapeIsCheckedInPhaseOne) {
  DeviceTensor self({5, 5}, ACL_FLOAT, {}), target({5, 5}, ACL_FLOAT, {}),
      flat({25}, ACL_FLOAT, {}), two({2}, ACL_FLOAT, {}), one_by_one({1, 1}, ACL_FLOAT, {}),
      scalar({}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self, target, nullptr, Reduction::None, flat), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out shape [25] must equal self shape [5,5]."));
  EXPECT_EQ(Plan(self, target, nullptr, Reduction::Sum, two), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("out must hold exactly one element (shape [] or [1]), but its shape "
                    "is [2]."));
  EXPECT_EQ(Plan(self, target, nullptr, Reduction::Mean, one_by_one), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(self, target, nullptr, Reduction::Sum, scalar), ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyChecks, RanksZeroToEightAreAcceptedNine161002) {
  DeviceTensor scalar({}, ACL_FLOAT, {0.25f});
  EXPECT_EQ(Plan(scalar, scalar, nullptr, Reduction::None, scalar), ACLNN_SUCCESS);
  const Shape eight{1, 2, 1, 2, 1, 2, 1, 2}, nine{1, 2, 1, 2, 1, 2, 1, 2, 1};
  DeviceTensor self8(eight, ACL_FLOAT, {}), self9(nine, ACL_FLOAT, {}), out({}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self8, self8, nullptr, Reduction::Mean, out), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(self9, self9, nullptr, Reduction::Mean, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT [1,2,1,2,1,2,1,2,1]) has rank 9; at most 8"));
}

TEST(BinaryCrossEntropyChecks, NullWorkspaceSizeOrExecutorIs161001) {
  DeviceTensor self({3}, ACL_FLOAT, {}), out({3}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnBinaryCrossEntropyGetWorkspaceSize(self.get(), self.get(), nullptr, 0, out.get(),
                                                    nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("workspaceSize is nullptr."));
  EXPECT_EQ(aclnnBinaryCrossEntropyGetWorkspaceSize(self.get(), self.get(), nullptr, 0, out.get(),
                                                    &workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor is nullptr."));
}

TEST(BinaryCrossEntropyChecks, ViewsOutsideTheirStorageAre161002) {
  DeviceTensor self({4, 4}, ACL_FLOAT, {}, {5, 1}, 0, {16}), target({4, 4}, ACL_FLOAT, {}),
      out({4, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self, target, nullptr, Reduction::None, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the view of self"));
}

// --- Values against the long-double reference ---

struct ValueCase {
  aclDataType dtype;
  int64_t reduction;
  Shape shape;
  Shape weight_shape;  // empty: no weight
};

class BinaryCrossEntropyValues : public ::testing::TestWithParam<ValueCase> {};

TEST_P(BinaryCrossEntropyValues, AreTheExactLossCorrectlyRounded) {
  const ValueCase c = GetParam();
  int64_t count = 1;
  for (int64_t dim : c.shape) count *= dim;
  DeviceTensor self(c.shape, c.dtype, Probabilities(count));
  DeviceTensor target(c.shape, c.dtype, Probabilities(count, 0.71f));
  std::unique_ptr<DeviceTensor> weight;
  if (!c.weight_shape.empty()) {
    std::vector<float> w(64);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f + 0.125f * static_cast<float>(i % 9);
    weight = std::make_unique<DeviceTensor>(c.weight_shape, c.dtype, w);
  }
  DeviceTensor out(c.reduction == Reduction::None ? c.shape : Shape{}, c.dtype, {});
  ASSERT_EQ(RunOp(self, target, weight.get(), c.reduction, out), ACLNN_SUCCESS);
  const std::vector<float> x = self.Read(), t = target.Read(), got = out.Read();
  const std::vector<float> w = weight ? weight->Read() : std::vector<float>{1.0f};
  const int64_t columns = c.shape.back();
  long double total = 0;
  for (int64_t i = 0; i < count; ++i) {
    // The weights used broadcast along the last dimension or are scalars.
    const float wi = w.size() == 1 ? w[0] : w[i % columns];
    const long double exact = ExactProbabilityLoss(x[i], t[i], wi);
    total += exact;
    if (c.reduction == Reduction::None) {
      EXPECT_TRUE(CorrectlyRounded(got[i], exact, c.dtype)) << "element " << i;
    }
  }
  if (c.reduction == Reduction::Mean) total /= count;
  if (c.reduction != Reduction::None) {
    EXPECT_TRUE(CorrectlyRounded(got[0], total, c.dtype));
  }
}

std::string ValueCaseName(const ::testing::TestParamInfo<ValueCase>& param) {
  static const char* const kReductions[] = {"None", "Mean", "Sum"};
  return std::string(kReductions[param.param.reduction]) + "Case" + std::to_string(param.index);
}

INSTANTIATE_TEST_SUITE_P(Cases, BinaryCrossEntropyValues,
                         ::testing::Values(ValueCase{ACL_FLOAT, Reduction::None, {2, 2}, {}},
                                           ValueCase{ACL_FLOAT, Reduction::None, {7, 9}, {9}},
                                           ValueCase{ACL_FLOAT, Reduction::Mean, {3, 1000}, {}},
                                           ValueCase{ACL_FLOAT, Reduction::Sum, {5000}, {}},
                                           ValueCase{ACL_FLOAT16, Reduction::None, {7, 9}, {7, 9}},
                                           ValueCase{ACL_FLOAT16, Reduction::Mean, {64, 70}, {70}},
                                           ValueCase{ACL_BF16, Reduction::None, {3, 4, 5}, {}},
                                           ValueCase{ACL_BF16, Reduction::Sum, {9000}, {}}),
                         ValueCaseName);

// CANN's example's data: [2,2] fp32, self 0.3, target 0.5, weight 1, none -> 0.780324 each.
TEST(BinaryCrossEntropyValues, CannsExampleGivesItsDigits) {
  DeviceTensor self({2, 2}, ACL_FLOAT, std::vector<float>(4, 0.3f)),
      target({2, 2}, ACL_FLOAT, std::vector<float>(4, 0.5f)),
      weight({2, 2}, ACL_FLOAT, std::vector<float>(4, 1.0f)), out({2, 2}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(self, target, &weight, Reduction::None, out), ACLNN_SUCCESS);
  for (float value : out.Read()) {
    EXPECT_EQ(std::round(value * 1e6f), 780324.0f);
    EXPECT_TRUE(CorrectlyRounded(value, ExactProbabilityLoss(0.3f, 0.5L, 1), ACL_FLOAT));
  }
}

// x at 0 and 1 (a clamped log, whose weight t or 1-t may be 0), x so small that an fp32 1-x is 1
// (the exact ln(1-x) is not 0), and x outside [0, 1] (NaN, as CANN; PyTorch raises).
TEST(BinaryCrossEntropyValues, BoundaryAndOutOfRangeInputs) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {0, 0, 1, 1, 1e-8f, 1e-30f, 1 - 0x1p-24f, 0.5f, -0.25f, 1.5f};
  const std::vector<float> t = {0, 1, 0, 1, 0, 0, 0, 0.5f, 0, 0};
  const std::vector<float> expected_nan = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  const Shape shape{static_cast<int64_t>(x.size())};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor self(shape, dtype, x), target(shape, dtype, t), out(shape, dtype, {});
    ASSERT_EQ(RunOp(self, target, nullptr, Reduction::None, out), ACLNN_SUCCESS);
    const std::vector<float> xs = self.Read(), got = out.Read();
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(CorrectlyRounded(got[i], ExactProbabilityLoss(xs[i], t[i], 1), dtype)) << i;
      EXPECT_EQ(std::isnan(got[i]), expected_nan[i] != 0) << i;
    }
  }
  DeviceTensor self({1}, ACL_FLOAT, {nan}), out({}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(self, self, nullptr, Reduction::Sum, out), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(out.Read()[0]));
}

TEST(BinaryCrossEntropyValues, EmptySelfAveragesToNaNAndSumsToZero) {
  DeviceTensor self({0, 5}, ACL_FLOAT16, {}), mean({}, ACL_FLOAT16, {7.0f}),
      sum({1}, ACL_FLOAT16, {7.0f});
  ASSERT_EQ(RunOp(self, self, nullptr, Reduction::Mean, mean), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(mean.Read()[0]));
  ASSERT_EQ(RunOp(self, self, nullptr, Reduction::Sum, sum), ACLNN_SUCCESS);
  EXPECT_EQ(sum.Read()[0], 0.0f);
}

TEST(BinaryCrossEntropyValues, NonContiguousTensorsAreReadInPlace) {
  // self is the transpose of a [10,5] storage; out a strided view of a [5,20] one.
  const std::vector<float> storage = Probabilities(50);
  DeviceTensor self({5, 10}, ACL_FLOAT, storage, {1, 5}, 0, {10, 5});
  DeviceTensor target({5, 10}, ACL_FLOAT, Probabilities(50, 0.4f));
  DeviceTensor out({5, 10}, ACL_FLOAT, std::vector<float>(100, -1.0f), {20, 2}, 1, {5, 20});
  ASSERT_EQ(RunOp(self, target, nullptr, Reduction::None, out), ACLNN_SUCCESS);
  const std::vector<float> t = target.Read(), got = out.Read();
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 10; ++col) {
      const long double exact = ExactProbabilityLoss(storage[col * 5 + row], t[row * 10 + col], 1);
      EXPECT_TRUE(CorrectlyRounded(got[row * 20 + 1 + 2 * col], exact, ACL_FLOAT));
      EXPECT_EQ(got[row * 20 + 2 * col], -1.0f);  // between the view's elements: untouched
    }
  }
}

// A repeatable executor follows new tensor addresses (the contract every op keeps).
TEST(BinaryCrossEntropyValues, ARepeatableExecutorFollowsNewAddresses) {
  DeviceTensor first({8}, ACL_FLOAT, Probabilities(8)),
      second({8}, ACL_FLOAT, Probabilities(8, .5f));
  DeviceTensor target({8}, ACL_FLOAT, Probabilities(8, 0.2f)), out({}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(
      aclnnBinaryCrossEntropyGetWorkspaceSize(first.get(), target.get(), nullptr, Reduction::Sum,
                                              out.get(), &workspace_size, &executor),
      ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  void* workspace = nullptr;
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  const std::vector<float> t = target.Read();
  for (const DeviceTensor* self : {&first, &second}) {
    ASSERT_EQ(aclSetInputTensorAddr(executor, 0, first.get(), self->device()), ACLNN_SUCCESS);
    ASSERT_EQ(aclnnBinaryCrossEntropy(workspace, workspace_size, executor, AclEnvironment::stream),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
    const std::vector<float> x = self->Read();
    long double total = 0;
    for (int i = 0; i < 8; ++i) total += ExactProbabilityLoss(x[i], t[i], 1);
    EXPECT_TRUE(CorrectlyRounded(out.Read()[0], total, ACL_FLOAT));
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
}

}  // namespace
}  // namespace openaclnn::testing
