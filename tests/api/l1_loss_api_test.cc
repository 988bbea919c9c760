// aclnnL1Loss through its C API: CANN's UT cases by their intent, OpenACLNN's decisions
// (docs/contract/checks-and-codes.md §12), every check's status code, message and order, and
// values against a long-double reference of |x - t| (exact for these inputs), rounded once.
#include "aclnnop/aclnn_l1_loss.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

// Values in [-5, 5] as CANN's ATK cases draw them, with a few exact ties between x and t.
std::vector<float> Values(int64_t count, float start, float step = 0.737f) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = std::fmod(start + step * i, 10.0f) - 5.0f;
  return values;
}

using Api = SelfTargetLossApi<aclnnL1LossGetWorkspaceSize, aclnnL1Loss>;

// |x - t| in long double: exact for fp32 inputs less than 2^40 apart in magnitude.
long double ExactL1(float x, float t) {
  return std::fabs(static_cast<long double>(x) - static_cast<long double>(t));
}

// --- CANN's UT cases (19 TEST_F, 22 calls), by their intent ---

// aclnnL1Loss_01: self [1,2,3,2] and target [2,2,1,2] broadcast to out [2,2,3,2].
TEST(L1LossCann, InputsBroadcastIntoOut) {
  DeviceTensor self({1, 2, 3, 2}, ACL_FLOAT, Values(12, 0.1f)),
      target({2, 2, 1, 2}, ACL_FLOAT, Values(8, 2.3f)), out({2, 2, 3, 2}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self, target, kNone, out), ACLNN_SUCCESS);
  const std::vector<float> x = self.Read(), t = target.Read(), got = out.Read();
  for (int64_t a = 0; a < 2; ++a) {
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t c = 0; c < 3; ++c) {
        for (int64_t d = 0; d < 2; ++d) {
          const long double exact = ExactL1(x[(b * 3 + c) * 2 + d], t[(a * 2 + b) * 2 + d]);
          EXPECT_TRUE(CorrectlyRounded(got[((a * 2 + b) * 3 + c) * 2 + d], exact, ACL_FLOAT));
        }
      }
    }
  }
}

// aclnnL1Loss_02, _11 and ascend910B2_lp_loss_bf16_none: fp16 and fp32 means, bf16 on an A2.
TEST(L1LossCann, EachSupportedDtypeIsAccepted) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor self({2, 3, 2}, dtype, Values(12, 0.3f)), target({2, 3, 2}, dtype, {}),
        mean({}, dtype, {}), none({2, 3, 2}, dtype, {});
    EXPECT_EQ(Api::Plan(self, target, kMean, mean), ACLNN_SUCCESS);
    EXPECT_EQ(Api::Plan(self, target, kNone, none), ACLNN_SUCCESS);
  }
}

// aclnnL1Loss_05 to _07: empty inputs; the sum of fp32 and fp16 into an fp16 out.
TEST(L1LossCann, EmptyInputsFillOut) {
  const Shape empty{1, 0, 1, 2};
  DeviceTensor self(empty, ACL_FLOAT, {}), half(empty, ACL_FLOAT16, {}), none(empty, ACL_FLOAT, {}),
      mean({}, ACL_FLOAT, {7.0f}), sum({}, ACL_FLOAT16, {7.0f});
  uint64_t workspace_size = 1;
  EXPECT_EQ(Api::Plan(self.get(), self.get(), kNone, none.get(), &workspace_size), ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  ASSERT_EQ(Api::Run(self, self, kMean, mean), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(mean.Read()[0]));
  ASSERT_EQ(Api::Run(self, half, kSum, sum), ACLNN_SUCCESS);
  EXPECT_EQ(sum.Read()[0], 0.0f);
}

// aclnnL1Loss_12 and _13: transposed inputs and out, read and written in place.
TEST(L1LossCann, NonContiguousInputsAndOutAreUsedInPlace) {
  const std::vector<float> xs = Values(20, 0.2f), ts = Values(20, 1.7f, 0.311f);
  DeviceTensor self({5, 4}, ACL_FLOAT, xs, {1, 5}, 0, {4, 5}),
      target({5, 4}, ACL_FLOAT, ts, {1, 5}, 0, {4, 5}),
      out({5, 4}, ACL_FLOAT, std::vector<float>(20, -1.0f), {1, 5}, 0, {4, 5}),
      contiguous_out({5, 4}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self, target, kNone, out), ACLNN_SUCCESS);
  ASSERT_EQ(Api::Run(self, target, kNone, contiguous_out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read(), flat = contiguous_out.Read();
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 4; ++col) {
      const long double exact = ExactL1(xs[col * 5 + row], ts[col * 5 + row]);
      EXPECT_TRUE(CorrectlyRounded(got[col * 5 + row], exact, ACL_FLOAT));
      EXPECT_EQ(flat[row * 4 + col], got[col * 5 + row]);
    }
  }
}

