// The smooth L1 family's four APIs behind one call (aclnnSmoothL1Loss, aclnnSmoothL1LossBackward,
// openaclnnHuberLoss, openaclnnHuberLossBackward) and the long-double reference of their
// formulas, for the family's API tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "aclnnop/aclnn_smooth_l1_loss.h"
#include "aclnnop/aclnn_smooth_l1_loss_backward.h"
#include "op_tester.h"
#include "openaclnn/aclnn_huber_loss.h"

namespace openaclnn::testing {

using Shape = std::vector<int64_t>;

enum class Api { kSmoothL1Loss, kSmoothL1LossBackward, kHuberLoss, kHuberLossBackward };

inline bool IsHuber(Api api) { return api == Api::kHuberLoss || api == Api::kHuberLossBackward; }
inline bool IsBackward(Api api) {
  return api == Api::kSmoothL1LossBackward || api == Api::kHuberLossBackward;
}
inline const char* ApiName(Api api) {
  constexpr const char* kNames[] = {"aclnnSmoothL1Loss", "aclnnSmoothL1LossBackward",
                                    "openaclnnHuberLoss", "openaclnnHuberLossBackward"};
  return kNames[static_cast<int>(api)];
}

// A parameterized test's name: its API's.
inline std::string ApiCaseName(const ::testing::TestParamInfo<Api>& param) {
  return ApiName(param.param);
}

// One call's arguments: `grad` is ignored by the forwards; `attribute` is beta (as a float) or
// delta.
struct Call {
  Api api = Api::kSmoothL1Loss;
  const aclTensor* grad = nullptr;
  const aclTensor* self = nullptr;
  const aclTensor* target = nullptr;
  int64_t reduction = 0;
  double attribute = 1.0;
  aclTensor* out = nullptr;
};

inline aclnnStatus GetWorkspaceSize(const Call& c, uint64_t* workspace_size,
                                    aclOpExecutor** executor) {
  const float beta = static_cast<float>(c.attribute);
  switch (c.api) {
    case Api::kSmoothL1Loss:
      return aclnnSmoothL1LossGetWorkspaceSize(c.self, c.target, c.reduction, beta, c.out,
                                               workspace_size, executor);
    case Api::kSmoothL1LossBackward:
      return aclnnSmoothL1LossBackwardGetWorkspaceSize(c.grad, c.self, c.target, c.reduction, beta,
                                                       c.out, workspace_size, executor);
    case Api::kHuberLoss:
      return openaclnnHuberLossGetWorkspaceSize(c.self, c.target, c.reduction, c.attribute, c.out,
                                                workspace_size, executor);
    default:
      return openaclnnHuberLossBackwardGetWorkspaceSize(
          c.grad, c.self, c.target, c.reduction, c.attribute, c.out, workspace_size, executor);
  }
}

inline LaunchFunction LaunchOf(Api api) {
  constexpr LaunchFunction kLaunches[] = {aclnnSmoothL1Loss, aclnnSmoothL1LossBackward,
                                          openaclnnHuberLoss, openaclnnHuberLossBackward};
  return kLaunches[static_cast<int>(api)];
}

// Phase 1 only; a successful executor is destroyed.
inline aclnnStatus Plan(const Call& c, uint64_t* workspace_size = nullptr) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = GetWorkspaceSize(c, &size, &executor);
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  if (workspace_size != nullptr) *workspace_size = size;
  return status;
}

// Both phases and a wait; the first failing status.
inline aclnnStatus RunOp(const Call& c) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus status = GetWorkspaceSize(c, &workspace_size, &executor)) return status;
  return LaunchAndWait(LaunchOf(c.api), workspace_size, executor);
}

// The exact loss of one element, d = x - t exact (the tests' inputs are at most 2^40 apart in
// magnitude, so a long double holds it), then the formula's few operations in long double:
// far more than the results' 24 bits. beta = 0 is L1 (|d| < 0 never holds).
inline long double ExactLoss(Api api, long double x, long double t, long double a) {
  const long double d = x - t, m = std::fabs(d);
  if (IsHuber(api)) return m < a ? d * d / 2 : a * (m - a / 2);
  return m < a ? d * d / (2 * a) : m - a / 2;
}

