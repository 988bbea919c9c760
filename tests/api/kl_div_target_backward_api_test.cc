// aclnnKlDivTargetBackward through its C API: CANN's UT cases by their intent (those of
// aclnnKlDivBackward with gradTarget for out), its own checks (gradTarget's dtype is target's,
// private formats, the SoC list), OpenACLNN's decisions (docs/contract/checks-and-codes.md §16),
// and the values the formula's edges give. kl_div_backward_api_test.cc checks its values on
// broadcast operands, every reduction and dtype.
#include "aclnnop/aclnn_kl_div_target_backward.h"

#include <cmath>
#include <limits>
#include <string>

#include "kl_div_reference.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2, kBatchMean = 3;
const KlGradientApi& kApi = kKlDivTargetBackward;

aclnnStatus Plan(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target,
                 int64_t reduction, const DeviceTensor& out, bool log_target = false) {
  return PlanGradient(kApi, grad, self, target, reduction, out, log_target);
}

// --- CANN's UT cases (23 TEST_F, 26 calls), by their intent ---

TEST(KlDivTargetBackwardCann, EveryReductionAndPublicFormatIsAccepted) {
  ExpectEveryReductionAndFormatAccepted(kApi);
}

// Mixed dtypes: gradTarget has target's; the others promote.
TEST(KlDivTargetBackwardCann, MixedDtypesAreAccepted) {
  const Shape shape{3, 4, 1, 2, 3};
  DeviceTensor grad(shape, ACL_FLOAT16, {}), self(shape, ACL_FLOAT, {}),
      target(shape, ACL_FLOAT16, {}), out(shape, ACL_FLOAT16, {});
  EXPECT_EQ(Plan(grad, self, target, kNone, out, true), ACLNN_SUCCESS);
}

TEST(KlDivTargetBackwardCann, EmptyOneThreeAndFiveDimensionalTensorsAreAccepted) {
  EXPECT_EQ(KlCaseTensors({3, 1, 0, 5}, {3, 1, 0, 5}, ACL_FLOAT).Plan(kApi, kNone, true),
            ACLNN_SUCCESS);
  EXPECT_EQ(KlCaseTensors({3}, {3}, ACL_FLOAT).Plan(kApi, kNone, true), ACLNN_SUCCESS);
  EXPECT_EQ(KlCaseTensors({3, 4, 1}, {3, 4, 6}, ACL_FLOAT).Plan(kApi, kNone, true), ACLNN_SUCCESS);
  EXPECT_EQ(KlCaseTensors({3, 4, 6, 2, 3}, {3, 4, 6, 2, 3}, ACL_FLOAT).Plan(kApi, kNone, true),
            ACLNN_SUCCESS);
}

