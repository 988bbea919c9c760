// aclnnKlDivBackward through its C API: CANN's UT cases by their intent, OpenACLNN's decisions
// (docs/contract/checks-and-codes.md §15), every check's status code and message; and the values
// of both gradients (this one and aclnnKlDivTargetBackward) against a long-double reference
// (kl_div_reference.h), summed back into their outputs' shapes.
#include "aclnnop/aclnn_kl_div_backward.h"

#include <cmath>
#include <limits>
#include <string>

#include "kl_div_reference.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2, kBatchMean = 3;
const KlGradientApi& kApi = kKlDivBackward;

aclnnStatus Plan(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target,
                 int64_t reduction, const DeviceTensor& out, bool log_target = false) {
  return PlanGradient(kApi, grad, self, target, reduction, out, log_target);
}

// --- CANN's UT cases (23 TEST_F, 26 calls), by their intent ---

TEST(KlDivBackwardCann, EveryReductionAndFormatIsAccepted) {
  ExpectEveryReductionAndFormatAccepted(kApi);
}

// case_fp_reduction_exceed: CANN takes reduction 6 for none; OpenACLNN refuses it (D1).
TEST(KlDivBackwardCann, ReductionSixIs161002) {
  EXPECT_EQ(KlCaseTensors({3, 5, 4, 6}, {3, 5, 4, 6}, ACL_FLOAT).Plan(kApi, 6, false),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("aclnnKlDivBackward: reduction is 6; Reduction only support [0, 1, "
                    "2, 3]"));
}

// ascend910B2_case_fp_logtarget_true, case_dtype_promte: gradOutput and target fp16, self and out
// fp32.
TEST(KlDivBackwardCann, MixedDtypesAreAccepted) {
  for (const Shape& shape : {Shape{3, 5, 4, 6}, Shape{3, 4, 1, 2, 3}}) {
    DeviceTensor grad(shape, ACL_FLOAT16, {}), self(shape, ACL_FLOAT, {}),
        target(shape, ACL_FLOAT16, {}), out(shape, ACL_FLOAT, {});
    EXPECT_EQ(Plan(grad, self, target, kNone, out, true), ACLNN_SUCCESS);
  }
}

