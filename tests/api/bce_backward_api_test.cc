// aclnnBinaryCrossEntropyWithLogitsBackward and ...TargetBackward through their C API: CANN's UT
// cases under OpenACLNN's contract (docs/contract/checks-and-codes.md §3), and values against fp64
// derivatives.
#include <cmath>
#include <functional>
#include <limits>

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
  // The shapes of the other tensors are not compared, and an out the empty space could reduce
  // into is left alone: nothing runs.
  DeviceTensor one({1}, ACL_FLOAT, {5});
  ASSERT_EQ(Plan(&one, &x, &t, nullptr, nullptr, 1, &one), ACLNN_SUCCESS);
  EXPECT_EQ(Launch(), ACLNN_SUCCESS);
  EXPECT_EQ(one.Read(), std::vector<float>(1, 5.0f));
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

// Every NaN gradient is the one positive quiet NaN (docs/contract/numerics.md §4), on every
// route: 0 * inf from gradOutput and weight, NaN inputs of either sign passed on, and inf - inf
// in the target gradient's |x| terms; without weights (the 16-bit and fp32 target gradients'
// exact products) and with them. Each special input alone, in every fourth lane among ordinary
// ones (a vector with any other open lane would go to the fp64 path whole, which hides a fast
// path's NaN), through whole SIMD vectors and a remainder. Where the reference is not NaN the test
// asks nothing (the other tests check values).
TEST_P(GradientChecks, EveryNaNResultIsTheDefaultQuietNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t count = 53;
  struct Special {
    float x, w, g;
  };
  const Special unweighted[] = {{inf, 1, 0}, {-inf, 1, 0}, {-nan, 1, 0}, {0.5f, 1, -nan}};
  const Special weighted[] = {{0.5f, inf, 0}, {0.5f, 0, -inf}, {0.5f, -nan, 1}, {-nan, 2, 0}};
  const struct {
    aclDataType dtype;
    uint32_t nan_bits;
  } cases[] = {{ACL_FLOAT, 0x7fc00000u}, {ACL_FLOAT16, 0x7e00u}, {ACL_BF16, 0x7fc0u}};
  for (const auto& c : cases) {
    for (const bool with_weight : {false, true}) {
      int nan_results = 0;
      for (const Special& special : with_weight ? weighted : unweighted) {
        SCOPED_TRACE(::testing::Message() << "dtype " << c.dtype << " x " << special.x << " w "
                                          << special.w << " g " << special.g);
        std::vector<float> x(count, 0.5f), t(count, 0.25f), w(count, 1.0f), g(count, 1.0f);
        for (int64_t i = 0; i < count; i += 4) {
          x[i] = special.x;
          w[i] = special.w;
          g[i] = special.g;
        }
        DeviceTensor grad({count}, c.dtype, {}), self({count}, c.dtype, {});
        DeviceTensor target({count}, c.dtype, t), weight({count}, c.dtype, {});
        DeviceTensor out({count}, c.dtype, {});
        UploadWithSpecials(grad, c.dtype, g);
        UploadWithSpecials(self, c.dtype, x);
        UploadWithSpecials(weight, c.dtype, w);
        ASSERT_EQ(Plan(&grad, &self, &target, with_weight ? &weight : nullptr, nullptr, 0, &out),
                  ACLNN_SUCCESS);
        ASSERT_EQ(Launch(), ACLNN_SUCCESS);
        const std::vector<unsigned char> bytes = out.Bytes();
        const size_t size = aclDataTypeSize(c.dtype);
        for (int64_t i = 0; i < count; ++i) {
          if (!std::isnan(g[i] * GetParam().exact(x[i], t[i], w[i], 1.0))) continue;
          uint32_t bits = 0;
          std::memcpy(&bits, bytes.data() + i * size, size);
          EXPECT_EQ(bits, c.nan_bits) << "element " << i;
          ++nan_results;
        }
      }
      EXPECT_GT(nan_results, count / 2) << "dtype " << c.dtype;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothGradients, GradientChecks, ::testing::ValuesIn(kApis),
                         [](const ::testing::TestParamInfo<GradientApi>& param) {
                           return param.index == 0 ? std::string("Self") : std::string("Target");
                         });

}  // namespace
}  // namespace openaclnn::testing
