// aclnnBinaryCrossEntropyWithLogitsBackward and ...TargetBackward through their C API: CANN's UT
// cases under OpenACLNN's contract (docs/contract/checks-and-codes.md §3), and values against fp64
// derivatives.
#include <cmath>
#include <functional>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;

// The two gradient APIs share a signature; a test runs against either.
struct GradientApi {
  const char* name;
  decltype(&aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize) plan;
  aclnnStatus (*launch)(void*, uint64_t, aclOpExecutor*, aclrtStream);
  // d loss / d (self or target) in fp64, before gradOutput and the mean scaling.
  double (*exact)(double x, double t, double w, double p);
};

double ExactGradSelf(double x, double t, double w, double p) {
  return w * ((1 + (p - 1) * t) * ExactSigmoid(x) - p * t);
}

double ExactGradTarget(double x, double, double w, double p) {
  const double softplus_neg = x > 0 ? std::log1p(std::exp(-x)) : -x + std::log1p(std::exp(x));
  return w * (p * softplus_neg - (softplus_neg + x));
}

aclnnStatus LaunchSelf(void* ws, uint64_t size, aclOpExecutor* executor, aclrtStream stream) {
  return aclnnBinaryCrossEntropyWithLogitsBackward(ws, size, executor, stream);
}

const GradientApi kApis[] = {
    {"aclnnBinaryCrossEntropyWithLogitsBackward",
     &aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize, &LaunchSelf, &ExactGradSelf},
    {"aclnnBinaryCrossEntropyWithLogitsTargetBackward",
     &aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize,
     &aclnnBinaryCrossEntropyWithLogitsTargetBackward, &ExactGradTarget}};

class GradientChecks : public ::testing::TestWithParam<GradientApi> {
 protected:
  aclnnStatus Plan(const DeviceTensor* grad, const DeviceTensor* self, const DeviceTensor* target,
                   const DeviceTensor* weight, const DeviceTensor* pos_weight, int64_t reduction,
                   const DeviceTensor* out) {
    auto get = [](const DeviceTensor* t) { return t ? t->get() : nullptr; };
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status =
        GetParam().plan(get(grad), get(self), get(target), get(weight), get(pos_weight), reduction,
                        get(out), &workspace_size, &executor);
    if (status == ACLNN_SUCCESS) {
      EXPECT_EQ(workspace_size, 0u);
      last_executor_ = executor;
    }
    return status;
  }
  aclnnStatus Launch() {
    const aclnnStatus status =
        GetParam().launch(nullptr, 0, last_executor_, AclEnvironment::stream);
    EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
    return status;
  }
  aclOpExecutor* last_executor_ = nullptr;
};

