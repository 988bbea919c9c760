// aclnnBinaryCrossEntropyWithLogits through its C API: CANN's UT cases under OpenACLNN's
// contract (docs/contract/checks-and-codes.md §2), every check's status code and message,
// phase-2 misuse, and values against fp64.
#include <cmath>
#include <cstring>
#include <limits>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;

std::vector<float> Ramp(int64_t count, float start, float step) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = start + step * static_cast<float>(i % 37);
  return values;
}

int64_t Count(const Shape& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

// Runs phase 1 only.
aclnnStatus Plan(const DeviceTensor& self, const DeviceTensor& target, const DeviceTensor* weight,
                 const DeviceTensor* pos_weight, int64_t reduction, const DeviceTensor& out,
                 uint64_t* workspace_size, aclOpExecutor** executor) {
  return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
      self.get(), target.get(), weight ? weight->get() : nullptr,
      pos_weight ? pos_weight->get() : nullptr, reduction, out.get(), workspace_size, executor);
}

// Both phases and a sync; returns the first failing status.
aclnnStatus RunOp(const DeviceTensor& self, const DeviceTensor& target, const DeviceTensor* weight,
                  const DeviceTensor* pos_weight, int64_t reduction, const DeviceTensor& out) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus status =
          Plan(self, target, weight, pos_weight, reduction, out, &workspace_size, &executor)) {
    return status;
  }
  void* workspace = nullptr;
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclnnStatus status = aclnnBinaryCrossEntropyWithLogits(workspace, workspace_size, executor,
                                                         AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

aclnnStatus PlanStatus(const DeviceTensor& self, const DeviceTensor& target,
                       const DeviceTensor* weight, const DeviceTensor* pos_weight,
                       int64_t reduction, const DeviceTensor& out) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status =
      Plan(self, target, weight, pos_weight, reduction, out, &workspace_size, &executor);
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  return status;
}

// --- CANN's op_api UT list (docs/contract/checks-and-codes.md §6) ---

TEST(BceForwardChecks, DoubleInputsAreRejected) {
  const Shape shape{5, 5};
  DeviceTensor self(shape, ACL_DOUBLE, Ramp(25, -1, 0.05f)), target(shape, ACL_DOUBLE, {}),
      weight(shape, ACL_DOUBLE, {}), pos(shape, ACL_DOUBLE, {}), out(shape, ACL_DOUBLE, {});
  EXPECT_EQ(PlanStatus(self, target, &weight, &pos, 0, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("DT_DOUBLE"));
}

TEST(BceForwardChecks, OutDtypeMustEqualTargetDtype) {
  const Shape shape{5, 5};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}),
      out(shape, ACL_FLOAT16, {});
  EXPECT_EQ(PlanStatus(self, target, nullptr, nullptr, 0, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("AclNN_Parameter_Error(EZ1001)"));
}

TEST(BceForwardChecks, TargetShapeMustEqualSelfShape) {
  DeviceTensor self({5, 5}, ACL_FLOAT, {}), target({5, 1, 5}, ACL_FLOAT, {}),
      out({5, 5}, ACL_FLOAT, {});
  EXPECT_EQ(PlanStatus(self, target, nullptr, nullptr, 0, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target shape [5,1,5] must equal self shape [5,5]"));
}

TEST(BceForwardChecks, PosWeightThatCannotBroadcastIsRejected) {
  const Shape shape{5, 2, 5};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}),
      weight(shape, ACL_FLOAT, {}), pos({5, 3, 5}, ACL_FLOAT, {}), out(shape, ACL_FLOAT, {});
  EXPECT_EQ(PlanStatus(self, target, &weight, &pos, 0, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("posWeight shape [5,3,5] cannot broadcast into self shape [5,2,5]"));
}

TEST(BceForwardChecks, EmptyInputWithNoReductionLeavesOutUntouched) {
  const Shape shape{5, 0, 3};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}), out(shape, ACL_FLOAT, {});
  uint64_t workspace_size = 1;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(Plan(self, target, nullptr, nullptr, 0, out, &workspace_size, &executor),
            ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogits(nullptr, 0, executor, AclEnvironment::stream),
            ACLNN_SUCCESS);
}

