// aclnnL1Loss's values: |x - t| and its mean and sum, each the exact value rounded once (against
// long double, exact for these inputs), for every dtype, mixed and integer inputs, special values,
// empty and broadcast shapes; the INT64 loss in two's-complement arithmetic, wrap included
// (against 128-bit integers).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "aclnnop/aclnn_l1_loss.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

int64_t Count(const Shape& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

std::vector<float> Values(int64_t count, float start, float step) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = std::fmod(start + step * i, 10.0f) - 5.0f;
  return values;
}

// Both phases and a sync; returns the first failing status.
aclnnStatus RunOp(const DeviceTensor& self, const DeviceTensor& target, int64_t reduction,
                  const DeviceTensor& out) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus status = aclnnL1LossGetWorkspaceSize(self.get(), target.get(), reduction,
                                                       out.get(), &workspace_size, &executor)) {
    return status;
  }
  void* workspace = nullptr;
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  const aclnnStatus status =
      aclnnL1Loss(workspace, workspace_size, executor, AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

long double ExactL1(float x, float t) {
  return std::fabs(static_cast<long double>(x) - static_cast<long double>(t));
}

// Element i of the broadcast of `shape` (right-aligned into `full`), by the full shape's index.
int64_t BroadcastIndex(const Shape& shape, const Shape& full, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (size_t d = full.size(); d-- > 0;) {
    const int64_t coordinate = flat % full[d];
    flat /= full[d];
    const size_t offset = full.size() - shape.size();
    if (d < offset) continue;
    const int64_t dim = shape[d - offset];
    if (dim != 1) index += coordinate * stride;
    stride *= dim;
  }
  return index;
}

struct ValueCase {
  aclDataType self, target, out;
  int64_t reduction;
  Shape self_shape, target_shape, full;
};

class L1LossValues : public ::testing::TestWithParam<ValueCase> {};

TEST_P(L1LossValues, AreTheExactLossRoundedOnce) {
  const ValueCase c = GetParam();
  DeviceTensor self(c.self_shape, c.self, Values(Count(c.self_shape), 0.137f, 0.7371f));
  DeviceTensor target(c.target_shape, c.target, Values(Count(c.target_shape), 3.3f, 0.2917f));
  DeviceTensor out(c.reduction == kNone ? c.full : Shape{}, c.out, {});
  ASSERT_EQ(RunOp(self, target, c.reduction, out), ACLNN_SUCCESS);
  const std::vector<float> x = self.Read(), t = target.Read(), got = out.Read();
  long double total = 0;
  for (int64_t i = 0; i < Count(c.full); ++i) {
    const long double exact = ExactL1(x[BroadcastIndex(c.self_shape, c.full, i)],
                                      t[BroadcastIndex(c.target_shape, c.full, i)]);
    total += exact;
    if (c.reduction == kNone) {
      ASSERT_TRUE(CorrectlyRounded(got[i], exact, c.out)) << "element " << i;
    }
  }
  if (c.reduction == kMean) total /= Count(c.full);
  if (c.reduction != kNone) {
    EXPECT_TRUE(CorrectlyRounded(got[0], total, c.out));
  }
}

std::vector<ValueCase> ValueCases() {
  std::vector<ValueCase> cases;
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (int64_t reduction : {kNone, kMean, kSum}) {
      cases.push_back({dtype, dtype, dtype, reduction, {7, 9}, {7, 9}, {7, 9}});
      cases.push_back({dtype, dtype, dtype, reduction, {3, 1, 5}, {4, 1}, {3, 4, 5}});
      cases.push_back({dtype, dtype, dtype, reduction, {9001}, {9001}, {9001}});  // 3 blocks
    }
  }
  // Mixed inputs (fp16 with bf16 computes in fp32) and results narrower than the inputs.
  cases.push_back({ACL_FLOAT16, ACL_BF16, ACL_FLOAT, kNone, {6, 7}, {7}, {6, 7}});
  cases.push_back({ACL_FLOAT16, ACL_BF16, ACL_FLOAT16, kMean, {6, 7}, {6, 1}, {6, 7}});
  cases.push_back({ACL_FLOAT, ACL_FLOAT16, ACL_BF16, kNone, {40}, {40}, {40}});
  cases.push_back({ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, kSum, {5000}, {1}, {5000}});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, L1LossValues, ::testing::ValuesIn(ValueCases()));