TEST_P(GradientChecks, NullTensorsAreRejectedByName) {
  const Shape shape{2, 3};
  DeviceTensor g(shape, ACL_FLOAT, {}), x(shape, ACL_FLOAT, {}), t(shape, ACL_FLOAT, {}),
      out(shape, ACL_FLOAT, {});
  EXPECT_EQ(Plan(nullptr, &x, &t, nullptr, nullptr, 0, &out), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("argument gradOutput"));
  EXPECT_EQ(Plan(&g, nullptr, &t, nullptr, nullptr, 0, &out), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("argument self"));
  EXPECT_EQ(Plan(&g, &x, nullptr, nullptr, nullptr, 0, &out), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("argument target"));
  EXPECT_EQ(Plan(&g, &x, &t, nullptr, nullptr, 0, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions(GetParam().name));
}

TEST_P(GradientChecks, UnsupportedDtypesAreRejected) {
  const Shape shape{2, 3};
  DeviceTensor f(shape, ACL_FLOAT, {}), i64(shape, ACL_INT64, {}), d(shape, ACL_DOUBLE, {});
  EXPECT_EQ(Plan(&i64, &i64, &i64, nullptr, nullptr, 0, &i64), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("DT_INT64"));
  EXPECT_EQ(Plan(&f, &f, &i64, nullptr, nullptr, 0, &i64), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(Plan(&f, &f, &f, nullptr, nullptr, 0, &i64), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(Plan(&f, &f, &f, &d, nullptr, 0, &f), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("weight has dtype DT_DOUBLE"));
  DeviceTensor half(shape, ACL_FLOAT16, {});
  EXPECT_EQ(Plan(&f, &f, &f, nullptr, nullptr, 0, &half), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("must equal target dtype"));
}

TEST_P(GradientChecks, RankAboveEightIsRejected) {
  const Shape shape{1, 2, 1, 2, 1, 2, 1, 2, 1};
  DeviceTensor g(shape, ACL_FLOAT, {}), x(shape, ACL_FLOAT, {}), t(shape, ACL_FLOAT, {}),
      out(shape, ACL_FLOAT, {});
  EXPECT_EQ(Plan(&g, &x, &t, nullptr, nullptr, 2, &out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("rank 9"));
}

TEST_P(GradientChecks, OutFormatMustMatchSelf) {
  const Shape shape{2, 3, 4, 5};
  DeviceTensor g(shape, ACL_FLOAT, {}), x(shape, ACL_FLOAT, {}), t(shape, ACL_FLOAT, {});
  const int64_t dims[] = {2, 3, 4, 5};
  DeviceTensor storage(shape, ACL_FLOAT, {});
  aclTensor* nchw =
      aclCreateTensor(dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, dims, 4, storage.device());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(GetParam().plan(g.get(), x.get(), t.get(), nullptr, nullptr, 0, nchw, &workspace_size,
                            &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("format"));
  aclDestroyTensor(nchw);
}

TEST_P(GradientChecks, ShapesMustMatchOrBroadcastIntoSelf) {
  DeviceTensor g({3, 1, 4, 2, 5}, ACL_FLOAT, {}), x({1, 2, 3, 4, 5}, ACL_FLOAT, {}),
      t({5, 4, 3, 2, 1}, ACL_FLOAT, {}), out({}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(&g, &x, &t, nullptr, nullptr, 0, &out), ACLNN_ERR_PARAM_INVALID);
  DeviceTensor self({4, 5}, ACL_FLOAT, {}), target({4, 5}, ACL_FLOAT, {}),
      grad_out({4, 5}, ACL_FLOAT, {}), enlarging({2, 4, 5}, ACL_FLOAT, {}),
      column({4, 1}, ACL_FLOAT, {}), scalar({}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(&enlarging, &self, &target, nullptr, nullptr, 0, &grad_out),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput shape [2,4,5] cannot broadcast into self shape [4,5]"));
  EXPECT_EQ(Plan(&scalar, &self, &target, &column, &scalar, 1, &grad_out), ACLNN_SUCCESS);
  aclDestroyAclOpExecutor(last_executor_);
}

TEST_P(GradientChecks, ReductionOutsideZeroToTwoIsRejected) {
  const Shape shape{3};
  DeviceTensor g(shape, ACL_FLOAT, {}), x(shape, ACL_FLOAT, {}), t(shape, ACL_FLOAT, {}),
      out(shape, ACL_FLOAT, {});
  EXPECT_EQ(Plan(&g, &x, &t, nullptr, nullptr, 3, &out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("Reduction only support [0, 1, 2]"));
}

TEST_P(GradientChecks, EmptySelfSucceedsWithNothingToDo) {
  const Shape shape{2, 0};
  DeviceTensor g(shape, ACL_FLOAT, {}), x(shape, ACL_FLOAT, {}), t(shape, ACL_FLOAT, {}),
      out(shape, ACL_FLOAT, {});
  ASSERT_EQ(Plan(&g, &x, &t, nullptr, nullptr, 1, &out), ACLNN_SUCCESS);
  EXPECT_EQ(Launch(), ACLNN_SUCCESS);
}

// The spec's documented example: [2,2], g = x = w = p = {0,1,2,3}, t = 0.1, reduction none;
// then a mean over a [3,7] batch with a [1] gradOutput, per-column weight, fp16 output.
TEST_P(GradientChecks, ValuesMatchTheExactDerivative) {
  const std::vector<float> ramp = {0, 1, 2, 3};
  DeviceTensor g({2, 2}, ACL_FLOAT, ramp), x({2, 2}, ACL_FLOAT, ramp),
      t({2, 2}, ACL_FLOAT, std::vector<float>(4, 0.1f)), w({2, 2}, ACL_FLOAT, ramp),
      p({2, 2}, ACL_FLOAT, ramp), out({2, 2}, ACL_FLOAT, {});
  ASSERT_EQ(Plan(&g, &x, &t, &w, &p, 0, &out), ACLNN_SUCCESS);
  ASSERT_EQ(Launch(), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  const double t_value = static_cast<double>(0.1f);
  for (int i = 0; i < 4; ++i) {
    const double exact = ramp[i] * GetParam().exact(ramp[i], t_value, ramp[i], ramp[i]);
    EXPECT_NEAR(got[i], exact, 4 * 0x1p-24 * std::fabs(exact) + 1e-30) << i;
  }

  std::vector<float> logits(21), targets(21), column_weight(7);
  for (int i = 0; i < 21; ++i) {
    logits[i] = -4.0f + 0.4f * i;
    targets[i] = (i % 5) / 4.0f;
  }
  for (int c = 0; c < 7; ++c) column_weight[c] = 0.25f * (c + 1);
  DeviceTensor grad1({1}, ACL_FLOAT, {0.5f}), x2({3, 7}, ACL_FLOAT, logits),
      t2({3, 7}, ACL_FLOAT16, targets), w2({7}, ACL_FLOAT, column_weight),
      out2({3, 7}, ACL_FLOAT16, {});
  ASSERT_EQ(Plan(&grad1, &x2, &t2, &w2, nullptr, 1, &out2), ACLNN_SUCCESS);
  ASSERT_EQ(Launch(), ACLNN_SUCCESS);
  const std::vector<float> got2 = out2.Read();
  for (int i = 0; i < 21; ++i) {
    const double exact =
        0.5 * GetParam().exact(logits[i], targets[i], column_weight[i % 7], 1) / 21;
    EXPECT_NEAR(got2[i], exact, 0x1p-11 * std::fabs(exact) + 1e-12) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(BothGradients, GradientChecks, ::testing::ValuesIn(kApis),
                         [](const ::testing::TestParamInfo<GradientApi>& param) {
                           return param.index == 0 ? std::string("Self") : std::string("Target");
                         });

}  // namespace
}  // namespace openaclnn::testing