TEST(BceForwardChecks, EmptyInputSumsToZeroAndAveragesToNaN) {
  const Shape shape{5, 0, 3};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {});
  DeviceTensor sum({1}, ACL_FLOAT, {7.0f}), mean({}, ACL_FLOAT16, {7.0f});
  DeviceTensor mean_target(shape, ACL_FLOAT16, {});
  ASSERT_EQ(RunOp(self, target, nullptr, nullptr, 2, sum), ACLNN_SUCCESS);
  EXPECT_EQ(sum.Read()[0], 0.0f);
  ASSERT_EQ(RunOp(self, mean_target, nullptr, nullptr, 1, mean), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(mean.Read()[0]));
}

// IEEE fixes neither the sign nor the payload of a NaN an operation returns (x86 makes -inf + inf
// negative and passes an input NaN's sign on), so every NaN result is the one positive quiet NaN
// (docs/contract/numerics.md §4), whatever route made it and whichever code path (SIMD vector,
// remainder, reduction) computed it.
TEST(BceForwardValues, EveryNaNResultIsTheDefaultQuietNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t count = 53;  // whole SIMD vectors and a remainder
  std::vector<float> x(count, 0.5f), t(count, 0.25f), w(count, 1.0f);
  for (int64_t i = 0; i < count; i += 4) x[i] = -inf;  // inf - inf
  for (int64_t i = 1; i < count; i += 4) x[i] = -nan;  // a negative NaN passed on
  for (int64_t i = 2; i < count; i += 4) w[i] = -nan;
  const struct {
    aclDataType dtype;
    uint32_t nan_bits;
  } cases[] = {{ACL_FLOAT, 0x7fc00000u}, {ACL_FLOAT16, 0x7e00u}, {ACL_BF16, 0x7fc0u}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dtype);
    const size_t size = aclDataTypeSize(c.dtype);
    DeviceTensor self({count}, c.dtype, {}), target({count}, c.dtype, t);
    DeviceTensor weight({count}, c.dtype, {});
    UploadWithSpecials(self, c.dtype, x);
    UploadWithSpecials(weight, c.dtype, w);
    DeviceTensor out({count}, c.dtype, {}), sum({}, c.dtype, {});
    ASSERT_EQ(RunOp(self, target, &weight, nullptr, 0, out), ACLNN_SUCCESS);
    ASSERT_EQ(RunOp(self, target, &weight, nullptr, 2, sum), ACLNN_SUCCESS);
    const std::vector<unsigned char> bytes = out.Bytes(), total = sum.Bytes();
    for (int64_t i = 0; i < count; ++i) {
      uint32_t bits = 0;
      std::memcpy(&bits, bytes.data() + i * size, size);
      if (i % 4 != 3) {
        EXPECT_EQ(bits, c.nan_bits) << "element " << i;
      }
    }
    uint32_t total_bits = 0;
    std::memcpy(&total_bits, total.data(), size);
    EXPECT_EQ(total_bits, c.nan_bits) << "sum";
  }
}

TEST(BceForwardChecks, RankAboveEightIsRejected) {
  const Shape shape{5, 1, 3, 2, 4, 6, 3, 5, 9};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}), out({1}, ACL_FLOAT, {});
  EXPECT_EQ(PlanStatus(self, target, nullptr, nullptr, 2, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("rank 9"));
}

TEST(BceForwardChecks, NullArgumentsAreRejectedByName) {
  const Shape shape{5, 2, 5};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}), out(shape, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                nullptr, target.get(), nullptr, nullptr, 2, out.get(), &workspace_size, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("Expected a proper Tensor but got null for argument self."));
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                self.get(), nullptr, nullptr, nullptr, 2, out.get(), &workspace_size, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("argument target"));
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                self.get(), target.get(), nullptr, nullptr, 2, nullptr, &workspace_size, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("argument out"));
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                self.get(), target.get(), nullptr, nullptr, 0, out.get(), nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("workspaceSize"));
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                self.get(), target.get(), nullptr, nullptr, 0, out.get(), &workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor"));
}