// CANN's sample: self 0..3 against 1 on [2,2], mean: (1 + 0 + 1 + 2) / 4.
TEST(L1LossValues, CannsSampleGivesOne) {
  DeviceTensor self({2, 2}, ACL_FLOAT, {0, 1, 2, 3}), target({2, 2}, ACL_FLOAT, {1, 1, 1, 1}),
      out({}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(self, target, kMean, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read()[0], 1.0f);
}

// fp32 inputs into an fp16 out: fl32(x - t) lands on an fp16 midpoint that x - t is below; the
// result is the exact value rounded once (CANN rounds twice and goes up).
TEST(L1LossValues, NarrowerOutIsRoundedOnceFromTheExactValue) {
  const float x = 1.0f + 3 * 0x1p-11f, t = 0x1p-100f;
  DeviceTensor self({1}, ACL_FLOAT, {x}), target({1}, ACL_FLOAT, {t}), out({1}, ACL_FLOAT16, {});
  ASSERT_EQ(RunOp(self, target, kNone, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read()[0], 1.0f + 0x1p-10f);
}

// Non-finite inputs take the formula's class; a zero difference is +0.
TEST(L1LossValues, SpecialValuesAndZeros) {
  const std::vector<float> x = {kInf, -kInf, kInf, kNaN, 1.0f, -0.0f, 0.0f, 3.0e38f};
  const std::vector<float> t = {1.0f, 2.0f, kInf, 0.0f, kNaN, 0.0f, -0.0f, -3.0e38f};
  const Shape shape{static_cast<int64_t>(x.size())};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor self(shape, dtype, {}), target(shape, dtype, {}), out(shape, dtype, {});
    UploadWithSpecials(self, dtype, x);
    UploadWithSpecials(target, dtype, t);
    ASSERT_EQ(RunOp(self, target, kNone, out), ACLNN_SUCCESS);
    const std::vector<float> got = out.Read();
    EXPECT_EQ(got[0], kInf);
    EXPECT_EQ(got[1], kInf);
    EXPECT_TRUE(std::isnan(got[2]));  // inf - inf
    EXPECT_TRUE(std::isnan(got[3]));
    EXPECT_TRUE(std::isnan(got[4]));
    EXPECT_EQ(got[5], 0.0f);
    EXPECT_FALSE(std::signbit(got[5]));
    EXPECT_FALSE(std::signbit(got[6]));
    EXPECT_EQ(got[7], kInf);  // the difference overflows every dtype
  }
  DeviceTensor self({3}, ACL_FLOAT, {1, kInf, 2}), target({3}, ACL_FLOAT, {0, 0, 0}),
      sum({}, ACL_FLOAT, {}), nan_self({2}, ACL_FLOAT, {kNaN, 1}), mean({}, ACL_FLOAT16, {});
  ASSERT_EQ(RunOp(self, target, kSum, sum), ACLNN_SUCCESS);
  EXPECT_EQ(sum.Read()[0], kInf);
  ASSERT_EQ(RunOp(nan_self, nan_self, kMean, mean), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(mean.Read()[0]));
}

// Integer inputs beside a floating partner are read rounded once to the promoted dtype.
TEST(L1LossValues, IntegerInputsAreRoundedToThePromotedDtype) {
  // int32 2049 is 2048 in fp16; int64 2^24 + 1 is 2^24 in fp32; 70000 overflows fp16.
  DeviceTensor ints({3}, ACL_INT32, {}), half({3}, ACL_FLOAT16, {0.5f, 0.25f, 0}),
      out({3}, ACL_FLOAT16, {});
  const int32_t int_values[] = {2049, -7, 70000};
  ASSERT_EQ(aclrtMemcpy(ints.device(), sizeof(int_values), int_values, sizeof(int_values),
                        ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  ASSERT_EQ(RunOp(half, ints, kNone, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read(), (std::vector<float>{2048.0f, 7.25f, kInf}));
  DeviceTensor longs({2}, ACL_INT64, {}), fp32({2}, ACL_FLOAT, {0, 0}), mean({}, ACL_FLOAT, {});
  UploadInt64(longs, {(int64_t{1} << 24) + 1, (int64_t{1} << 24) + 3});
  ASSERT_EQ(RunOp(longs, fp32, kMean, mean), ACLNN_SUCCESS);
  EXPECT_EQ(mean.Read()[0], 16777218.0f);  // (2^24 + (2^24 + 4)) / 2
  DeviceTensor flags({4}, ACL_BOOL, {1, 0, 1, 0}), targets({4}, ACL_BF16, {0.5f, 0.5f, 3, -3}),
      sum({}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(flags, targets, kSum, sum), ACLNN_SUCCESS);
  EXPECT_EQ(sum.Read()[0], 0.5f + 0.5f + 2 + 3);
}

// The INT64 loss: |x - t| in two's-complement arithmetic, as CANN's Sub and Abs and PyTorch:
// the difference wraps, |INT64_MIN| is INT64_MIN, and the sum wraps too.
__extension__ typedef __int128 Int128;
int64_t Wrapped(Int128 value) { return static_cast<int64_t>(static_cast<uint64_t>(value)); }

TEST(L1LossValues, Int64LossWrapsAsTwosComplement) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const std::vector<int64_t> x = {5, -3, kMax, kMin, kMin, 0, 1000000007, kMax};
  const std::vector<int64_t> t = {-4, 9, -1, 1, 0, kMin, -1000000007, kMax};
  const Shape shape{static_cast<int64_t>(x.size())};
  DeviceTensor self(shape, ACL_INT64, {}), target(shape, ACL_INT64, {}), none(shape, ACL_INT64, {}),
      sum({}, ACL_INT64, {}), float_out(shape, ACL_FLOAT, {});
  UploadInt64(self, x);
  UploadInt64(target, t);
  ASSERT_EQ(RunOp(self, target, kNone, none), ACLNN_SUCCESS);
  ASSERT_EQ(RunOp(self, target, kSum, sum), ACLNN_SUCCESS);
  ASSERT_EQ(RunOp(self, target, kNone, float_out), ACLNN_SUCCESS);
  const std::vector<int64_t> got = ReadInt64(none);
  const std::vector<float> rounded = float_out.Read();
  Int128 total = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t difference = Wrapped(static_cast<Int128>(x[i]) - t[i]);
    const int64_t expected =
        difference < 0 ? Wrapped(-static_cast<Int128>(difference)) : difference;
    EXPECT_EQ(got[i], expected) << i;
    EXPECT_EQ(rounded[i], static_cast<float>(expected)) << i;  // one rounding, to nearest
    total += expected;
  }
  EXPECT_EQ(got[2], kMin);  // INT64_MAX - (-1) wraps to INT64_MIN, whose magnitude is itself
  EXPECT_EQ(got[3], kMax);  // INT64_MIN - 1 wraps to INT64_MAX
  EXPECT_EQ(got[4], kMin);
  EXPECT_EQ(ReadInt64(sum)[0], Wrapped(total));
}

// int32 with int64 promotes to INT64: integer arithmetic, and a broadcast target.
TEST(L1LossValues, MixedIntegersComputeInInt64) {
  DeviceTensor self({2, 3}, ACL_INT32, {-2, 0, 7, 100, -100, 3}), target({3}, ACL_INT64, {}),
      out({2, 3}, ACL_INT64, {}), sum({}, ACL_FLOAT16, {});
  UploadInt64(target, {int64_t{1} << 40, 0, -5});
  ASSERT_EQ(RunOp(self, target, kNone, out), ACLNN_SUCCESS);
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(ReadInt64(out), (std::vector<int64_t>{big + 2, 0, 12, big - 100, 100, 8}));
  ASSERT_EQ(RunOp(self, target, kSum, sum), ACLNN_SUCCESS);
  EXPECT_EQ(sum.Read()[0], kInf);  // 2^41 + 22 overflows fp16
}

TEST(L1LossValues, EmptyBroadcastShapes) {
  DeviceTensor self({0, 3}, ACL_FLOAT, {}), target({1, 3}, ACL_FLOAT, {1, 2, 3}),
      mean({}, ACL_FLOAT, {7}), none({0, 3}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(self, target, kMean, mean), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(mean.Read()[0]));
  ASSERT_EQ(RunOp(self, target, kNone, none), ACLNN_SUCCESS);
  DeviceTensor longs({0}, ACL_INT64, {}), sum({}, ACL_INT64, {});
  UploadInt64(sum, {77});
  ASSERT_EQ(RunOp(longs, longs, kSum, sum), ACLNN_SUCCESS);
  EXPECT_EQ(ReadInt64(sum)[0], 0);
}

// A repeatable executor follows new tensor addresses.
TEST(L1LossValues, ARepeatableExecutorFollowsNewAddresses) {
  DeviceTensor first({8}, ACL_FLOAT, Values(8, 0.5f, 1.1f)),
      second({8}, ACL_FLOAT, Values(8, 4.5f, 0.3f)), target({8}, ACL_FLOAT, Values(8, 1, 0.7f)),
      out({}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnL1LossGetWorkspaceSize(first.get(), target.get(), kMean, out.get(),
                                        &workspace_size, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  void* workspace = nullptr;
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  const std::vector<float> t = target.Read();
  for (const DeviceTensor* self : {&first, &second}) {
    ASSERT_EQ(aclSetInputTensorAddr(executor, 0, first.get(), self->device()), ACLNN_SUCCESS);
    ASSERT_EQ(aclnnL1Loss(workspace, workspace_size, executor, AclEnvironment::stream),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
    const std::vector<float> x = self->Read();
    long double total = 0;
    for (int i = 0; i < 8; ++i) total += ExactL1(x[i], t[i]);
    EXPECT_TRUE(CorrectlyRounded(out.Read()[0], total / 8, ACL_FLOAT));
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
}

}  // namespace
}  // namespace openaclnn::testing
