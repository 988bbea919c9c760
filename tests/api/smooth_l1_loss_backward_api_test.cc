// aclnnSmoothL1LossBackward and openaclnnHuberLossBackward through their C API: CANN's UT cases
// by their intent, OpenACLNN's decisions (docs/contract/checks-and-codes.md §21, §23), every
// check's status code, its order and its message, and values against a long-double reference.
#include <cmath>
#include <limits>
#include <string>

#include "smooth_l1_loss_api.h"

namespace openaclnn::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Every tensor of one call, each of its own shape and dtype.
struct Tensors {
  Tensors(const Shape& g, const Shape& x, const Shape& t, const Shape& out_shape,
          aclDataType dtype = ACL_FLOAT)
      : grad(g, dtype, Spread(ElementCount(g), -2, 2)),
        self(x, dtype, Spread(ElementCount(x), -2, 2, 0.3f)),
        target(t, dtype, Spread(ElementCount(t), -2, 2, 0.9f)),
        out(out_shape, dtype, {}) {}
  Call Args(int64_t reduction, double beta = 1.0, Api api = Api::kSmoothL1LossBackward) const {
    return {api, grad.get(), self.get(), target.get(), reduction, beta, out.get()};
  }
  DeviceTensor grad, self, target, out;
};

// --- CANN's UT cases (24 TEST_F, 43 calls), by their intent ---