TEST(BceForwardChecks, ReductionOutsideZeroToTwoIsRejected) {
  const Shape shape{5, 5};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}), out(shape, ACL_FLOAT, {});
  for (int64_t reduction : {3, -1, 100}) {
    EXPECT_EQ(PlanStatus(self, target, nullptr, nullptr, reduction, out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("Reduction only support [0, 1, 2]"));
  }
}

// --- OpenACLNN's additions (docs/contract/differences-from-cann.md D1-D6) ---

TEST(BceForwardChecks, WeightDtypesAreChecked) {
  const Shape shape{4};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}), out(shape, ACL_FLOAT, {}),
      weight(shape, ACL_DOUBLE, {});
  EXPECT_EQ(PlanStatus(self, target, &weight, nullptr, 0, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("weight has dtype DT_DOUBLE"));
  EXPECT_EQ(PlanStatus(self, target, nullptr, &weight, 0, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("posWeight has dtype DT_DOUBLE"));
}

TEST(BceForwardChecks, WeightMustBroadcastIntoSelfNotEnlargeIt) {
  DeviceTensor self({5, 5}, ACL_FLOAT, {}), target({5, 5}, ACL_FLOAT, {}),
      out({5, 5}, ACL_FLOAT, {}), enlarging({3, 5, 5}, ACL_FLOAT, {}),
      per_column({5}, ACL_FLOAT, {}), scalar({}, ACL_FLOAT, {});
  EXPECT_EQ(PlanStatus(self, target, &enlarging, nullptr, 0, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("weight shape [3,5,5] cannot broadcast"));
  EXPECT_EQ(PlanStatus(self, target, &per_column, &scalar, 0, out), ACLNN_SUCCESS);
}

TEST(BceForwardChecks, OutShapeIsCheckedInPhaseOne) {
  DeviceTensor self({5, 5}, ACL_FLOAT, {}), target({5, 5}, ACL_FLOAT, {}),
      flat({25}, ACL_FLOAT, {}), two({2}, ACL_FLOAT, {}), one_by_one({1, 1}, ACL_FLOAT, {}),
      scalar({}, ACL_FLOAT, {});
  EXPECT_EQ(PlanStatus(self, target, nullptr, nullptr, 0, flat), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out shape [25] must equal self shape [5,5]"));
  EXPECT_EQ(PlanStatus(self, target, nullptr, nullptr, 1, two), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("exactly one element"));
  EXPECT_EQ(PlanStatus(self, target, nullptr, nullptr, 1, one_by_one), ACLNN_SUCCESS);
  EXPECT_EQ(PlanStatus(self, target, nullptr, nullptr, 2, scalar), ACLNN_SUCCESS);
}

TEST(BceForwardChecks, ViewsOutsideTheirStorageAreRejected) {
  // A [4,4] view with row stride 5 needs 19 elements; the storage holds 16.
  DeviceTensor self({4, 4}, ACL_FLOAT, {}, {5, 1}, 0, {16}), target({4, 4}, ACL_FLOAT, {}),
      out({4, 4}, ACL_FLOAT, {});
  EXPECT_EQ(PlanStatus(self, target, nullptr, nullptr, 0, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the view of self"));
  DeviceTensor negative({4}, ACL_FLOAT, {}, {-1}, 3, {4});
  DeviceTensor target4({4}, ACL_FLOAT, {}), out4({4}, ACL_FLOAT, {});
  EXPECT_EQ(PlanStatus(negative, target4, nullptr, nullptr, 0, out4), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("negative"));
}

TEST(BceForwardChecks, DestroyedTensorIsReportedNotRead) {
  DeviceTensor target({3}, ACL_FLOAT, {}), out({3}, ACL_FLOAT, {});
  const int64_t shape[] = {3};
  aclTensor* dead =
      aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, target.device());
  ASSERT_EQ(aclDestroyTensor(dead), ACLNN_SUCCESS);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                dead, target.get(), nullptr, nullptr, 0, out.get(), &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("not a live aclTensor"));
}

// --- Phase 2 misuse ---

class BceLaunch : public ::testing::Test {
 protected:
  DeviceTensor self_{{64}, ACL_FLOAT, Ramp(64, -2, 0.1f)};
  DeviceTensor target_{{64}, ACL_FLOAT, Ramp(64, 0, 0.02f)};
  DeviceTensor out_{{1}, ACL_FLOAT, {}};
  uint64_t workspace_size_ = 0;
  aclOpExecutor* executor_ = nullptr;
  void SetUp() override {
    ASSERT_EQ(Plan(self_, target_, nullptr, nullptr, 2, out_, &workspace_size_, &executor_),
              ACLNN_SUCCESS);
    ASSERT_GT(workspace_size_, 0u);
  }
};

TEST_F(BceLaunch, NullExecutorIsRejected) {
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogits(nullptr, 0, nullptr, AclEnvironment::stream),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor is nullptr."));
  aclDestroyAclOpExecutor(executor_);
}

TEST_F(BceLaunch, MissingOrSmallWorkspaceIsRejected) {
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogits(nullptr, workspace_size_, executor_,
                                              AclEnvironment::stream),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("workspace is nullptr."));
  ASSERT_EQ(Plan(self_, target_, nullptr, nullptr, 2, out_, &workspace_size_, &executor_),
            ACLNN_SUCCESS);
  void* workspace = nullptr;
  aclrtMalloc(&workspace, workspace_size_, ACL_MEM_MALLOC_HUGE_FIRST);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogits(workspace, workspace_size_ - 1, executor_,
                                              AclEnvironment::stream),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("smaller than"));
  aclrtFree(workspace);
}

TEST_F(BceLaunch, AOneShotExecutorRunsOnce) {
  void* workspace = nullptr;
  aclrtMalloc(&workspace, workspace_size_, ACL_MEM_MALLOC_HUGE_FIRST);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogits(workspace, workspace_size_, executor_,
                                              AclEnvironment::stream),
            ACLNN_SUCCESS);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogits(workspace, workspace_size_, executor_,
                                              AclEnvironment::stream),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("not live"));
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  aclrtFree(workspace);
}

