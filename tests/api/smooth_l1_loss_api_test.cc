// aclnnSmoothL1Loss and openaclnnHuberLoss through their C API: CANN's UT cases by their intent,
// OpenACLNN's decisions (docs/contract/checks-and-codes.md §20, §22), every check's status code,
// its order and its message, and values against a long-double reference.
#include <cmath>
#include <limits>
#include <string>

#include "smooth_l1_loss_api.h"

namespace openaclnn::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// --- CANN's UT cases (8 TEST_F, 8 calls, every one beta 2 and accepted), by their intent ---

TEST(SmoothL1LossCann, EveryDtypeAndReductionOfItsCasesIsAccepted) {
  const struct {
    aclDataType dtype;
    int64_t reduction;
  } cases[] = {{ACL_FLOAT16, 0}, {ACL_FLOAT, 0}, {ACL_FLOAT16, 1}, {ACL_BF16, 0}};
  for (const auto& c : cases) {
    DeviceTensor self({3, 5}, c.dtype, Spread(15, -1, 1)),
        target({3, 5}, c.dtype, Spread(15, 0, 2)),
        out(c.reduction == 0 ? Shape{3, 5} : Shape{}, c.dtype, {});
    EXPECT_EQ(
        Plan({Api::kSmoothL1Loss, nullptr, self.get(), target.get(), c.reduction, 2.0, out.get()}),
        ACLNN_SUCCESS);
  }
}

// smooth_l1_loss_fp16_none_NCL and ..._boardcast_NCL: a format tag, and self [5,7] broadcast
// against target [3,5,7].
TEST(SmoothL1LossCann, NclTensorsAndBroadcastingAreAccepted) {
  DeviceTensor memory({3, 5, 7}, ACL_FLOAT16, Spread(105, -1, 1));
  for (const Shape& self_shape : {Shape{3, 5, 7}, Shape{5, 7}}) {
    FormattedTensor self(self_shape, ACL_FLOAT16, ACL_FORMAT_NCL, memory.device()),
        target({3, 5, 7}, ACL_FLOAT16, ACL_FORMAT_NCL, memory.device()),
        out({3, 5, 7}, ACL_FLOAT16, ACL_FORMAT_NCL, memory.device());
    EXPECT_EQ(Plan({Api::kSmoothL1Loss, nullptr, self.get(), target.get(), 0, 2.0, out.get()}),
              ACLNN_SUCCESS);
  }
}