TEST(SmoothL1LossBackwardCann, NullTensorsAre161001) {
  const Shape empty{1, 0, 4, 1};
  Tensors t(empty, empty, empty, empty);
  const Call call = t.Args(0);
  const struct {
    const aclTensor* Call::*member;
    const char* name;
  } inputs[] = {{&Call::grad, "gradOut"}, {&Call::self, "self"}, {&Call::target, "target"}};
  for (const auto& input : inputs) {
    Call missing = call;
    missing.*input.member = nullptr;
    EXPECT_EQ(Plan(missing), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(ErrorMentions(std::string("got null for argument ") + input.name + "."));
  }
  Call missing = call;
  missing.out = nullptr;
  EXPECT_EQ(Plan(missing), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument gradInput."));
}

// case_normal, case_dtype_float/float16/promote, ascend910B2_case_dtype_bfloat16, case_empty_tensor
// and ascend950_case_empty_tensor, case_broadcast_succ_1/2.
TEST(SmoothL1LossBackwardCann, ItsAcceptedCasesAreAccepted) {
  Tensors normal({1}, {1}, {1}, {1});
  EXPECT_EQ(Plan(normal.Args(0)), ACLNN_SUCCESS);
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    Tensors t({1, 4, 4, 1}, {1, 4, 4, 1}, {1, 4, 4, 1}, {1, 4, 4, 1}, dtype);
    EXPECT_EQ(Plan(t.Args(0)), ACLNN_SUCCESS);
  }
  const Shape shape{1, 4, 4, 1};
  DeviceTensor half(shape, ACL_FLOAT16, {}), f32(shape, ACL_FLOAT, {}), out(shape, ACL_FLOAT16, {});
  EXPECT_EQ(
      Plan({Api::kSmoothL1LossBackward, half.get(), f32.get(), half.get(), 0, 1.0, out.get()}),
      ACLNN_SUCCESS);
  Tensors empty({1, 0, 4, 1}, {1, 0, 4, 1}, {1, 0, 4, 1}, {1, 0, 4, 1});
  uint64_t workspace_size = 1;
  EXPECT_EQ(Plan(empty.Args(0), &workspace_size), ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  Tensors empty_broadcast({1, 0, 4, 1}, {4, 1}, {1, 4, 2}, {1, 0, 4, 2});
  EXPECT_EQ(Plan(empty_broadcast.Args(0)), ACLNN_SUCCESS);
  Tensors broadcast({1, 2, 4, 1}, {4, 1}, {1, 4, 2}, {1, 2, 4, 2});
  EXPECT_EQ(Plan(broadcast.Args(0)), ACLNN_SUCCESS);
}

// case_dtype_invalid: a double in each of the four places.
TEST(SmoothL1LossBackwardCann, ADoubleAnywhereIs161002) {
  const Shape shape{1, 4, 4, 1};
  const char* names[] = {"gradOut", "self", "target", "gradInput"};
  for (int which = 0; which < 4; ++which) {
    const auto dtype = [&](int k) { return k == which ? ACL_DOUBLE : ACL_FLOAT; };
    DeviceTensor g(shape, dtype(0), {}), x(shape, dtype(1), {}), t(shape, dtype(2), {}),
        out(shape, dtype(3), {});
    EXPECT_EQ(Plan({Api::kSmoothL1LossBackward, g.get(), x.get(), t.get(), 0, 1.0, out.get()}),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions(std::string(names[which]) + " has dtype DT_DOUBLE"));
  }
}

// case_dim, case_reduction and the ascend950 reduction cases (also over an empty broadcast),
// case_broadcast_fail_1/2, case_beta.
TEST(SmoothL1LossBackwardCann, ItsRefusedCasesAre161002) {
  const Shape nine{1, 1, 4, 1, 1, 1, 1, 1, 1};
  Tensors rank9(nine, nine, nine, nine);
  EXPECT_EQ(Plan(rank9.Args(0)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOut (DT_FLOAT [1,1,4,1,1,1,1,1,1]) has rank 9; at most 8"));
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    Tensors full({1, 1, 4, 1}, {1, 1, 4, 1}, {1, 1, 4, 1}, {1, 1, 4, 1}, dtype);
    Tensors empty({1, 0, 4, 1}, {4, 1}, {1, 4, 2}, {1, 0, 4, 2}, dtype);
    for (int64_t reduction = 0; reduction <= 3; ++reduction) {
      const aclnnStatus expected = reduction < 3 ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
      EXPECT_EQ(Plan(full.Args(reduction)), expected);
      EXPECT_EQ(Plan(empty.Args(reduction)), expected);
    }
  }
  Tensors fail1({1, 1, 4, 1}, {3, 3}, {1, 4, 2}, {1, 1, 4, 2});
  EXPECT_EQ(Plan(fail1.Args(0)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOut shape [1,1,4,1] and self shape [3,3] cannot broadcast"));
  Tensors fail2({1, 1, 4, 1}, {4, 3}, {1, 4, 2}, {1, 1, 4, 3});
  EXPECT_EQ(Plan(fail2.Args(0)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("their broadcast shape [1,1,4,3] and target shape [1,4,2] cannot"));
  Tensors beta({1, 1, 4, 1}, {4, 2}, {1, 4, 2}, {1, 1, 4, 2});
  EXPECT_EQ(Plan(beta.Args(0)), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(beta.Args(0, -1)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("aclnnSmoothL1LossBackward: beta is -1; beta should be greater than "
                    "or equal to 0"));
}

// case_not_contiguous (every tensor a transposed view, gradInput too) and case_format.
TEST(SmoothL1LossBackwardCann, ViewsAndFormatsAreAccepted) {
  const auto view = [] {
    return DeviceTensor({5, 4}, ACL_FLOAT, Spread(20, 1, 10), {1, 5}, 0, {4, 5});
  };
  DeviceTensor g = view(), x = view(), t = view(), out = view();
  EXPECT_EQ(Plan({Api::kSmoothL1LossBackward, g.get(), x.get(), t.get(), 0, 1.0, out.get()}),
            ACLNN_SUCCESS);
  DeviceTensor memory({1, 1, 4, 4}, ACL_FLOAT, {});
  for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND, ACL_FORMAT_HWCN,
                           ACL_FORMAT_NDHWC, ACL_FORMAT_NCDHW, ACL_FORMAT_NCL}) {
    FormattedTensor tensor({1, 1, 4, 4}, ACL_FLOAT, format, memory.device()),
        result({1, 1, 4, 4}, ACL_FLOAT, format, memory.device());
    EXPECT_EQ(Plan({Api::kSmoothL1LossBackward, tensor.get(), tensor.get(), tensor.get(), 0, 1.0,
                    result.get()}),
              ACLNN_SUCCESS)
        << format;
  }
}

// --- The checks, their codes, order and messages: both Backwards (Huber's are SmoothL1's) ---

class BackwardChecks : public ::testing::TestWithParam<Api> {
 protected:
  Api api() const { return GetParam(); }
  std::string grad_name() const { return IsHuber(api()) ? "gradOutput" : "gradOut"; }
};

TEST_P(BackwardChecks, NullWorkspaceSizeOrExecutorIs161001BeforeAnyTensor) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const Call call{api()};
  EXPECT_EQ(GetWorkspaceSize(call, nullptr, &executor), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions(std::string(ApiName(api())) + ": workspaceSize is nullptr."));
  EXPECT_EQ(GetWorkspaceSize(call, &workspace_size, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor is nullptr."));
  EXPECT_EQ(Plan(call), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument " + grad_name() + "."));
}

// CANN's order: dtypes, ranks, reduction, the attribute, then promotion and shapes (so a bad
// attribute is reported before a shape mismatch, unlike the forward).
TEST_P(BackwardChecks, DtypesRanksReductionAttributeThenShapes) {
  const Shape nine{1, 1, 1, 1, 1, 1, 1, 1, 2};
  DeviceTensor f32({4}, ACL_FLOAT, {}), i64({4}, ACL_INT64, {}), deep(nine, ACL_FLOAT, {}),
      wrong({5}, ACL_FLOAT, {});
  const auto call = [&](const DeviceTensor& g, const DeviceTensor& x, const DeviceTensor& out,
                        int64_t reduction, double attribute) {
    return Plan({api(), g.get(), x.get(), f32.get(), reduction, attribute, out.get()});
  };
  EXPECT_EQ(call(deep, f32, i64, 5, -1), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradInput has dtype DT_INT64"));
  EXPECT_EQ(call(f32, deep, f32, 5, -1), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT [1,1,1,1,1,1,1,1,2]) has rank 9"));
  EXPECT_EQ(call(f32, wrong, f32, 5, -1), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("reduction is 5; Reduction only support [0, 1, 2]"));
  EXPECT_EQ(call(f32, wrong, f32, 1, -1), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions(IsHuber(api()) ? "delta is -1" : "beta is -1"));
  EXPECT_EQ(call(f32, wrong, f32, 1, 1), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions(grad_name() + " shape [4] and self shape [5] cannot broadcast"));
  EXPECT_EQ(call(f32, f32, wrong, 1, 1), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("gradInput shape [5] must be the broadcast shape of the three "
                    "inputs, [4]."));
}

TEST_P(BackwardChecks, TheAttributesRangeIsTorchs) {
  Tensors t({3}, {3}, {3}, {3});
  const bool huber = IsHuber(api());
  for (double attribute : {0.0, 1e-300, 2.5, HUGE_VAL, -1e-45, -HUGE_VAL, std::nan("")}) {
    const bool accepted = huber ? attribute > 0 : static_cast<float>(attribute) >= 0;
    EXPECT_EQ(Plan(t.Args(0, attribute, api())), accepted ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID)
        << attribute;
  }
}

// gradInput has the broadcast shape of all three inputs: a 0-D gradOut (a mean's or sum's) takes
// broadcast(self, target), a larger one enlarges it; any other shape is refused.
TEST_P(BackwardChecks, GradInputHasTheBroadcastShapeOfTheInputs) {
  DeviceTensor scalar({}, ACL_FLOAT, {}), row({3}, ACL_FLOAT, {}), column({2, 1}, ACL_FLOAT, {}),
      full({2, 3}, ACL_FLOAT, {}), big({4, 2, 3}, ACL_FLOAT, {});
  const auto call = [&](const DeviceTensor& g, const DeviceTensor& out) {
    return Plan({api(), g.get(), row.get(), column.get(), 1, 1.0, out.get()});
  };
  EXPECT_EQ(call(scalar, full), ACLNN_SUCCESS);
  EXPECT_EQ(call(big, big), ACLNN_SUCCESS);
  EXPECT_EQ(call(scalar, big), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(call(scalar, row), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradInput shape [3] must be the broadcast shape"));
}

TEST_P(BackwardChecks, Bf16FollowsTheSocProfile) {
  const Shape shape{4};
  ScopedSocVersion soc("Ascend310P3");
  for (int which = 0; which < 4; ++which) {
    const auto dtype = [&](int k) { return k == which ? ACL_BF16 : ACL_FLOAT16; };
    DeviceTensor g(shape, dtype(0), {}), x(shape, dtype(1), {}), t(shape, dtype(2), {}),
        out(shape, dtype(3), {});
    EXPECT_EQ(Plan({api(), g.get(), x.get(), t.get(), 0, 1.0, out.get()}), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("has dtype DT_BF16 (27), which Ascend310P3 does not support"));
  }
}

INSTANTIATE_TEST_SUITE_P(Apis, BackwardChecks,
                         ::testing::Values(Api::kSmoothL1LossBackward, Api::kHuberLossBackward),
                         ApiCaseName);

// --- Values against the long-double reference ---

struct BackwardCase {
  Api api;
  aclDataType dtype;
  int64_t reduction;
  double attribute;
  Shape grad_shape, self_shape, target_shape;
};

class BackwardValues : public ::testing::TestWithParam<BackwardCase> {};

TEST_P(BackwardValues, AreTheExactValueRoundedOnce) {
  const BackwardCase c = GetParam();
  ExpectCorrectlyRounded(
      {.api = c.api,
       .reduction = c.reduction,
       .attribute = c.attribute,
       .grad = {c.grad_shape, c.dtype, Spread(ElementCount(c.grad_shape), -3, 3, 0.577f)},
       .self = {c.self_shape, c.dtype, Spread(ElementCount(c.self_shape), -5, 5)},
       .target = {c.target_shape, c.dtype, Spread(ElementCount(c.target_shape), -3, 3, 0.4142f)},
       .out_dtype = c.dtype});
}

std::vector<BackwardCase> BackwardCases() {
  std::vector<BackwardCase> cases;
  for (Api api : {Api::kSmoothL1LossBackward, Api::kHuberLossBackward}) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (int64_t reduction : {0, 1, 2}) {
        // A mean's or sum's gradOut is 0-D (as in CANN's ATK cases), none's full.
        const Shape grad = reduction == 0 ? Shape{6, 7} : Shape{};
        for (double attribute : {1.0, 0.5, 3.0, 1e-7, 0.0, HUGE_VAL}) {
          if (IsHuber(api) && attribute == 0.0) continue;
          cases.push_back({api, dtype, reduction, attribute, grad, {6, 7}, {6, 7}});
        }
        cases.push_back({api, dtype, reduction, 1.0, {6, 7}, {6, 7}, {6, 7}});  // a full one
        // D4: self [1,5] broadcast over target [4,5]: a mean divides by 20, not self's 5.
        cases.push_back({api, dtype, reduction, 1.0, {}, {1, 5}, {4, 5}});
        cases.push_back({api, dtype, reduction, 1.0, {3, 1, 1}, {4, 1}, {5}});     // all broadcast
        cases.push_back({api, dtype, reduction, 2.0, {}, {}, {}});                 // 0-D
        cases.push_back({api, dtype, reduction, 1.0, {2, 1}, {2, 4500}, {4500}});  // 2 blocks+
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, BackwardValues, ::testing::ValuesIn(BackwardCases()));

TEST(BackwardValues, MixedDtypesRoundOnceIntoGradInput) {
  const Shape shape{5, 9};
  for (Api api : {Api::kSmoothL1LossBackward, Api::kHuberLossBackward}) {
    for (aclDataType out : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      ExpectCorrectlyRounded({.api = api,
                              .reduction = 1,
                              .attribute = 0.75,
                              .grad = {{9}, ACL_BF16, Spread(9, -3, 3, 0.77f)},
                              .self = {shape, ACL_FLOAT, Spread(45, -4, 4, 0.1234567f)},
                              .target = {shape, ACL_FLOAT16, Spread(45, -2, 2, 0.31f)},
                              .out_dtype = out});
    }
  }
}

// numerics-smooth-l1-loss.md §3's table: an infinite d takes the linear branch (finite for a
// finite g); an infinite g is NaN where the formula multiplies it by 0; a NaN d or g is NaN.
TEST(BackwardValues, NonFiniteInputsTakeTheFormulasClass) {
  const std::vector<float> g = {1, -2, 0, kInf, kInf, kInf, kNaN, 3, 0.5f};
  const std::vector<float> x = {kInf, -kInf, kInf, 0.5f, 1, 1, 1, kNaN, 2};
  const std::vector<float> t = {0, 1, 0, 0, 1, 0, 0, 0, kInf};
  const int64_t n = static_cast<int64_t>(g.size());
  for (Api api : {Api::kSmoothL1LossBackward, Api::kHuberLossBackward}) {
    for (double attribute : {1.0, 0.0, HUGE_VAL}) {
      if (IsHuber(api) && attribute == 0.0) continue;
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        DeviceTensor grad({n}, dtype, {}), self({n}, dtype, {}), target({n}, dtype, {}),
            out({n}, dtype, {});
        UploadWithSpecials(grad, dtype, g);
        UploadWithSpecials(self, dtype, x);
        UploadWithSpecials(target, dtype, t);
        ASSERT_EQ(RunOp({api, grad.get(), self.get(), target.get(), 0, attribute, out.get()}),
                  ACLNN_SUCCESS);
        const std::vector<float> got = out.Read(), gs = grad.Read(), xs = self.Read();
        for (int64_t i = 0; i < n; ++i) {
          EXPECT_TRUE(
              CorrectlyRounded(got[i], ExactGradient(api, gs[i], xs[i], t[i], attribute), dtype))
              << ApiName(api) << " attribute " << attribute << " element " << i;
        }
        EXPECT_TRUE(std::isnan(got[4]) && std::isnan(got[6]) && std::isnan(got[7]));
      }
    }
  }
}

// The contract's signs: an exact zero gradient has g's sign times d's (d = -0 only for x = -0,
// t = +0); beta = 0 at d = 0 is 0 (PyTorch gives -g there, CANN's kernel NaN: D5).
TEST(BackwardValues, ZeroGradientsCarryTheSignOfGTimesD) {
  DeviceTensor grad({4}, ACL_FLOAT, {-1, 2, 0, -3}), self({4}, ACL_FLOAT, {1, -0.0f, 5, 0.0f}),
      target({4}, ACL_FLOAT, {1, 0, 2, 0}), out({4}, ACL_FLOAT, {7, 7, 7, 7});
  for (double beta : {0.0, 1.0}) {
    ASSERT_EQ(RunOp({Api::kSmoothL1LossBackward, grad.get(), self.get(), target.get(), 0, beta,
                     out.get()}),
              ACLNN_SUCCESS);
    const std::vector<float> got = out.Read();
    const bool negative[] = {true, true, false, true};  // -1 * +0, 2 * -0, 0 * +1, -3 * +0
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(got[i], 0.0f) << "beta " << beta << " element " << i;
      EXPECT_EQ(std::signbit(got[i]), negative[i]) << "beta " << beta << " element " << i;
    }
  }
}

// Over an empty broadcast shape: success, and nothing written.
TEST(BackwardValues, EmptyInputsWriteNothing) {
  for (Api api : {Api::kSmoothL1LossBackward, Api::kHuberLossBackward}) {
    Tensors t({1, 0, 4, 1}, {4, 1}, {1, 4, 2}, {1, 0, 4, 2});
    for (int64_t reduction : {0, 1, 2}) {
      ASSERT_EQ(RunOp(t.Args(reduction, 1.0, api)), ACLNN_SUCCESS);
    }
  }
}

TEST(BackwardValues, NonContiguousTensorsAreReadAndWrittenInPlace) {
  const std::vector<float> storage = Spread(50, -3, 3);
  DeviceTensor self({5, 10}, ACL_FLOAT, storage, {1, 5}, 0, {10, 5});
  DeviceTensor target({10}, ACL_FLOAT, Spread(10, -1, 1, 0.3f)), grad({}, ACL_FLOAT, {0.5f});
  DeviceTensor out({5, 10}, ACL_FLOAT, std::vector<float>(100, -1.0f), {20, 2}, 1, {5, 20});
  for (Api api : {Api::kSmoothL1LossBackward, Api::kHuberLossBackward}) {
    ASSERT_EQ(RunOp({api, grad.get(), self.get(), target.get(), 1, 0.5, out.get()}), ACLNN_SUCCESS);
    const std::vector<float> t = target.Read(), got = out.Read();
    for (int row = 0; row < 5; ++row) {
      for (int col = 0; col < 10; ++col) {
        const long double exact =
            ExactGradient(api, 0.5f, storage[col * 5 + row], t[col], 0.5) / 50;
        EXPECT_TRUE(CorrectlyRounded(got[row * 20 + 1 + 2 * col], exact, ACL_FLOAT));
        EXPECT_EQ(got[row * 20 + 2 * col], -1.0f);  // between the view's elements: untouched
      }
    }
  }
}

TEST(BackwardValues, ARepeatableExecutorFollowsNewAddresses) {
  DeviceTensor first({8}, ACL_FLOAT, Spread(8, -2, 2)), second({8}, ACL_FLOAT, Spread(8, -4, 4));
  DeviceTensor grad({}, ACL_FLOAT, {2}), target({8}, ACL_FLOAT, Spread(8, -1, 1, 0.2f)),
      out({8}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(openaclnnHuberLossBackwardGetWorkspaceSize(grad.get(), first.get(), target.get(), 1,
                                                       1.25, out.get(), &workspace_size, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  const std::vector<float> t = target.Read();
  for (const DeviceTensor* self : {&first, &second}) {
    ASSERT_EQ(aclSetInputTensorAddr(executor, 1, first.get(), self->device()), ACLNN_SUCCESS);
    ASSERT_EQ(LaunchAndWait(openaclnnHuberLossBackward, workspace_size, executor), ACLNN_SUCCESS);
    const std::vector<float> x = self->Read(), got = out.Read();
    for (int i = 0; i < 8; ++i) {
      const long double exact = ExactGradient(Api::kHuberLossBackward, 2, x[i], t[i], 1.25) / 8;
      EXPECT_TRUE(CorrectlyRounded(got[i], exact, ACL_FLOAT)) << i;
    }
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

// CANN's sample: [4,2] fp32, gradOut 1, self 0..7, target 1, none, beta 1.
TEST(BackwardValues, CannsSampleGivesItsDigits) {
  DeviceTensor grad({4, 2}, ACL_FLOAT, std::vector<float>(8, 1)),
      self({4, 2}, ACL_FLOAT, {0, 1, 2, 3, 4, 5, 6, 7}),
      target({4, 2}, ACL_FLOAT, std::vector<float>(8, 1)), out({4, 2}, ACL_FLOAT, {});
  ASSERT_EQ(
      RunOp({Api::kSmoothL1LossBackward, grad.get(), self.get(), target.get(), 0, 1.0, out.get()}),
      ACLNN_SUCCESS);
  EXPECT_EQ(out.Read(), (std::vector<float>{-1, 0, 1, 1, 1, 1, 1, 1}));
}

}  // namespace
}  // namespace openaclnn::testing