// The shapes: gradOutput into the broadcast shape, self and target broadcast, gradTarget has
// target's shape (a target smaller than self gets its gradient summed back).
TEST(KlDivTargetBackwardCann, ShapesAreCheckedAndTargetsBroadcast) {
  DeviceTensor grad({3, 4, 1, 3}, ACL_FLOAT, {}), self({3, 4, 6, 1}, ACL_FLOAT, {}),
      column({3, 4, 6, 1}, ACL_FLOAT, {}), wide_self({3, 4, 6, 3}, ACL_FLOAT, {}),
      wide({3, 4, 6, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(grad, self, column, kNone, column, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput shape [3,4,1,3] cannot broadcast into"));
  EXPECT_EQ(Plan(column, wide_self, wide, kNone, wide, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("cannot broadcast"));
  EXPECT_EQ(Plan(column, wide_self, column, kNone, wide_self, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradTarget shape [3,4,6,3] must equal target shape [3,4,6,1]."));
  EXPECT_EQ(Plan(column, wide_self, column, kNone, column, true), ACLNN_SUCCESS);
}

TEST(KlDivTargetBackwardCann, Int32GradientRankNineAndNullsAreRefused) {
  DeviceTensor ints({3, 4}, ACL_INT32, {}), f32({3, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(ints, f32, f32, kNone, f32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput has dtype DT_INT32"));
  DeviceTensor nine({1, 2, 1, 2, 1, 2, 1, 2, 1}, ACL_FLOAT, {}), empty({3, 1, 0, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(nine, empty, empty, kNone, empty), ACLNN_ERR_PARAM_INVALID);
  ExpectNullTensorsRefusedInOrder(kApi, "gradTarget");
}

// --- Its own checks and OpenACLNN's decisions ---

// CanCast(self, gradTarget), the dtype list, then gradTarget's dtype equals target's.
TEST(KlDivTargetBackwardChecks, GradTargetHasTargetsDtype) {
  DeviceTensor f32({4}, ACL_FLOAT, {}), f16({4}, ACL_FLOAT16, {}), ints({4}, ACL_INT32, {});
  EXPECT_EQ(Plan(f32, f32, f16, kNone, f32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradTarget dtype DT_FLOAT must equal target dtype DT_FLOAT16."));
  EXPECT_EQ(Plan(f32, f32, ints, kNone, ints), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self of dtype DT_FLOAT cannot be cast to gradTarget dtype DT_INT32."));
  EXPECT_EQ(Plan(f16, f32, f16, kNone, f16), ACLNN_SUCCESS);
}

// D15: CANN's private formats are refused, after the shapes.
TEST(KlDivTargetBackwardChecks, PrivateFormatsAre161002) {
  const Shape shape{2, 3};
  const KlCaseTensors c(shape, shape, ACL_FLOAT);
  for (aclFormat format :
       {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NDC1HWC0,
        ACL_FRACTAL_Z_3D, ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_FRACTAL_NZ_C0_16}) {
    SCOPED_TRACE(format);
    FormattedTensor target(shape, ACL_FLOAT, format, c.target.device());
    EXPECT_EQ(
        PlanGradient(kApi, c.grad.get(), c.self.get(), target.get(), kNone, false, c.out.get()),
        ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("target has the private format " + std::to_string(format) +
                              "; Format only support ND"));
  }
  FormattedTensor out({2, 4}, ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, c.out.device());
  EXPECT_EQ(PlanGradient(kApi, c.grad.get(), c.self.get(), c.target.get(), kNone, false, out.get()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradTarget shape [2,4] must equal target shape [2,3]."));
}

// D1 after the formats; D16 first.
TEST(KlDivTargetBackwardChecks, ReductionAndOutputPointers) {
  const KlCaseTensors c({4}, {4}, ACL_FLOAT);
  EXPECT_EQ(c.Plan(kApi, 5, false), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("aclnnKlDivTargetBackward: reduction is 5"));
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnKlDivTargetBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 0, false, nullptr,
                                                     nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("workspaceSize is nullptr."));
}

// D14: only the SoCs with bf16 have the op; elsewhere, Ascend910 and Ascend310P included, every
// call fails.
TEST(KlDivTargetBackwardChecks, OnlyBf16SocsHaveTheOp) {
  const KlCaseTensors c({4}, {4}, ACL_FLOAT);
  for (const char* soc : {"Ascend910B1", "Ascend910_9372", "Ascend950DT"}) {
    ScopedSocVersion profile(soc);
    EXPECT_EQ(c.Plan(kApi, kNone, false), ACLNN_SUCCESS) << soc;
  }
  for (const char* soc : {"Ascend910ProA", "Ascend310P1", "Ascend310B4"}) {
    ScopedSocVersion profile(soc);
    EXPECT_EQ(c.Plan(kApi, kNone, false), ACLNN_ERR_PARAM_INVALID) << soc;
    EXPECT_TRUE(ErrorMentions("gradOutput has dtype DT_FLOAT (0), which " + std::string(soc) +
                              " does not support; supported: none."));
  }
}

// D11: an empty self beside a non-empty target: gradTarget, sums of nothing, is 0 (CANN leaves it
// unwritten).
TEST(KlDivTargetBackwardChecks, AnEmptyBroadcastShapeZeroFillsGradTarget) {
  DeviceTensor grad({}, ACL_FLOAT, {1}), self({0, 3}, ACL_FLOAT, {}),
      target({1, 3}, ACL_FLOAT, {0.5f, 0.25f, 1}), out({1, 3}, ACL_FLOAT, {7, 7, 7});
  ASSERT_EQ(RunGradient(kApi, grad, self, target, kMean, false, out), ACLNN_SUCCESS);
  for (float value : out.Read()) EXPECT_EQ(value, 0.0f);
}

// --- Values at the formula's edges ---

// D8: t = 0 gives NaN (no derivative at the domain's edge), t < 0 NaN; the "+1" is g exactly, so
// t = +inf gives g's infinity (CANN's (g t) / t: NaN) and a tiny g survives (CANN: (g t) / t = 0
// where g t underflows).
TEST(KlDivTargetBackwardValues, TheFormulasEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> g = {1, 1, 2, -3, 1e-30f, 0.5f};
  const std::vector<float> x = {0, 0, 1, 1, 0, 1};
  const std::vector<float> t = {0, -0.5f, inf, inf, 1e-20f, 1};
  DeviceTensor grad({6}, ACL_FLOAT, {}), self({6}, ACL_FLOAT, x), target({6}, ACL_FLOAT, {}),
      out({6}, ACL_FLOAT, {});
  UploadWithSpecials(grad, ACL_FLOAT, g);
  UploadWithSpecials(target, ACL_FLOAT, t);
  ASSERT_EQ(RunGradient(kApi, grad, self, target, kNone, false, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_TRUE(std::isnan(got[1]));
  EXPECT_EQ(got[2], inf);
  EXPECT_EQ(got[3], -inf);
  EXPECT_TRUE(CorrectlyRounded(got[4], KlGradTarget(1e-30f, 0, 1e-20f, false), ACL_FLOAT));
  EXPECT_EQ(got[5], 0.0f);  // g (ln 1 - 1 + 1) = 0.5 * 0, exactly
  EXPECT_FALSE(std::signbit(got[5]));
}

// Log targets: g e^t (t - x + 1) is exactly 0 where t - x = -1, and finite where e^t overflows
// fp32 but the value does not.
TEST(KlDivTargetBackwardValues, LogTargetsWithoutFp32sExp) {
  const std::vector<float> g = {1, -1, 0x1p-60f, 2};
  const std::vector<float> x = {3, 3, 100.5f, 0.5f};
  const std::vector<float> t = {2, 2, 99, -3};
  DeviceTensor grad({4}, ACL_FLOAT, g), self({4}, ACL_FLOAT, x), target({4}, ACL_FLOAT, t),
      out({4}, ACL_FLOAT, {});
  ASSERT_EQ(RunGradient(kApi, grad, self, target, kNone, true, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  EXPECT_TRUE(got[0] == 0.0f && !std::signbit(got[0]));
  EXPECT_TRUE(got[1] == 0.0f && std::signbit(got[1]));
  for (int i : {2, 3}) {
    EXPECT_TRUE(CorrectlyRounded(got[i], KlGradTarget(g[i], x[i], t[i], true), ACL_FLOAT)) << i;
  }
  EXPECT_TRUE(std::isfinite(got[2]));
}

}  // namespace
}  // namespace openaclnn::testing