TEST_F(BceLaunch, ARepeatableExecutorFollowsNewAddresses) {
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor_), ACLNN_SUCCESS);
  void* workspace = nullptr;
  aclrtMalloc(&workspace, workspace_size_, ACL_MEM_MALLOC_HUGE_FIRST);
  DeviceTensor other_self({64}, ACL_FLOAT, std::vector<float>(64, 0.0f));
  double expected[2] = {0, 64 * ExactLoss(0, 0, 1, 1)};
  const std::vector<float> x = self_.Read(), t = target_.Read();
  for (int i = 0; i < 64; ++i) expected[0] += ExactLoss(x[i], t[i], 1, 1);
  expected[1] = 0;
  for (int i = 0; i < 64; ++i) expected[1] += ExactLoss(0, t[i], 1, 1);
  for (int run = 0; run < 2; ++run) {
    if (run == 1) {
      ASSERT_EQ(aclSetInputTensorAddr(executor_, 0, self_.get(), other_self.device()),
                ACLNN_SUCCESS);
    }
    ASSERT_EQ(aclnnBinaryCrossEntropyWithLogits(workspace, workspace_size_, executor_,
                                                AclEnvironment::stream),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
    EXPECT_NEAR(out_.Read()[0], expected[run], 1e-5 * std::fabs(expected[run]));
  }
  EXPECT_EQ(aclSetInputTensorAddr(executor_, 7, self_.get(), nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor_), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor_), ACLNN_ERR_INNER);
  aclrtFree(workspace);
}

// --- Values against fp64 ---

struct ValueCase {
  Shape shape;
  aclDataType self_type, target_type;
  int64_t reduction;
  bool weighted;
};

class BceForwardValues : public ::testing::TestWithParam<ValueCase> {};