TEST(SmoothL1LossCann, EmptyInputsAreAccepted) {
  DeviceTensor self({3, 0}, ACL_FLOAT16, {}), scalar({}, ACL_FLOAT16, {}),
      empty_out({3, 0}, ACL_FLOAT16, {});
  uint64_t workspace_size = 1;
  EXPECT_EQ(Plan({Api::kSmoothL1Loss, nullptr, self.get(), self.get(), 1, 2.0, scalar.get()},
                 &workspace_size),
            ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  EXPECT_EQ(Plan({Api::kSmoothL1Loss, nullptr, self.get(), self.get(), 0, 2.0, empty_out.get()}),
            ACLNN_SUCCESS);
}

// --- The checks, their codes, order and messages: both forwards (Huber's are SmoothL1Loss's) ---

class ForwardChecks : public ::testing::TestWithParam<Api> {
 protected:
  Api api() const { return GetParam(); }
  const char* out_name() const { return IsHuber(api()) ? "out" : "result"; }
  Call Args(const aclTensor* self, const aclTensor* target, int64_t reduction, aclTensor* out,
            double attribute = 1.0) const {
    return {api(), nullptr, self, target, reduction, attribute, out};
  }
};

TEST_P(ForwardChecks, NullWorkspaceSizeOrExecutorIs161001BeforeAnyTensor) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const Call call = Args(nullptr, nullptr, 0, nullptr);
  EXPECT_EQ(GetWorkspaceSize(call, nullptr, &executor), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions(std::string(ApiName(api())) + ": workspaceSize is nullptr."));
  EXPECT_EQ(GetWorkspaceSize(call, &workspace_size, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor is nullptr."));
}

TEST_P(ForwardChecks, NullTensorsAre161001InParameterOrder) {
  DeviceTensor x({4}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(Args(nullptr, nullptr, 0, nullptr)), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("Expected a proper Tensor but got null for argument self."));
  EXPECT_EQ(Plan(Args(x.get(), nullptr, 0, nullptr)), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument target."));
  EXPECT_EQ(Plan(Args(x.get(), x.get(), 0, nullptr)), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions(std::string("got null for argument ") + out_name() + "."));
}

// Inputs outside the list (double, integers), then the promotion's cast to out (an integer out),
// then out outside the list (double: CANN accepts it, D12).
TEST_P(ForwardChecks, DtypesAreCheckedInputsThenCastThenOut) {
  DeviceTensor f32({4}, ACL_FLOAT, {}), f64({4}, ACL_DOUBLE, {}), i32({4}, ACL_INT32, {});
  EXPECT_EQ(Plan(Args(f64.get(), i32.get(), 0, i32.get())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self has dtype DT_DOUBLE"));
  EXPECT_EQ(Plan(Args(f32.get(), i32.get(), 0, i32.get())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target has dtype DT_INT32"));
  EXPECT_EQ(Plan(Args(f32.get(), f32.get(), 0, i32.get())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions(std::string("the promoted type of dtype DT_FLOAT cannot be cast to ") +
                            out_name() + " dtype DT_INT32."));
  EXPECT_EQ(Plan(Args(f32.get(), f32.get(), 0, f64.get())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions(std::string(out_name()) + " has dtype DT_DOUBLE"));
}

// Mixed input dtypes promote (fp16 with bf16 to fp32); out may narrow or widen within the list.
TEST_P(ForwardChecks, InputsPromoteAndOutTakesAnyListedDtype) {
  DeviceTensor half({4}, ACL_FLOAT16, {}), brain({4}, ACL_BF16, {}), f32({4}, ACL_FLOAT, {});
  for (const DeviceTensor* out : {&half, &brain, &f32}) {
    EXPECT_EQ(Plan(Args(half.get(), brain.get(), 0, out->get())), ACLNN_SUCCESS);
    EXPECT_EQ(Plan(Args(f32.get(), half.get(), 0, out->get())), ACLNN_SUCCESS);
  }
}

TEST_P(ForwardChecks, Bf16FollowsTheSocProfile) {
  DeviceTensor brain({4}, ACL_BF16, {}), f32({4}, ACL_FLOAT, {});
  {
    ScopedSocVersion soc("Ascend910");
    EXPECT_EQ(Plan(Args(brain.get(), f32.get(), 0, f32.get())), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("self has dtype DT_BF16 (27), which Ascend910 does not support"));
    EXPECT_EQ(Plan(Args(f32.get(), f32.get(), 0, brain.get())), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("supported: DT_FLOAT, DT_FLOAT16."));
  }
  for (const char* soc_name : {"Ascend910B3", "Ascend910_9391", "Ascend950PR"}) {
    ScopedSocVersion soc(soc_name);
    EXPECT_EQ(Plan(Args(brain.get(), brain.get(), 0, brain.get())), ACLNN_SUCCESS) << soc_name;
  }
}

// Dtypes before reduction, reduction before shapes, shapes before the attribute (CANN's order).
TEST_P(ForwardChecks, ReductionThenShapesThenTheAttributeComeInCannsOrder) {
  DeviceTensor f32({4}, ACL_FLOAT, {}), f64({4}, ACL_DOUBLE, {}), wrong({5}, ACL_FLOAT, {}),
      scalar({}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(Args(f64.get(), f32.get(), 3, wrong.get(), -1)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self has dtype DT_DOUBLE"));
  for (int64_t reduction : {int64_t{3}, int64_t{-1}}) {
    EXPECT_EQ(Plan(Args(f32.get(), f32.get(), reduction, wrong.get(), -1)),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("; Reduction only support [0, 1, 2] (0 none, 1 mean, 2 sum)."));
  }
  EXPECT_EQ(Plan(Args(f32.get(), wrong.get(), 0, f32.get(), -1)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self shape [4] and target shape [5] cannot broadcast"));
  EXPECT_EQ(Plan(Args(f32.get(), f32.get(), 0, wrong.get(), -1)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions(std::string(out_name()) +
                            " shape [5] must be the broadcast shape of self and target, [4]."));
  EXPECT_EQ(Plan(Args(f32.get(), f32.get(), 1, scalar.get(), -1)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions(IsHuber(api()) ? "delta is -1; delta should be greater than 0"
                                           : "beta is -1; beta should be greater than or equal "
                                             "to 0"));
}

// beta >= 0 (0 is L1, +inf accepted; NaN refused as torch does); delta > 0 (+inf accepted).
TEST_P(ForwardChecks, TheAttributesRangeIsTorchs) {
  DeviceTensor f32({4}, ACL_FLOAT, {});
  const double nan = std::nan(""), inf = HUGE_VAL;
  const bool huber = IsHuber(api());
  for (double attribute : {0.0, -0.0, 1e-300, 1e-7, 1.0, 1e300, inf, -1e-45, -inf, nan}) {
    // Every beta is a float: 1e-300 is +0, 1e300 is +inf, -1e-45 stays below 0.
    const bool accepted = huber ? attribute > 0 : static_cast<float>(attribute) >= 0;
    EXPECT_EQ(Plan(Args(f32.get(), f32.get(), 0, f32.get(), attribute)),
              accepted ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID)
        << attribute;
    if (!accepted) {
      EXPECT_TRUE(ErrorMentions(huber ? "delta is " : "beta is "));
    }
  }
}

// D10: mean and sum write one element, of any shape; none the broadcast shape.
TEST_P(ForwardChecks, AMeanOrSumGoesIntoAnyOneElementOut) {
  DeviceTensor self({2, 3}, ACL_FLOAT, {}), row({3}, ACL_FLOAT, {});
  for (const Shape& shape : {Shape{}, Shape{1}, Shape{1, 1, 1}}) {
    DeviceTensor out(shape, ACL_FLOAT, {});
    EXPECT_EQ(Plan(Args(self.get(), row.get(), 1, out.get())), ACLNN_SUCCESS);
    EXPECT_EQ(Plan(Args(row.get(), self.get(), 2, out.get())), ACLNN_SUCCESS);
  }
  DeviceTensor two({2}, ACL_FLOAT, {}), full({2, 3}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(Args(self.get(), row.get(), 2, two.get())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions(std::string("with reduction mean or sum, ") + out_name() +
                            " must hold exactly one element (shape [] or [1]), but its shape is "
                            "[2]."));
  EXPECT_EQ(Plan(Args(self.get(), row.get(), 1, full.get())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(Plan(Args(row.get(), self.get(), 0, full.get())), ACLNN_SUCCESS);
}

TEST_P(ForwardChecks, RanksZeroToEightAreAcceptedNineIs161002) {
  DeviceTensor scalar({}, ACL_FLOAT, {0.5f});
  EXPECT_EQ(Plan(Args(scalar.get(), scalar.get(), 0, scalar.get())), ACLNN_SUCCESS);
  const Shape eight{1, 2, 1, 2, 1, 2, 1, 2}, nine{1, 2, 1, 2, 1, 2, 1, 2, 1};
  DeviceTensor self8(eight, ACL_FLOAT, {}), self9(nine, ACL_FLOAT, {});
  EXPECT_EQ(Plan(Args(self8.get(), scalar.get(), 1, scalar.get())), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(Args(self9.get(), scalar.get(), 1, scalar.get())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT [1,2,1,2,1,2,1,2,1]) has rank 9; at most 8"));
  EXPECT_EQ(Plan(Args(scalar.get(), self9.get(), 1, scalar.get())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target (DT_FLOAT [1,2,1,2,1,2,1,2,1]) has rank 9"));
}

TEST_P(ForwardChecks, ViewsOutsideTheirStorageAre161002) {
  DeviceTensor self({4, 4}, ACL_FLOAT, {}, {5, 1}, 0, {16}), target({4, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(Args(self.get(), target.get(), 0, target.get())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the view of self"));
}

INSTANTIATE_TEST_SUITE_P(Apis, ForwardChecks,
                         ::testing::Values(Api::kSmoothL1Loss, Api::kHuberLoss), ApiCaseName);

// --- Values against the long-double reference ---

struct ForwardCase {
  Api api;
  aclDataType dtype;
  int64_t reduction;
  double attribute;
  Shape self_shape, target_shape;
};

class ForwardValues : public ::testing::TestWithParam<ForwardCase> {};

TEST_P(ForwardValues, AreTheExactValueRoundedOnce) {
  const ForwardCase c = GetParam();
  ExpectCorrectlyRounded(
      {.api = c.api,
       .reduction = c.reduction,
       .attribute = c.attribute,
       .grad = {},
       .self = {c.self_shape, c.dtype, Spread(ElementCount(c.self_shape), -5, 5)},
       .target = {c.target_shape, c.dtype, Spread(ElementCount(c.target_shape), -3, 3, 0.4142f)},
       .out_dtype = c.dtype});
}

std::vector<ForwardCase> ForwardCases() {
  std::vector<ForwardCase> cases;
  for (Api api : {Api::kSmoothL1Loss, Api::kHuberLoss}) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (int64_t reduction : {0, 1, 2}) {
        // beta 0 is L1 and tiny betas are exact (CANN's kernel makes 0 < beta < 1e-6 quadratic
        // losses 0); +inf makes every finite loss 0 (Huber: d^2 / 2).
        for (double attribute : {1.0, 0.5, 2.0, 1e-7, 0.0, HUGE_VAL}) {
          if (IsHuber(api) && attribute == 0.0) continue;
          cases.push_back({api, dtype, reduction, attribute, {6, 7}, {6, 7}});
        }
        cases.push_back({api, dtype, reduction, 1.0, {3, 1, 5}, {4, 1}});  // both broadcast
        cases.push_back({api, dtype, reduction, 1.5, {}, {2, 3}});         // a 0-D self
        cases.push_back({api, dtype, reduction, 1.0, {3, 4100}, {4100}});  // several blocks
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, ForwardValues, ::testing::ValuesIn(ForwardCases()));

// Promotion, and an out of another dtype than the promoted one: the exact value rounded once
// into out (never twice through the promoted type).
TEST(ForwardValues, MixedDtypesRoundOnceIntoOut) {
  const Shape shape{5, 9};
  for (Api api : {Api::kSmoothL1Loss, Api::kHuberLoss}) {
    for (aclDataType out : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (int64_t reduction : {0, 1}) {
        ExpectCorrectlyRounded({.api = api,
                                .reduction = reduction,
                                .attribute = 0.75,
                                .grad = {},
                                .self = {shape, ACL_FLOAT16, Spread(45, -4, 4)},
                                .target = {shape, ACL_BF16, Spread(45, -2, 2, 0.31f)},
                                .out_dtype = out});
        ExpectCorrectlyRounded({.api = api,
                                .reduction = reduction,
                                .attribute = 0.75,
                                .grad = {},
                                .self = {shape, ACL_FLOAT, Spread(45, -4, 4, 0.1234567f)},
                                .target = {{9}, ACL_FLOAT16, Spread(9, -2, 2, 0.31f)},
                                .out_dtype = out});
      }
    }
  }
}

// Infinities and NaN take the formula as IEEE evaluates it (numerics-smooth-l1-loss.md §3).
TEST(ForwardValues, NonFiniteInputsTakeTheFormulasClass) {
  const std::vector<float> x = {kNaN, 1, kInf, -kInf, kInf, 3, 0.25f};
  const std::vector<float> t = {0, kNaN, 0, 5, kInf, -kInf, 0};
  for (Api api : {Api::kSmoothL1Loss, Api::kHuberLoss}) {
    for (double attribute : {1.0, HUGE_VAL}) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        DeviceTensor self({7}, dtype, {}), target({7}, dtype, {}), out({7}, dtype, {});
        UploadWithSpecials(self, dtype, x);
        UploadWithSpecials(target, dtype, t);
        ASSERT_EQ(RunOp({api, nullptr, self.get(), target.get(), 0, attribute, out.get()}),
                  ACLNN_SUCCESS);
        const std::vector<float> got = out.Read(), xs = self.Read();
        for (size_t i = 0; i < x.size(); ++i) {
          EXPECT_TRUE(CorrectlyRounded(got[i], ExactLoss(api, xs[i], t[i], attribute), dtype))
              << ApiName(api) << " attribute " << attribute << " element " << i;
        }
        EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1]) && std::isnan(got[4]));
        for (int i : {2, 3, 5}) {  // d = +-inf: +inf, or inf - inf = NaN for an infinite attribute
          EXPECT_TRUE(attribute == 1.0 ? got[i] == kInf : std::isnan(got[i])) << i;
        }
      }
    }
  }
}

// A loss is never -0: d = -0 (x = -0, t = +0) and results that round to zero are +0.
TEST(ForwardValues, ZeroLossesArePositive) {
  DeviceTensor self({3}, ACL_FLOAT, {-0.0f, 1e-30f, 2}), target({3}, ACL_FLOAT, {0.0f, 0, 2}),
      out({3}, ACL_FLOAT, {7, 7, 7});
  for (Api api : {Api::kSmoothL1Loss, Api::kHuberLoss}) {
    ASSERT_EQ(RunOp({api, nullptr, self.get(), target.get(), 0, 1.0, out.get()}), ACLNN_SUCCESS);
    for (float value : out.Read()) EXPECT_FALSE(std::signbit(value)) << ApiName(api);
  }
}

// Over no elements: mean NaN, sum 0 into every element of out, none nothing.
TEST(ForwardValues, EmptyInputsAverageToNaNAndSumToZero) {
  for (Api api : {Api::kSmoothL1Loss, Api::kHuberLoss}) {
    DeviceTensor self({3, 0}, ACL_FLOAT16, {}), target({0}, ACL_FLOAT, {}),
        mean({1, 1}, ACL_FLOAT16, {7}), sum({}, ACL_BF16, {7}), none({3, 0}, ACL_FLOAT, {});
    ASSERT_EQ(RunOp({api, nullptr, self.get(), target.get(), 1, 1.0, mean.get()}), ACLNN_SUCCESS);
    EXPECT_TRUE(std::isnan(mean.Read()[0]));
    ASSERT_EQ(RunOp({api, nullptr, self.get(), target.get(), 2, 1.0, sum.get()}), ACLNN_SUCCESS);
    EXPECT_EQ(sum.Read()[0], 0.0f);
    ASSERT_EQ(RunOp({api, nullptr, self.get(), target.get(), 0, 1.0, none.get()}), ACLNN_SUCCESS);
  }
}

TEST(ForwardValues, NonContiguousTensorsAreReadAndWrittenInPlace) {
  // self is the transpose of a [10,5] storage; out a strided view of a [5,20] one.
  const std::vector<float> storage = Spread(50, -3, 3);
  DeviceTensor self({5, 10}, ACL_FLOAT, storage, {1, 5}, 0, {10, 5});
  DeviceTensor target({5, 10}, ACL_FLOAT, Spread(50, -1, 1, 0.3f));
  DeviceTensor out({5, 10}, ACL_FLOAT, std::vector<float>(100, -1.0f), {20, 2}, 1, {5, 20});
  for (Api api : {Api::kSmoothL1Loss, Api::kHuberLoss}) {
    ASSERT_EQ(RunOp({api, nullptr, self.get(), target.get(), 0, 0.5, out.get()}), ACLNN_SUCCESS);
    const std::vector<float> t = target.Read(), got = out.Read();
    for (int row = 0; row < 5; ++row) {
      for (int col = 0; col < 10; ++col) {
        const long double exact = ExactLoss(api, storage[col * 5 + row], t[row * 10 + col], 0.5);
        EXPECT_TRUE(CorrectlyRounded(got[row * 20 + 1 + 2 * col], exact, ACL_FLOAT));
        EXPECT_EQ(got[row * 20 + 2 * col], -1.0f);  // between the view's elements: untouched
      }
    }
  }
}

// A repeatable executor follows new tensor addresses, and its attribute stays the one phase 1
// took.
TEST(ForwardValues, ARepeatableExecutorFollowsNewAddresses) {
  DeviceTensor first({8}, ACL_FLOAT, Spread(8, -2, 2)), second({8}, ACL_FLOAT, Spread(8, -4, 4));
  DeviceTensor target({8}, ACL_FLOAT, Spread(8, -1, 1, 0.2f)), out({}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnSmoothL1LossGetWorkspaceSize(first.get(), target.get(), 2, 0.5f, out.get(),
                                              &workspace_size, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  const std::vector<float> t = target.Read();
  for (const DeviceTensor* self : {&first, &second, &first}) {
    ASSERT_EQ(aclSetInputTensorAddr(executor, 0, first.get(), self->device()), ACLNN_SUCCESS);
    ASSERT_EQ(LaunchAndWait(aclnnSmoothL1Loss, workspace_size, executor), ACLNN_SUCCESS);
    const std::vector<float> x = self->Read();
    long double total = 0;
    for (int i = 0; i < 8; ++i) total += ExactLoss(Api::kSmoothL1Loss, x[i], t[i], 0.5);
    EXPECT_TRUE(CorrectlyRounded(out.Read()[0], total, ACL_FLOAT));
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

// CANN's sample: [2,2,7,7] fp16 tensors over float host data of 1 (their bytes: halves of 0 and
// 1.875 alternating), self and target alike, none, beta 1: every loss +0.
TEST(ForwardValues, CannsSampleGivesZeros) {
  std::vector<float> ones(196, 1.0f);
  const Shape shape{2, 2, 7, 7};
  DeviceTensor self(shape, ACL_FLOAT16, {}), out(shape, ACL_FLOAT16, std::vector<float>(196, 5));
  ASSERT_EQ(aclrtMemcpy(self.device(), 392, ones.data(), 392, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  ASSERT_EQ(RunOp({Api::kSmoothL1Loss, nullptr, self.get(), self.get(), 0, 1.0, out.get()}),
            ACLNN_SUCCESS);
  for (float value : out.Read()) EXPECT_EQ(value, 0.0f);
}

}  // namespace
}  // namespace openaclnn::testing
