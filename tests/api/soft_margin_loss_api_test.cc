// aclnnSoftMarginLoss through its C API: CANN's UT cases by their intent, OpenACLNN's decisions
// (docs/contract/checks-and-codes.md, aclnnSoftMarginLoss's section), every check's status code,
// its order and message, and values against a long-double reference.
#include "aclnnop/aclnn_soft_margin_loss.h"

#include <cmath>
#include <limits>

#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;
constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

// The loss log(1 + e^-z), z = x t exact in long double (two 24-bit significands), as
// softplus(-z) = max(-z, 0) + log1p(e^-|z|): no digit cancels. NaN, +-inf classes as IEEE gives
// them (z = +inf: 0; z = -inf: inf; NaN z: NaN).
long double ExactSoftMargin(long double x, long double t) {
  const long double z = x * t;
  return std::max(-z, 0.0L) + std::log1p(std::exp(-std::fabs(z)));
}

using Api = SelfTargetLossApi<aclnnSoftMarginLossGetWorkspaceSize, aclnnSoftMarginLoss>;

// --- CANN's UT cases (20 TEST_F, 3 of them commented out), by their intent ---

TEST(SoftMarginLossCann, NullSelfTargetOrOutIs161001) {
  DeviceTensor tensor({2, 2}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(nullptr, tensor.get(), kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions(
      "aclnnSoftMarginLoss: Expected a proper Tensor but got null for argument self."));
  EXPECT_EQ(Api::Plan(tensor.get(), nullptr, kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument target."));
  EXPECT_EQ(Api::Plan(tensor.get(), tensor.get(), kNone, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument out."));
}

// soft_margin_loss_float32, _bfloat16, ascend910B2_..._bfloat16, _float16_float32 (fp16 self,
// fp32 target, fp16 out): the default profile (Ascend910B) takes each.
TEST(SoftMarginLossCann, SupportedAndMixedDtypesAreAccepted) {
  const struct {
    aclDataType self, target, out;
  } cases[] = {{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT},
               {ACL_BF16, ACL_BF16, ACL_BF16},
               {ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT16},
               {ACL_BF16, ACL_FLOAT16, ACL_FLOAT}};
  for (const auto& c : cases) {
    DeviceTensor self({2, 2}, c.self, {}), target({2, 2}, c.target, {}), out({2, 2}, c.out, {});
    EXPECT_EQ(Api::Plan(self, target, kNone, out), ACLNN_SUCCESS);
  }
}

TEST(SoftMarginLossCann, DoubleTensorsAre161002) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    const auto dtype = [&](int index) { return index == which ? ACL_DOUBLE : ACL_FLOAT; };
    DeviceTensor self({2, 2}, dtype(0), {}), target({2, 2}, dtype(1), {}),
        out({2, 2}, dtype(2), {});
    EXPECT_EQ(Api::Plan(self, target, kNone, out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("has dtype DT_DOUBLE"));
  }
}

// soft_margin_loss_self_empty_none, _mean, _sum: accepted; none writes nothing, mean NaN, sum 0
// (CANN's fill).
TEST(SoftMarginLossCann, EmptyInputsAreAcceptedAndFillAReducedOut) {
  DeviceTensor self({2, 0}, ACL_FLOAT, {}), target({2, 0}, ACL_FLOAT, {}),
      none({2, 0}, ACL_FLOAT, {});
  uint64_t workspace_size = 1;
  EXPECT_EQ(Api::Plan(self.get(), target.get(), kNone, none.get(), &workspace_size), ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  EXPECT_EQ(Api::Run(self, target, kNone, none), ACLNN_SUCCESS);
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    DeviceTensor mean({}, dtype, {7.0f}), sum({}, dtype, {7.0f});
    ASSERT_EQ(Api::Run(self, target, kMean, mean), ACLNN_SUCCESS);
    EXPECT_TRUE(std::isnan(mean.Read()[0]));
    ASSERT_EQ(Api::Run(self, target, kSum, sum), ACLNN_SUCCESS);
    EXPECT_EQ(sum.Bytes(), DeviceTensor({}, dtype, {0.0f}).Bytes());  // +0
  }
  // Only target empty: the broadcast shape is empty all the same.
  DeviceTensor one({1}, ACL_FLOAT, {0.5f}), empty({0}, ACL_FLOAT, {}), mean({}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(one, empty, kMean, mean), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(mean.Read()[0]));
}

TEST(SoftMarginLossCann, EveryReductionIsAccepted) {
  DeviceTensor self({2, 2}, ACL_FLOAT, {}), target({2, 2}, ACL_FLOAT, {-1, 1, 1, -1}),
      none({2, 2}, ACL_FLOAT, {}), reduced({}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kNone, none), ACLNN_SUCCESS);
  EXPECT_EQ(Api::Plan(self, target, kMean, reduced), ACLNN_SUCCESS);
  EXPECT_EQ(Api::Plan(self, target, kSum, reduced), ACLNN_SUCCESS);
}

// soft_margin_loss_reduction_3 and _negative_4: CANN sums for either (success); OpenACLNN refuses
// every value outside 0..2 (D51).
TEST(SoftMarginLossCann, ReductionsOutsideZeroToTwoAre161002) {
  DeviceTensor self({2, 2}, ACL_FLOAT, {}), out({}, ACL_FLOAT, {});
  for (int64_t reduction : {int64_t{3}, int64_t{-4}, int64_t{-1}, int64_t{1} << 40}) {
    EXPECT_EQ(Api::Plan(self, self, reduction, out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("aclnnSoftMarginLoss: reduction is " + std::to_string(reduction) +
                              "; Reduction only support [0, 1, 2]"));
  }
}

TEST(SoftMarginLossCann, RankNineIs161002) {
  const Shape nine{2, 2, 3, 2, 2, 3, 2, 2, 3};
  DeviceTensor self(nine, ACL_FLOAT, {}), out(nine, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, self, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT [2,2,3,2,2,3,2,2,3]) has rank 9; at most 8"));
}

// The commented-out cases: target [2,1] broadcasts into self [2,2]; so does self [2,1] into
// target [2,2] (CANN's op_api broadcasts both ways; the case expecting 161002 predates that);
// a transposed self is read in place.
TEST(SoftMarginLossCann, BothInputsBroadcastAndViewsAreRead) {
  DeviceTensor square({2, 2}, ACL_FLOAT, {0.25f, 0.5f, -1, 2}), column({2, 1}, ACL_FLOAT, {-1, 1}),
      out({2, 2}, ACL_FLOAT, {});
  for (int order = 0; order < 2; ++order) {
    ASSERT_EQ(
        order == 0 ? Api::Run(square, column, kNone, out) : Api::Run(column, square, kNone, out),
        ACLNN_SUCCESS);
    const std::vector<float> got = out.Read();
    const float x[] = {0.25f, 0.5f, -1, 2}, t[] = {-1, -1, 1, 1};
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(CorrectlyRounded(got[i], ExactSoftMargin(x[i], t[i]), ACL_FLOAT)) << i;
    }
  }
}

// --- OpenACLNN's decisions, and the checks' order ---

TEST(SoftMarginLossChecks, WorkspaceSizeAndExecutorAreCheckedFirst) {
  DeviceTensor self({3}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  // Before the null out (CANN's OP_CHECK_COMM_INPUT comes first).
  EXPECT_EQ(
      aclnnSoftMarginLossGetWorkspaceSize(self.get(), self.get(), 0, nullptr, nullptr, &executor),
      ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnSoftMarginLoss: workspaceSize is nullptr."));
  EXPECT_EQ(aclnnSoftMarginLossGetWorkspaceSize(self.get(), self.get(), 0, nullptr, &workspace_size,
                                                nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor is nullptr."));
}

// Nulls, dtypes, reduction, ranks and views, broadcast, out's shape: each failure is reported
// only when everything before it passes.
TEST(SoftMarginLossChecks, ChecksComeInCannsOrderWithTheReductionAfterTheDtypes) {
  DeviceTensor fp32({2, 3}, ACL_FLOAT, {}), fp64({2, 3}, ACL_DOUBLE, {}), other({4}, ACL_FLOAT, {}),
      nine({1, 1, 1, 1, 1, 1, 1, 1, 1}, ACL_FLOAT, {}), scalar({}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(fp32.get(), nullptr, 7, fp64.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(Api::Plan(fp32, other, 7, fp64), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out has dtype DT_DOUBLE"));
  EXPECT_EQ(Api::Plan(fp32, other, 7, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("reduction is 7"));
  EXPECT_EQ(Api::Plan(nine, other, kNone, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT [1,1,1,1,1,1,1,1,1]) has rank 9"));
  EXPECT_EQ(Api::Plan(fp32, nine, kNone, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target (DT_FLOAT [1,1,1,1,1,1,1,1,1]) has rank 9"));
  EXPECT_EQ(Api::Plan(fp32, other, kSum, nine), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out (DT_FLOAT [1,1,1,1,1,1,1,1,1]) has rank 9"));
  EXPECT_EQ(Api::Plan(fp32, other, kSum, scalar), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("aclnnSoftMarginLoss: self shape [2,3] and target shape [4] cannot broadcast"));
  EXPECT_EQ(Api::Plan(fp32, fp32, kSum, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out must be 0-D (shape []), but its shape is [2,3]."));
}

// As CANN (SM8): a reduced out is exactly 0-D ([1] and [1,1] refused); none wants the broadcast
// shape itself (not merely as many elements).
TEST(SoftMarginLossChecks, OutShapeIsTheBroadcastShapeOrZeroD) {
  DeviceTensor self({3, 1}, ACL_FLOAT, {}), target({4}, ACL_FLOAT, {}),
      broadcast({3, 4}, ACL_FLOAT, {}), flat({12}, ACL_FLOAT, {}), one({1}, ACL_FLOAT, {}),
      one_by_one({1, 1}, ACL_FLOAT, {}), scalar({}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kNone, broadcast), ACLNN_SUCCESS);
  EXPECT_EQ(Api::Plan(self, target, kNone, flat), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("out shape [12] must be the broadcast shape of self and target, [3,4]."));
  EXPECT_EQ(Api::Plan(self, target, kMean, scalar), ACLNN_SUCCESS);
  for (const DeviceTensor* out : {&one, &one_by_one, &broadcast}) {
    EXPECT_EQ(Api::Plan(self, target, kMean, *out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("with reduction mean or sum, out must be 0-D"));
  }
  // Empty inputs too (CANN's fill would write a larger out whole).
  DeviceTensor empty({0, 3}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(empty, empty, kSum, one), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(Api::Plan(empty, empty, kNone, broadcast), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("out shape [3,4] must be the broadcast shape of self and target, [0,3]."));
}

// The V2 list: bf16 on Ascend910B, 910_93 and 950, not on the first Ascend910 or Ascend310P.
TEST(SoftMarginLossChecks, Bf16FollowsTheSocProfile) {
  DeviceTensor bf16({2}, ACL_BF16, {}), fp32({2}, ACL_FLOAT, {});
  for (const char* soc : {"Ascend910B3", "Ascend910_9391", "Ascend950PR_9579"}) {
    ScopedSocVersion profile(soc);
    EXPECT_EQ(Api::Plan(bf16, fp32, kNone, fp32), ACLNN_SUCCESS) << soc;
  }
  for (const char* soc : {"Ascend910ProB", "Ascend310P3"}) {
    ScopedSocVersion profile(soc);
    EXPECT_EQ(Api::Plan(fp32, fp32, kNone, fp32), ACLNN_SUCCESS) << soc;
    EXPECT_EQ(Api::Plan(fp32, fp32, kNone, bf16), ACLNN_ERR_PARAM_INVALID) << soc;
    EXPECT_TRUE(ErrorMentions(std::string("out has dtype DT_BF16 (27), which ") + soc +
                              " does not support; supported: DT_FLOAT, DT_FLOAT16."));
  }
}

TEST(SoftMarginLossChecks, IntegerInputsAndOutsAre161002) {
  DeviceTensor fp32({2}, ACL_FLOAT, {}), int64({2}, ACL_INT64, {}), int32({2}, ACL_INT32, {});
  EXPECT_EQ(Api::Plan(int64, fp32, kNone, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self has dtype DT_INT64"));
  EXPECT_EQ(Api::Plan(fp32, int32, kNone, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target has dtype DT_INT32"));
  EXPECT_EQ(Api::Plan(fp32, fp32, kNone, int32), ACLNN_ERR_PARAM_INVALID);
}

TEST(SoftMarginLossChecks, ViewsOutsideTheirStorageAre161002) {
  DeviceTensor self({4, 4}, ACL_FLOAT, {}, {5, 1}, 0, {16}), target({4, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kNone, target), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the view of self"));
}

TEST(SoftMarginLossChecks, ZeroDAndRankEightAreAccepted) {
  DeviceTensor scalar({}, ACL_FLOAT, {-0.75f}), minus_one({}, ACL_FLOAT, {-1}),
      out({}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(scalar, minus_one, kNone, out), ACLNN_SUCCESS);
  EXPECT_TRUE(CorrectlyRounded(out.Read()[0], ExactSoftMargin(-0.75f, -1), ACL_FLOAT));
  const Shape eight{1, 2, 1, 2, 1, 2, 1, 2};
  DeviceTensor self8(eight, ACL_FLOAT, UniformValues(16, -5, 5, 1)), total({}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self8, scalar, kSum, total), ACLNN_SUCCESS);
  long double sum = 0;
  for (float x : self8.Read()) sum += ExactSoftMargin(x, -0.75f);
  EXPECT_TRUE(CorrectlyRounded(total.Read()[0], sum, ACL_FLOAT));
}

// --- Values against the long-double reference ---

struct ValueCase {
  aclDataType self_type, target_type, out_type;
  int64_t reduction;
  Shape self_shape, target_shape;
};

class SoftMarginLossValues : public ::testing::TestWithParam<ValueCase> {};

// ATK's draw (both in [-5, 5]) and a wider one, where |z| reaches past fp32's exp overflow.
TEST_P(SoftMarginLossValues, AreTheExactLossCorrectlyRounded) {
  const ValueCase c = GetParam();
  Shape shape;
  for (size_t d = 0; d < std::max(c.self_shape.size(), c.target_shape.size()); ++d) {
    const auto dim = [&](const Shape& s) {
      return d < s.size() ? s[s.size() - 1 - d] : int64_t{1};
    };
    shape.insert(shape.begin(), std::max(dim(c.self_shape), dim(c.target_shape)));
  }
  const int64_t count = ElementCount(shape);
  for (float range : {5.0f, 40.0f}) {
    SCOPED_TRACE(range);
    DeviceTensor self(c.self_shape, c.self_type,
                      UniformValues(ElementCount(c.self_shape), -range, range, 3));
    DeviceTensor target(c.target_shape, c.target_type,
                        UniformValues(ElementCount(c.target_shape), -range, range, 4));
    DeviceTensor out(c.reduction == kNone ? shape : Shape{}, c.out_type, {});
    ASSERT_EQ(Api::Run(self, target, c.reduction, out), ACLNN_SUCCESS);
    const std::vector<float> x = self.Read(), t = target.Read(), got = out.Read();
    long double total = 0;
    for (int64_t i = 0; i < count; ++i) {
      const long double exact = ExactSoftMargin(x[BroadcastIndex(shape, c.self_shape, i)],
                                                t[BroadcastIndex(shape, c.target_shape, i)]);
      total += exact;
      if (c.reduction == kNone) {
        ASSERT_TRUE(CorrectlyRounded(got[i], exact, c.out_type)) << "element " << i;
      }
    }
    if (c.reduction == kMean) total /= count;
    if (c.reduction != kNone) {
      EXPECT_TRUE(CorrectlyRounded(got[0], total, c.out_type));
    }
  }
}

std::string ValueCaseName(const ::testing::TestParamInfo<ValueCase>& param) {
  static const char* const kReductions[] = {"None", "Mean", "Sum"};
  return std::string(kReductions[param.param.reduction]) + "Case" + std::to_string(param.index);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SoftMarginLossValues,
    ::testing::Values(ValueCase{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kNone, {7, 9}, {7, 9}},
                      ValueCase{ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, kNone, {3, 4, 5}, {3, 4, 5}},
                      ValueCase{ACL_BF16, ACL_BF16, ACL_BF16, kNone, {64}, {64}},
                      ValueCase{ACL_FLOAT16, ACL_FLOAT, ACL_BF16, kNone, {3, 1, 5}, {4, 1}},
                      ValueCase{ACL_FLOAT, ACL_BF16, ACL_FLOAT16, kNone, {6}, {2, 3, 1}},
                      ValueCase{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kMean, {3, 1000}, {3, 1000}},
                      ValueCase{ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, kMean, {64, 70}, {70}},
                      ValueCase{ACL_BF16, ACL_FLOAT, ACL_FLOAT, kMean, {9000}, {9000}},
                      ValueCase{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kSum, {5000}, {5000}},
                      ValueCase{ACL_BF16, ACL_BF16, ACL_BF16, kSum, {30, 1}, {1, 300}},
                      ValueCase{ACL_FLOAT, ACL_FLOAT16, ACL_FLOAT16, kSum, {}, {7}}),
    ValueCaseName);

// CANN's example: fp32 [2,2], self {0.3, 0.7, 0.5, 0.5}, target {-1, 1, 1, -1}, none; the digits
// it prints with %f.
TEST(SoftMarginLossValues, CannsExampleGivesItsDigits) {
  const std::vector<float> x = {0.3f, 0.7f, 0.5f, 0.5f}, t = {-1, 1, 1, -1};
  DeviceTensor self({2, 2}, ACL_FLOAT, x), target({2, 2}, ACL_FLOAT, t), out({2, 2}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self, target, kNone, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  const float digits[] = {854355, 403186, 474077, 974077};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(std::round(got[i] * 1e6f), digits[i]) << i;
    EXPECT_TRUE(CorrectlyRounded(got[i], ExactSoftMargin(x[i], t[i]), ACL_FLOAT)) << i;
  }
}

// D54: the loss is finite wherever the maths is (torch's literal form gives inf for x t < -88.7);
// it rounds to +0 for x t >= 104; t = 0 gives log 2; targets need not be +-1.
TEST(SoftMarginLossValues, LargeMarginsAndAnyTargetAreExact) {
  const std::vector<float> x = {-100, 100, 1e4f, -1e4f, 3, 0.5f, -2, 104, 1e-30f, 0};
  const std::vector<float> t = {1, -1, 1, 1, 0, -5, 2.5f, 1, 1, -0.0f};
  const Shape shape{static_cast<int64_t>(x.size())};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor self(shape, ACL_FLOAT, x), target(shape, ACL_FLOAT, t), out(shape, dtype, {});
    ASSERT_EQ(Api::Run(self, target, kNone, out), ACLNN_SUCCESS);
    const std::vector<float> got = out.Read();
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(CorrectlyRounded(got[i], ExactSoftMargin(x[i], t[i]), dtype)) << i;
    }
    EXPECT_EQ(got[0], 100.0f);
    EXPECT_EQ(got[2], 0.0f);
    EXPECT_FALSE(std::signbit(got[2]));
    EXPECT_TRUE(std::isfinite(got[3]));
  }
}

// z = x t is exact, not an fp32 product: 1e20 * -1e20 = -1e40 overflows fp32 (CANN's and torch's
// loss is inf there), but its mean with 4095 losses of log 2 is 2.44e36.
TEST(SoftMarginLossValues, MarginsBeyondFp32AreExactInAMean) {
  std::vector<float> x(4096, 0.0f), t(4096, 1.0f);
  x[17] = 1e20f, t[17] = -1e20f;
  DeviceTensor self({4096}, ACL_FLOAT, x), target({4096}, ACL_FLOAT, t), out({}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self, target, kMean, out), ACLNN_SUCCESS);
  const long double exact =
      (static_cast<long double>(1e20f) * 1e20f + 4095 * std::log(2.0L)) / 4096;
  EXPECT_TRUE(CorrectlyRounded(out.Read()[0], exact, ACL_FLOAT));
  EXPECT_TRUE(std::isfinite(out.Read()[0]));
}

// Non-finite inputs take the stable form's classes: x t = +inf -> +0, -inf -> +inf, NaN (a NaN
// input, 0 * inf) -> NaN; a mean or sum with one NaN is NaN, with one +inf term +inf.
TEST(SoftMarginLossValues, NonFiniteInputsTakeTheirClasses) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {inf, inf, -inf, inf, nan, 1, 0};
  const std::vector<float> t = {1, -1, 1, 0, 1, nan, inf};
  const Shape shape{static_cast<int64_t>(x.size())};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor self(shape, dtype, {}), target(shape, dtype, {}), out(shape, dtype, {});
    UploadWithSpecials(self, dtype, x);
    UploadWithSpecials(target, dtype, t);
    ASSERT_EQ(Api::Run(self, target, kNone, out), ACLNN_SUCCESS);
    const std::vector<float> got = out.Read();
    EXPECT_EQ(got[0], 0.0f);
    EXPECT_FALSE(std::signbit(got[0]));
    EXPECT_EQ(got[1], inf);
    EXPECT_EQ(got[2], inf);
    for (int i = 3; i < 7; ++i) EXPECT_TRUE(std::isnan(got[i])) << i;
  }
  DeviceTensor self({3}, ACL_FLOAT, {}), target({3}, ACL_FLOAT, {1, 1, 1}),
      total({}, ACL_FLOAT, {});
  UploadWithSpecials(self, ACL_FLOAT, {0.5f, -inf, 2});
  ASSERT_EQ(Api::Run(self, target, kSum, total), ACLNN_SUCCESS);
  EXPECT_EQ(total.Read()[0], inf);
  UploadWithSpecials(self, ACL_FLOAT, {0.5f, nan, 2});
  ASSERT_EQ(Api::Run(self, target, kMean, total), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(total.Read()[0]));
}

TEST(SoftMarginLossValues, NonContiguousTensorsAreReadInPlace) {
  // self is the transpose of a [10,5] storage; out a strided view of a [5,20] one.
  const std::vector<float> storage = UniformValues(50, -5, 5, 7);
  DeviceTensor self({5, 10}, ACL_FLOAT, storage, {1, 5}, 0, {10, 5});
  DeviceTensor target({5, 10}, ACL_FLOAT, UniformValues(50, -2, 2, 8));
  DeviceTensor out({5, 10}, ACL_FLOAT, std::vector<float>(100, -1.0f), {20, 2}, 1, {5, 20});
  ASSERT_EQ(Api::Run(self, target, kNone, out), ACLNN_SUCCESS);
  const std::vector<float> t = target.Read(), got = out.Read();
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 10; ++col) {
      const long double exact = ExactSoftMargin(storage[col * 5 + row], t[row * 10 + col]);
      EXPECT_TRUE(CorrectlyRounded(got[row * 20 + 1 + 2 * col], exact, ACL_FLOAT));
      EXPECT_EQ(got[row * 20 + 2 * col], -1.0f);  // between the view's elements: untouched
    }
  }
}

// A repeatable executor follows new tensor addresses (the contract every op keeps).
TEST(SoftMarginLossValues, ARepeatableExecutorFollowsNewAddresses) {
  DeviceTensor first({8}, ACL_FLOAT, UniformValues(8, -5, 5, 9)),
      second({8}, ACL_FLOAT, UniformValues(8, -5, 5, 10));
  DeviceTensor target({8}, ACL_FLOAT, UniformValues(8, -1, 1, 11)), out({}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnSoftMarginLossGetWorkspaceSize(first.get(), target.get(), kSum, out.get(),
                                                &workspace_size, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  const std::vector<float> t = target.Read();
  for (const DeviceTensor* self : {&first, &second}) {
    ASSERT_EQ(aclSetInputTensorAddr(executor, 0, first.get(), self->device()), ACLNN_SUCCESS);
    ASSERT_EQ(LaunchAndSync(ACLNN_SUCCESS, workspace_size, executor, aclnnSoftMarginLoss),
              ACLNN_SUCCESS);
    const std::vector<float> x = self->Read();
    long double total = 0;
    for (int i = 0; i < 8; ++i) total += ExactSoftMargin(x[i], t[i]);
    EXPECT_TRUE(CorrectlyRounded(out.Read()[0], total, ACL_FLOAT));
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

}  // namespace
}  // namespace openaclnn::testing