// aclnnL1Loss_14: reduction 3 (and every value outside 0..2).
TEST(L1LossCann, ReductionOutsideZeroToTwoIs161002) {
  DeviceTensor self({8}, ACL_FLOAT, {}), out({8}, ACL_FLOAT, {});
  for (int64_t reduction : {int64_t{3}, int64_t{-1}, std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(Api::Plan(self, self, reduction, out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("aclnnL1Loss: reduction is"));
  }
}

// aclnnL1Loss_15: a null self, target or out.
TEST(L1LossCann, NullTensorsAre161001InParameterOrder) {
  DeviceTensor tensor({10, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(nullptr, tensor.get(), kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(
      ErrorMentions("aclnnL1Loss: Expected a proper Tensor but got null for argument self."));
  EXPECT_EQ(Api::Plan(tensor.get(), nullptr, kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument target."));
  EXPECT_EQ(Api::Plan(tensor.get(), tensor.get(), kNone, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument out."));
  EXPECT_EQ(Api::Plan(nullptr, nullptr, 7, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("argument self."));
}

// aclnnL1Loss_16: [123,11,2] and [123,8,2] do not broadcast.
TEST(L1LossCann, ShapesThatDoNotBroadcastAre161002) {
  DeviceTensor self({123, 11, 2}, ACL_FLOAT, {}), target({123, 8, 2}, ACL_FLOAT, {}),
      out({123, 11, 2}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self shape [123,11,2] and target shape [123,8,2] cannot broadcast"));
}

// aclnnL1Loss_17: a BOOL out (a float cannot be cast to it), refused before its shape.
TEST(L1LossCann, BoolOutIs161002) {
  DeviceTensor self({6, 2, 1, 2}, ACL_FLOAT, {}), out({6, 2, 1, 2}, ACL_BOOL, {});
  EXPECT_EQ(Api::Plan(self, self, kMean, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the result of dtype DT_FLOAT cannot be cast to out dtype DT_BOOL"));
}

// aclnnL1Loss_18: int32 and int16 with mean (a mean of integers).
TEST(L1LossCann, MeanOfIntegersIs161002) {
  DeviceTensor self({6, 2, 1, 2}, ACL_INT32, {}), target({6, 2, 1, 2}, ACL_INT16, {}),
      out({}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kMean, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("with reduction mean, self or target must be floating"));
}

// aclnnL1Loss_20: an int32 self with an fp32 target under reduction none.
TEST(L1LossCann, IntegerSelfWithFloatingTargetUnderNoneIs161002) {
  DeviceTensor self({2, 2}, ACL_INT32, {}), target({2, 2}, ACL_FLOAT, {}), out({}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("with reduction none, self of dtype DT_INT32 (not floating)"));
}

// aclnnL1Loss_21: fp32 self, int32 target: valid dtypes, but out [] under none.
TEST(L1LossCann, FloatingSelfWithIntegerTargetPassesTheDtypes) {
  DeviceTensor self({2, 2}, ACL_FLOAT, {}), target({2, 2}, ACL_INT32, {}),
      scalar({}, ACL_FLOAT, {}), out({2, 2}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kNone, scalar), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out shape [] must be the broadcast shape of self and target, [2,2]."));
  EXPECT_EQ(Api::Plan(self, target, kNone, out), ACLNN_SUCCESS);
}

// aclnnL1Loss_22 and _23: out of the wrong shape, for none and for mean ([2], not 0-D).
TEST(L1LossCann, OutOfTheWrongShapeIs161002) {
  DeviceTensor self({123, 11, 2}, ACL_FLOAT, {}), none({123, 8, 2}, ACL_FLOAT, {}),
      two({2}, ACL_FLOAT, {}), one({1}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, self, kNone, none), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out shape [123,8,2] must be the broadcast shape"));
  EXPECT_EQ(Api::Plan(self, self, kMean, two), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("with reduction mean or sum, out must be 0-D (shape []), but its "
                    "shape is [2]."));
  EXPECT_EQ(Api::Plan(self, self, kSum, one), ACLNN_ERR_PARAM_INVALID);  // exactly 0-D, as CANN
}

// aclnnL1Loss_24: rank 9 self or target.
TEST(L1LossCann, RankNineIs161002) {
  DeviceTensor nine({2, 3, 4, 5, 6, 7, 8, 9, 10}, ACL_FLOAT, {}),
      four({7, 8, 9, 10}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(nine, four, kNone, four), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT [2,3,4,5,6,7,8,9,10]) has rank 9; at most 8"));
  EXPECT_EQ(Api::Plan(four, nine, kNone, four), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target (DT_FLOAT [2,3,4,5,6,7,8,9,10]) has rank 9"));
}

// --- Order, dtypes per SoC, and OpenACLNN's decisions (differences-from-cann.md) ---

TEST(L1LossChecks, OutputPointersComeFirst) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnL1LossGetWorkspaceSize(nullptr, nullptr, 9, nullptr, nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnL1Loss: workspaceSize is nullptr."));
  EXPECT_EQ(aclnnL1LossGetWorkspaceSize(nullptr, nullptr, 9, nullptr, &workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnL1Loss: executor is nullptr."));
}

// CANN checks reduction before dtypes, dtypes before shapes.
TEST(L1LossChecks, ReductionThenDtypesThenShapes) {
  DeviceTensor doubles({3}, ACL_DOUBLE, {}), wide({4}, ACL_FLOAT, {}), self({3}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(doubles, wide, 5, wide), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("reduction is 5"));
  EXPECT_EQ(Api::Plan(doubles, wide, kNone, wide), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the promoted dtype DT_DOUBLE of self and target is not supported"));
  EXPECT_EQ(Api::Plan(self, wide, kNone, wide), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("cannot broadcast"));
}

// Only the promoted dtype of self and target must be listed (CANN's rule, kept: D12).
TEST(L1LossChecks, IntegerInputsAreValidWhereTheirPromotionIsListed) {
  const Shape shape{4};
  const struct {
    aclDataType self, target;
    int64_t reduction;
    aclDataType out;
    aclnnStatus status;
    const char* message;
  } cases[] = {
      {ACL_FLOAT16, ACL_INT32, kNone, ACL_FLOAT16, ACLNN_SUCCESS, ""},
      {ACL_INT32, ACL_FLOAT16, kSum, ACL_FLOAT16, ACLNN_SUCCESS, ""},
      {ACL_INT8, ACL_BF16, kMean, ACL_FLOAT, ACLNN_SUCCESS, ""},
      {ACL_UINT8, ACL_FLOAT, kMean, ACL_FLOAT, ACLNN_SUCCESS, ""},
      {ACL_BOOL, ACL_FLOAT, kSum, ACL_FLOAT, ACLNN_SUCCESS, ""},
      {ACL_INT64, ACL_FLOAT, kMean, ACL_FLOAT, ACLNN_SUCCESS, ""},  // the ATK's mixed cases
      {ACL_INT32, ACL_INT64, kNone, ACL_INT64, ACLNN_SUCCESS, ""},
      {ACL_BOOL, ACL_INT64, kSum, ACL_INT64, ACLNN_SUCCESS, ""},
      {ACL_INT16, ACL_INT64, kSum, ACL_FLOAT, ACLNN_SUCCESS, ""},
      {ACL_INT32, ACL_INT32, kNone, ACL_INT32, ACLNN_ERR_PARAM_INVALID,
       "the promoted dtype DT_INT32 of self and target is not supported"},
      {ACL_INT8, ACL_UINT8, kSum, ACL_INT64, ACLNN_ERR_PARAM_INVALID, "promoted dtype DT_INT16"},
      {ACL_BOOL, ACL_BOOL, kSum, ACL_INT64, ACLNN_ERR_PARAM_INVALID, "promoted dtype DT_BOOL"},
      {ACL_UINT16, ACL_FLOAT, kSum, ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
       "self and target dtypes DT_UINT16 and DT_FLOAT cannot be promoted"},
      {ACL_COMPLEX64, ACL_FLOAT, kSum, ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, "DT_COMPLEX64"},
      {ACL_INT64, ACL_INT64, kMean, ACL_INT64, ACLNN_ERR_PARAM_INVALID,
       "with reduction mean, self or target must be floating"},
      {ACL_BOOL, ACL_FLOAT16, kNone, ACL_FLOAT16, ACLNN_ERR_PARAM_INVALID,
       "self of dtype DT_BOOL (not floating)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << c.self << " " << c.target << " reduction " << c.reduction << " out " << c.out);
    DeviceTensor self(shape, c.self, {}), target(shape, c.target, {}),
        out(c.reduction == kNone ? shape : Shape{}, c.out, {});
    EXPECT_EQ(Api::Plan(self, target, c.reduction, out), c.status);
    if (c.status != ACLNN_SUCCESS) {
      EXPECT_TRUE(ErrorMentions(c.message));
    }
  }
}

// D12: out must be in the op's SoC list, INT64 only where the promoted dtype is INT64 (CANN
// accepts any dtype the promoted one casts to: DOUBLE, complex, INT32, ...).
TEST(L1LossChecks, OutDtypeIsTheListsPlusInt64ForAnInt64Promotion) {
  const Shape shape{3};
  DeviceTensor fp32(shape, ACL_FLOAT, {}), int64(shape, ACL_INT64, {});
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    DeviceTensor out(shape, dtype, {});
    EXPECT_EQ(Api::Plan(fp32, fp32, kNone, out), ACLNN_SUCCESS) << dtype;
    EXPECT_EQ(Api::Plan(int64, int64, kNone, out), ACLNN_SUCCESS) << dtype;
  }
  DeviceTensor int64_out(shape, ACL_INT64, {}), int32_out(shape, ACL_INT32, {}),
      double_out(shape, ACL_DOUBLE, {}), complex_out(shape, ACL_COMPLEX64, {});
  EXPECT_EQ(Api::Plan(int64, int64, kNone, int64_out), ACLNN_SUCCESS);
  EXPECT_EQ(Api::Plan(fp32, fp32, kNone, int64_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("cannot be cast to out dtype DT_INT64"));
  for (const DeviceTensor* out : {&double_out, &complex_out}) {
    EXPECT_EQ(Api::Plan(fp32, fp32, kNone, *out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("out has dtype"));
  }
  EXPECT_EQ(Api::Plan(int64, int64, kNone, int32_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out has dtype DT_INT32"));
  EXPECT_EQ(Api::Plan(int64, int64, kNone, double_out), ACLNN_ERR_PARAM_INVALID);
}

// The SoC profile: bf16 exists on the A2/A3/950 families only, INT64 everywhere.
TEST(L1LossChecks, DtypesFollowTheSocProfile) {
  const Shape shape{3};
  for (const char* soc : {"Ascend910B2", "Ascend910_9391", "Ascend910A", "Ascend310P3"}) {
    SCOPED_TRACE(soc);
    const ScopedSocVersion pose(soc);
    const bool bf16 = std::string(soc).rfind("Ascend910B", 0) == 0 ||
                      std::string(soc).rfind("Ascend910_93", 0) == 0;
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT64, ACL_DOUBLE}) {
      DeviceTensor self(shape, dtype, {}), out({}, dtype, {});
      const bool listed = dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_INT64 ||
                          (dtype == ACL_BF16 && bf16);
      EXPECT_EQ(Api::Plan(self, self, kSum, out), listed ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID)
          << dtype;
      if (!listed) {
        EXPECT_TRUE(ErrorMentions(soc));
      }
    }
    DeviceTensor fp32(shape, ACL_FLOAT, {}), bf16_out({}, ACL_BF16, {});
    EXPECT_EQ(Api::Plan(fp32, fp32, kMean, bf16_out),
              bf16 ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID);
  }
}

TEST(L1LossChecks, RanksZeroToEightAreAccepted) {
  DeviceTensor scalar({}, ACL_FLOAT, {2.5f}), row({3}, ACL_FLOAT, {1, 2, 3}),
      out({3}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(scalar, scalar, kNone, scalar), ACLNN_SUCCESS);
  ASSERT_EQ(Api::Run(scalar, row, kNone, out), ACLNN_SUCCESS);  // 0-D broadcasts with anything
  EXPECT_EQ(out.Read(), (std::vector<float>{1.5f, 0.5f, 0.5f}));
  const Shape eight{1, 2, 1, 2, 1, 2, 1, 2};
  DeviceTensor self8(eight, ACL_FLOAT, Values(16, 0.5f)), sum({}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self8, scalar, kSum, sum), ACLNN_SUCCESS);
  long double total = 0;
  for (float x : self8.Read()) total += ExactL1(x, 2.5f);
  EXPECT_TRUE(CorrectlyRounded(sum.Read()[0], total, ACL_FLOAT));
}

TEST(L1LossChecks, ViewsOutsideTheirStorageAre161002) {
  DeviceTensor self({4, 4}, ACL_FLOAT, {}, {5, 1}, 0, {16}), out({4, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, out, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the view of self"));
}

}  // namespace
}  // namespace openaclnn::testing