// The exact gradient with respect to x, before any division by N: sign(0) = 0, sign(NaN) NaN.
inline long double ExactGradient(Api api, long double g, long double x, long double t,
                                 long double a) {
  const long double d = x - t;
  const long double sign = d > 0 ? 1 : d < 0 ? -1 : d == 0 ? 0 : d;
  if (IsHuber(api)) return std::fabs(d) < a ? g * d : g * a * sign;
  return std::fabs(d) < a ? g * d / a : g * sign;
}

// Values in [low, high) spread by a fixed step, so each test's data is reproducible.
inline std::vector<float> Spread(int64_t count, float low, float high, float step = 0.7371f) {
  std::vector<float> values(count);
  const float width = high - low;
  for (int64_t i = 0; i < count; ++i) {
    values[i] = low + std::fmod(0.123f + step * static_cast<float>(i), width);
  }
  return values;
}

// A contiguous input: its shape, dtype and values (rounded to the dtype as they are stored).
struct Operand {
  Shape shape;
  aclDataType dtype = ACL_FLOAT;
  std::vector<float> values;
};

// A call whose every result is compared with the reference rounded once to out's dtype.
struct ValueCase {
  Api api = Api::kSmoothL1Loss;
  int64_t reduction = 0;
  double attribute = 1.0;
  Operand grad, self, target;  // grad: the Backwards' only
  aclDataType out_dtype = ACL_FLOAT;
};

// The results of `c` by the reference: one per element of the broadcast shape, or one total.
inline std::vector<long double> Expected(const ValueCase& c, const std::vector<float>& g,
                                         const std::vector<float>& x, const std::vector<float>& t) {
  const Shape pair = BroadcastShapeOf(c.self.shape, c.target.shape);
  const Shape all = IsBackward(c.api) ? BroadcastShapeOf(c.grad.shape, pair) : pair;
  const long double n = static_cast<long double>(ElementCount(pair));  // the mean's N (D4)
  const long double a = IsHuber(c.api) ? c.attribute : static_cast<float>(c.attribute);
  std::vector<long double> results;
  long double total = 0;
  for (int64_t i = 0; i < ElementCount(all); ++i) {
    const float xi = x[BroadcastIndex(all, c.self.shape, i)];
    const float ti = t[BroadcastIndex(all, c.target.shape, i)];
    if (IsBackward(c.api)) {
      const float gi = g[BroadcastIndex(all, c.grad.shape, i)];
      const long double value = ExactGradient(c.api, gi, xi, ti, a);
      results.push_back(c.reduction == 1 ? value / n : value);
    } else if (c.reduction == 0) {
      results.push_back(ExactLoss(c.api, xi, ti, a));
    } else {
      total += ExactLoss(c.api, xi, ti, a);
    }
  }
  if (!IsBackward(c.api) && c.reduction != 0) {
    results.push_back(c.reduction == 1 ? total / n : total);
  }
  return results;
}

// Runs `c` and checks every result: each correctly rounded, NaN where the reference is.
inline void ExpectCorrectlyRounded(const ValueCase& c) {
  const auto tensor = [](const Operand& operand) {
    return DeviceTensor(operand.shape, operand.dtype, operand.values);
  };
  const bool backward = IsBackward(c.api);
  DeviceTensor self = tensor(c.self), target = tensor(c.target);
  DeviceTensor grad = backward ? tensor(c.grad) : DeviceTensor(Shape{}, ACL_FLOAT, {});
  const Shape pair = BroadcastShapeOf(c.self.shape, c.target.shape);
  const Shape all = backward ? BroadcastShapeOf(c.grad.shape, pair) : pair;
  DeviceTensor out(backward || c.reduction == 0 ? all : Shape{}, c.out_dtype, {});
  ASSERT_EQ(
      RunOp({c.api, grad.get(), self.get(), target.get(), c.reduction, c.attribute, out.get()}),
      ACLNN_SUCCESS);
  const std::vector<long double> expected = Expected(c, grad.Read(), self.Read(), target.Read());
  const std::vector<float> got = out.Read();
  ASSERT_EQ(got.size(), expected.size());
  int failures = 0;
  for (size_t i = 0; i < got.size() && failures < 5; ++i) {
    const ::testing::AssertionResult rounded = CorrectlyRounded(got[i], expected[i], c.out_dtype);
    if (!rounded) ++failures;
    EXPECT_TRUE(rounded) << ApiName(c.api) << " element " << i;
  }
}

}  // namespace openaclnn::testing