// case_empty_tensor: success, workspace 0, nothing to run.
TEST(KlDivBackwardCann, EmptySelfIsAccepted) {
  const KlCaseTensors c({3, 1, 0, 5}, {3, 1, 0, 5}, ACL_FLOAT);
  uint64_t workspace_size = 1;
  EXPECT_EQ(PlanGradient(kApi, c.grad.get(), c.self.get(), c.target.get(), kNone, true, c.out.get(),
                         &workspace_size),
            ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
}

// case_onedim_tensor, case_threedim_tensor (gradOutput [3,4,1]), case_fivedim_tensor.
TEST(KlDivBackwardCann, RanksOneThreeAndFiveAreAccepted) {
  EXPECT_EQ(KlCaseTensors({3}, {3}, ACL_FLOAT).Plan(kApi, kNone, true), ACLNN_SUCCESS);
  EXPECT_EQ(KlCaseTensors({3, 4, 1}, {3, 4, 6}, ACL_FLOAT).Plan(kApi, kNone, true), ACLNN_SUCCESS);
  EXPECT_EQ(KlCaseTensors({3, 4, 6, 2, 3}, {3, 4, 6, 2, 3}, ACL_FLOAT).Plan(kApi, kNone, true),
            ACLNN_SUCCESS);
}

// case_checkshape_self_noequal_broadshape, case_checkshape_target_not_broadcast,
// case_checkshape_out_not_equal_self.
TEST(KlDivBackwardCann, ShapeMismatchesAre161002) {
  DeviceTensor grad({3, 4, 1, 3}, ACL_FLOAT16, {}), self({3, 4, 6, 1}, ACL_FLOAT, {}),
      target({3, 4, 6, 1}, ACL_FLOAT16, {}), out({3, 4, 6, 1}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(grad, self, target, kNone, out, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("gradOutput shape [3,4,1,3] cannot broadcast into the broadcast "
                    "shape of self and target [3,4,6,1]"));
  DeviceTensor grad2({3, 4, 1, 1}, ACL_FLOAT16, {}), self2({3, 4, 6, 3}, ACL_FLOAT, {}),
      target2({3, 4, 6, 4}, ACL_FLOAT16, {}), out2({3, 4, 6, 3}, ACL_FLOAT, {}),
      column({3, 4, 6, 1}, ACL_FLOAT16, {}), wide({3, 4, 6, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(grad2, self2, target2, kNone, out2, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self shape [3,4,6,3] and target shape [3,4,6,4] cannot broadcast"));
  EXPECT_EQ(Plan(grad2, self2, column, kNone, wide, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out shape [3,4,6,5] must equal self shape [3,4,6,3]."));
}

// case_checkdtype (an int32 gradOutput) and case_nine_dims (a rank-9 gradOutput beside an empty
// self).
TEST(KlDivBackwardCann, Int32GradientAndRankNineAre161002) {
  DeviceTensor grad({3, 4, 1, 1}, ACL_INT32, {}), self({3, 4, 6, 3}, ACL_FLOAT, {}),
      target({3, 4, 6, 1}, ACL_FLOAT16, {}), out({3, 4, 6, 3}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(grad, self, target, kNone, out, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput has dtype DT_INT32"));
  DeviceTensor nine({1, 2, 1, 2, 1, 2, 1, 2, 1}, ACL_FLOAT, {}), empty({3, 1, 0, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(nine, empty, empty, kNone, empty, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput (DT_FLOAT [1,2,1,2,1,2,1,2,1]) has rank 9"));
}

TEST(KlDivBackwardCann, NullTensorsAre161001InParameterOrder) {
  ExpectNullTensorsRefusedInOrder(kApi, "out");
}

// case_broadcast_1, _2, _3: self smaller than the broadcast shape (its gradient summed back),
// target smaller, and both broadcast to a larger rank.
TEST(KlDivBackwardCann, BroadcastOperandsAreAccepted) {
  EXPECT_EQ(KlCaseTensors({3, 1}, {3, 1}, ACL_FLOAT).Plan(kApi, kNone, false), ACLNN_SUCCESS);
  DeviceTensor grad({3, 1}, ACL_FLOAT, {}), self({3, 1}, ACL_FLOAT, {}),
      target({3, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(grad, self, target, kNone, self), ACLNN_SUCCESS);
  DeviceTensor full({3, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(grad, full, self, kNone, full), ACLNN_SUCCESS);
  DeviceTensor grad3({3, 1, 1}, ACL_FLOAT, {}), self3({3, 5, 1}, ACL_FLOAT, {}),
      target3({6, 3, 1, 7}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(grad3, self3, target3, kNone, self3), ACLNN_SUCCESS);
}

// --- OpenACLNN's decisions (docs/contract/differences-from-cann.md) ---

// The output pointers come first, as in CANN (D16).
TEST(KlDivBackwardChecks, NullWorkspaceSizeOrExecutorIs161001First) {
  aclOpExecutor* executor = nullptr;
  uint64_t workspace_size = 0;
  EXPECT_EQ(aclnnKlDivBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 0, false, nullptr,
                                               nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnKlDivBackward: workspaceSize is nullptr."));
  EXPECT_EQ(aclnnKlDivBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 0, false, nullptr,
                                               &workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor is nullptr."));
}

// D1: CANN's silent none; here 161002, after the shapes (where KlDiv checks it).
TEST(KlDivBackwardChecks, ReductionOutsideZeroToThreeIs161002AfterTheShapes) {
  const KlCaseTensors c({4}, {4}, ACL_FLOAT);
  for (int64_t reduction : {int64_t{-1}, int64_t{4}}) {
    EXPECT_EQ(c.Plan(kApi, reduction, false), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("Reduction only support [0, 1, 2, 3]"));
  }
  DeviceTensor wide({5}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(c.grad, c.self, c.target, 9, wide), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out shape [5] must equal self shape [4]."));
}

// CANN's order: CanCast(self, out) before the dtype list.
TEST(KlDivBackwardChecks, AnOutSelfCannotCastToComesBeforeTheDtypeList) {
  DeviceTensor grad({4}, ACL_INT64, {}), self({4}, ACL_FLOAT, {}), ints({4}, ACL_INT32, {});
  EXPECT_EQ(Plan(grad, self, self, kNone, ints), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self of dtype DT_FLOAT cannot be cast to out dtype DT_INT32."));
  EXPECT_EQ(Plan(grad, self, self, kNone, self), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput has dtype DT_INT64"));
}

// D14: the dtype list by SoC family: with bf16 where the SoC has it, fp32 and fp16 on the first
// Ascend910 parts and Ascend310P, nothing elsewhere.
TEST(KlDivBackwardChecks, DtypesFollowTheOpsOwnSocFamilies) {
  DeviceTensor f32({4}, ACL_FLOAT, {}), f16({4}, ACL_FLOAT16, {}), bf16({4}, ACL_BF16, {});
  {
    ScopedSocVersion profile("Ascend910B3");
    EXPECT_EQ(Plan(bf16, f16, bf16, kNone, bf16), ACLNN_SUCCESS);
  }
  for (const char* soc : {"Ascend910A", "Ascend310P3"}) {
    ScopedSocVersion profile(soc);
    EXPECT_EQ(Plan(f16, f32, f16, kNone, f32), ACLNN_SUCCESS) << soc;
    EXPECT_EQ(Plan(f32, f32, bf16, kNone, f32), ACLNN_ERR_PARAM_INVALID) << soc;
    EXPECT_TRUE(ErrorMentions("target has dtype DT_BF16"));
  }
  for (const char* soc : {"Ascend310B1", "Ascend610"}) {
    ScopedSocVersion profile(soc);
    EXPECT_EQ(Plan(f32, f32, f32, kNone, f32), ACLNN_ERR_PARAM_INVALID) << soc;
    EXPECT_TRUE(ErrorMentions("supported: none."));
  }
}

// D11: a non-empty self beside an empty target: its gradient, a sum of nothing, is 0 (CANN writes
// nothing); an empty self with a mismatched out is refused (CANN skips its shape checks).
TEST(KlDivBackwardChecks, AnEmptyBroadcastShapeZeroFillsANonEmptyOut) {
  DeviceTensor grad({1}, ACL_FLOAT, {1}), self({1, 3}, ACL_FLOAT, {1, 2, 3}),
      target({0, 3}, ACL_FLOAT, {}), out({1, 3}, ACL_FLOAT, {7, 7, 7});
  ASSERT_EQ(RunGradient(kApi, grad, self, target, kSum, false, out), ACLNN_SUCCESS);
  for (float value : out.Read()) EXPECT_EQ(value, 0.0f);
  DeviceTensor empty({0, 3}, ACL_FLOAT, {}), wrong({0, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(grad, empty, empty, kNone, wrong), ACLNN_ERR_PARAM_INVALID);
}

// --- Values of both gradients against the long-double reference ---

struct GradientCase {
  const KlGradientApi* api;
  aclDataType grad_dtype, self_dtype, target_dtype, out_dtype;
  int64_t reduction;
  bool log_target;
  Shape grad_shape, self_shape, target_shape;
};

class KlDivGradientValues : public ::testing::TestWithParam<GradientCase> {};

TEST_P(KlDivGradientValues, AreTheExactGradientSummedIntoTheOutputCorrectlyRounded) {
  const GradientCase c = GetParam();
  const Shape space = BroadcastShapeOf(c.self_shape, c.target_shape);
  const bool target_gradient = c.api->kind == KlKind::kGradTarget;
  const Shape out_shape = target_gradient ? c.target_shape : c.self_shape;
  DeviceTensor grad(c.grad_shape, c.grad_dtype, Gradients(ElementCount(c.grad_shape)));
  DeviceTensor self(c.self_shape, c.self_dtype, LogProbabilities(ElementCount(c.self_shape)));
  DeviceTensor target(c.target_shape, c.target_dtype,
                      Targets(ElementCount(c.target_shape), c.log_target));
  DeviceTensor out(out_shape, c.out_dtype, {});
  ASSERT_EQ(RunGradient(*c.api, grad, self, target, c.reduction, c.log_target, out), ACLNN_SUCCESS);
  const KlOperands in{c.grad_shape, c.self_shape, c.target_shape,
                      grad.Read(),  self.Read(),  target.Read()};
  // D4: a mean's N is the broadcast shape's; D3: batchmean's divisor self's first dimension.
  const long double divisor = c.reduction == kMean ? ElementCount(space)
                              : c.reduction == kBatchMean
                                  ? c.self_shape.empty() ? 1 : c.self_shape[0]
                                  : 1;
  const std::vector<long double> exact =
      KlReference(c.api->kind, c.log_target, in, space, out_shape, divisor);
  const std::vector<float> got = out.Read();
  ASSERT_EQ(got.size(), exact.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(CorrectlyRounded(got[i], exact[i], c.out_dtype)) << "element " << i;
  }
}

std::vector<GradientCase> GradientCases() {
  constexpr aclDataType f32 = ACL_FLOAT, f16 = ACL_FLOAT16, bf16 = ACL_BF16;
  std::vector<GradientCase> cases;
  for (const KlGradientApi* api : {&kKlDivBackward, &kKlDivTargetBackward}) {
    const bool t = api->kind == KlKind::kGradTarget;
    const auto add = [&](aclDataType g, aclDataType x, aclDataType target, int64_t reduction,
                         bool log_target, Shape gs, Shape xs, Shape ts) {
      const aclDataType out = t ? target : x;
      cases.push_back({api, g, x, target, out, reduction, log_target, gs, xs, ts});
    };
    for (bool log_target : {false, true}) {
      add(f32, f32, f32, kNone, log_target, {4, 6}, {4, 6}, {4, 6});
      add(f32, f32, f32, kNone, log_target, {4, 1}, {4, 6}, {4, 6});
      add(f32, f32, f32, kMean, log_target, {1}, {4, 6}, {4, 6});
      add(f32, f32, f32, kSum, log_target, {}, {4, 6}, {4, 6});
      add(f32, f32, f32, kBatchMean, log_target, {1}, {8, 3}, {8, 3});
      // Self or target broadcast, their gradients summed back; divisors of D3 and D4.
      add(f32, f32, f32, kNone, log_target, {3, 5}, {3, 1}, {3, 5});
      add(f32, f32, f32, kMean, log_target, {3, 5}, {3, 5}, {3, 1});
      add(f32, f32, f32, kBatchMean, log_target, {1, 1, 1}, {5, 1}, {3, 1, 7});
      add(f32, f32, f32, kSum, log_target, {3, 1, 1}, {3, 5, 1}, {6, 3, 1, 7});
      add(f32, f32, f32, kMean, log_target, {64, 130}, {64, 1}, {130});
      add(f32, f32, f32, kSum, log_target, {5000}, {}, {5000});
      // 16-bit operands and results, mixed dtypes.
      add(f16, f16, f16, kNone, log_target, {7, 9}, {7, 9}, {7, 9});
      add(bf16, bf16, bf16, kMean, log_target, {3, 4, 5}, {3, 4, 5}, {3, 4, 5});
      add(f16, f32, f16, kBatchMean, log_target, {3, 4, 6}, {3, 4, 6}, {3, 4, 1});
      add(bf16, f16, f32, kNone, log_target, {2, 9}, {2, 1}, {2, 9});
      // Rank 8 and 0-D.
      add(f32, f32, f32, kNone, log_target, {1}, {2, 1, 2, 1, 2, 1, 2, 3},
          {1, 2, 1, 2, 1, 2, 1, 3});
      add(f32, f32, f32, kNone, log_target, {}, {}, {});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(BothGradients, KlDivGradientValues, ::testing::ValuesIn(GradientCases()));

// CANN's example's data: fp32 [2,2], gradOutput = self = target = {2, 3, 5, 8}, none, logTarget
// false: -g t = -4, -9, -25, -64.
TEST(KlDivGradientValues, CannsExampleGivesItsDigits) {
  const std::vector<float> data = {2, 3, 5, 8};
  DeviceTensor grad({2, 2}, ACL_FLOAT, data), self({2, 2}, ACL_FLOAT, data),
      target({2, 2}, ACL_FLOAT, data), out({2, 2}, ACL_FLOAT, {});
  ASSERT_EQ(RunGradient(kApi, grad, self, target, kNone, false, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read(), (std::vector<float>{-4, -9, -25, -64}));
}

// The non-finite classes and zero signs: -g t with t = +0 and g = 1 is -0 (CANN's "-0 g"); log
// targets' e^t never underflows to 0 beside an infinite g (t = -200: -inf, where fp32's e^t * inf
// is NaN).
TEST(KlDivGradientValues, SpecialValuesTakeTheFormulasClasses) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> g = {1, inf, -2, inf, 0};
  const std::vector<float> t = {0.0f, -200, 3, 0.5f, -inf};
  DeviceTensor grad({5}, ACL_FLOAT, {}), self({5}, ACL_FLOAT, {}), target({5}, ACL_FLOAT, {}),
      out({5}, ACL_FLOAT, {});
  UploadWithSpecials(grad, ACL_FLOAT, g);
  UploadWithSpecials(target, ACL_FLOAT, t);
  ASSERT_EQ(RunGradient(kApi, grad, self, target, kNone, false, out), ACLNN_SUCCESS);
  std::vector<float> got = out.Read();
  EXPECT_EQ(got[0], 0.0f);
  EXPECT_TRUE(std::signbit(got[0]));
  EXPECT_EQ(got[1], inf);  // -inf * -200
  EXPECT_EQ(got[2], 6.0f);
  EXPECT_EQ(got[3], -inf);
  EXPECT_TRUE(std::isnan(got[4]));  // -(0 * -inf)
  ASSERT_EQ(RunGradient(kApi, grad, self, target, kNone, true, out), ACLNN_SUCCESS);
  got = out.Read();
  EXPECT_TRUE(std::signbit(got[0]) && got[0] == -1.0f);
  EXPECT_EQ(got[1], -inf);
  EXPECT_EQ(got[3], -inf);
  EXPECT_TRUE(got[4] == 0.0f && std::signbit(got[4]));  // -(0 e^-inf)
  EXPECT_TRUE(CorrectlyRounded(got[2], KlGradSelf(-2, 3, true), ACL_FLOAT));
}

}  // namespace
}  // namespace openaclnn::testing