TEST_P(BceForwardValues, MatchTheExactLoss) {
  const ValueCase c = GetParam();
  const int64_t count = Count(c.shape);
  DeviceTensor self(c.shape, c.self_type, Ramp(count, -3, 0.17f));
  DeviceTensor target(c.shape, c.target_type, Ramp(count, 0, 0.027f));
  DeviceTensor weight(c.shape, ACL_FLOAT, Ramp(count, 0.1f, 0.05f));
  DeviceTensor pos_weight({c.shape.back()}, ACL_FLOAT, Ramp(c.shape.back(), 0.5f, 0.25f));
  const Shape out_shape = c.reduction == 0 ? c.shape : Shape{1};
  DeviceTensor out(out_shape, c.target_type, {});
  ASSERT_EQ(RunOp(self, target, c.weighted ? &weight : nullptr, c.weighted ? &pos_weight : nullptr,
                  c.reduction, out),
            ACLNN_SUCCESS);
  const std::vector<float> x = self.Read(), t = target.Read(), w = weight.Read(),
                           p = pos_weight.Read(), got = out.Read();
  double total = 0;
  const double tolerance = c.target_type == ACL_FLOAT     ? 4 * 0x1p-24
                           : c.target_type == ACL_FLOAT16 ? 0x1p-11
                                                          : 0x1p-8;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t column = i % c.shape.back();
    const double exact =
        ExactLoss(x[i], t[i], c.weighted ? w[i] : 1.0, c.weighted ? p[column] : 1.0);
    total += exact;
    if (c.reduction == 0) {
      EXPECT_NEAR(got[i], exact, tolerance * std::fabs(exact)) << i;
    }
  }
  if (c.reduction == 1) total /= static_cast<double>(count);
  if (c.reduction != 0) {
    EXPECT_NEAR(got[0], total, tolerance * std::fabs(total));
  }
}

std::string ValueCaseName(const ::testing::TestParamInfo<ValueCase>& param) {
  static const char* const kReductions[] = {"None", "Mean", "Sum"};
  return std::string(kReductions[param.param.reduction]) + "Case" + std::to_string(param.index);
}

INSTANTIATE_TEST_SUITE_P(Cases, BceForwardValues,
                         ::testing::Values(ValueCase{{5, 5}, ACL_FLOAT, ACL_FLOAT, 1, true},
                                           ValueCase{{5, 5}, ACL_FLOAT, ACL_FLOAT, 2, true},
                                           ValueCase{{7, 3, 9}, ACL_FLOAT, ACL_FLOAT, 0, false},
                                           ValueCase{{7, 3, 9}, ACL_FLOAT16, ACL_FLOAT, 0, true},
                                           ValueCase{{7, 3, 9}, ACL_FLOAT, ACL_FLOAT16, 0, true},
                                           ValueCase{{2, 3, 4, 5}, ACL_BF16, ACL_BF16, 0, true},
                                           ValueCase{{9000}, ACL_BF16, ACL_FLOAT16, 1, true},
                                           ValueCase{{3, 5000}, ACL_FLOAT, ACL_FLOAT, 2, false}),
                         ValueCaseName);

TEST(BceForwardValues, TransposedSelfMatchesTheExactLoss) {
  // self is the transpose of a [3,4] storage: a [4,3] view with strides {1,4}.
  std::vector<float> storage = Ramp(12, -2, 0.31f);
  DeviceTensor self({4, 3}, ACL_FLOAT, storage, {1, 4}, 0, {3, 4});
  DeviceTensor target({4, 3}, ACL_FLOAT, Ramp(12, 0, 0.08f)), out({}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(self, target, nullptr, nullptr, 1, out), ACLNN_SUCCESS);
  const std::vector<float> t = target.Read();
  double mean = 0;
  for (int row = 0; row < 4; ++row) {
    for (int col = 0; col < 3; ++col)
      mean += ExactLoss(storage[col * 4 + row], t[row * 3 + col], 1, 1);
  }
  mean /= 12;
  EXPECT_NEAR(out.Read()[0], mean, 4 * 0x1p-24 * mean);
}

}  // namespace
}  // namespace openaclnn::testing
