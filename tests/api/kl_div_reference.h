// What the KL divergence ops' API tests share: their formulas in long double (a 64-bit significand
// on x86-64, binary128 elsewhere: far more than the results' 24 bits), written from the
// definitions and not from the library, and the exact result of a whole call over broadcast
// operands, summed into its output's shape.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "aclnnop/aclnn_kl_div_backward.h"
#include "aclnnop/aclnn_kl_div_target_backward.h"
#include "op_tester.h"

namespace openaclnn::testing {

using Shape = std::vector<int64_t>;

enum class KlKind { kLoss, kGradSelf, kGradTarget };

inline constexpr long double kKlNaN = std::numeric_limits<long double>::quiet_NaN();

// t (ln t - x) with t ln t = 0 at t = 0 and NaN for t < 0; with log targets e^t (t - x).
inline long double KlLoss(long double x, long double t, bool log_target) {
  if (log_target) return std::exp(t) * (t - x);
  if (t < 0) return kKlNaN;
  return t == 0 ? t * -x : t * (std::log(t) - x);
}

// -g t; with log targets -g e^t.
inline long double KlGradSelf(long double g, long double t, bool log_target) {
  return -g * (log_target ? std::exp(t) : t);
}

// g (ln t - x + 1), NaN for t <= 0; with log targets g e^t (t - x + 1).
inline long double KlGradTarget(long double g, long double x, long double t, bool log_target) {
  if (log_target) return g * std::exp(t) * (t - x + 1);
  return t > 0 ? g * (std::log(t) - x + 1) : kKlNaN;
}

// One call's operands, contiguous, as the op read them (after rounding to their dtypes).
struct KlOperands {
  Shape grad_shape, self_shape, target_shape;
  std::vector<float> g, x, t;
};

// The exact result of `kind` over the broadcast shape `space` of the operands, each element's term
// summed into the element of `out_shape` it was broadcast from (out_shape broadcasts into `space`;
// [] for a mean's or sum's total) and divided by `divisor`.
inline std::vector<long double> KlReference(KlKind kind, bool log_target, const KlOperands& in,
                                            const Shape& space, const Shape& out_shape,
                                            long double divisor) {
  std::vector<long double> sums(ElementCount(out_shape), 0.0L);
  for (int64_t i = 0; i < ElementCount(space); ++i) {
    const long double x = in.x[BroadcastIndex(space, in.self_shape, i)];
    const long double t = in.t[BroadcastIndex(space, in.target_shape, i)];
    const long double g =
        kind == KlKind::kLoss ? 1.0L : in.g[BroadcastIndex(space, in.grad_shape, i)];
    const long double term = kind == KlKind::kLoss       ? KlLoss(x, t, log_target)
                             : kind == KlKind::kGradSelf ? KlGradSelf(g, t, log_target)
                                                         : KlGradTarget(g, x, t, log_target);
    sums[BroadcastIndex(space, out_shape, i)] += term;
  }
  for (long double& sum : sums) sum /= divisor;
  return sums;
}

// Log-probabilities (self): spread over [-6, 1.5), never a multiple of another's pattern.
inline std::vector<float> LogProbabilities(int64_t count, float start = 0.37f) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = std::fmod(start + 0.713f * i, 7.5f) - 6.0f;
  return values;
}

// Probabilities in [0, 1), 0 among them; or, for log targets, log-probabilities in [-5, 1).
inline std::vector<float> Targets(int64_t count, bool log_target, float start = 0.29f) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) {
    const float u = std::fmod(start + 0.0917f * i, 1.0f);
    values[i] = log_target ? 6.0f * u - 5.0f : (i % 11 == 3 ? 0.0f : u);
  }
  return values;
}

// Gradients flowing in: [-2, 2).
inline std::vector<float> Gradients(int64_t count) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = std::fmod(0.53f + 0.377f * i, 4.0f) - 2.0f;
  return values;
}

// The two gradient APIs, whose C signatures are alike: (gradOutput, self, target, reduction,
// logTarget, output, workspaceSize, executor).
struct KlGradientApi {
  KlKind kind;
  const char* name;
  aclnnStatus (*plan)(const aclTensor*, const aclTensor*, const aclTensor*, int64_t, bool,
                      aclTensor*, uint64_t*, aclOpExecutor**);
  aclnnStatus (*launch)(void*, uint64_t, aclOpExecutor*, aclrtStream);
};
inline constexpr KlGradientApi kKlDivBackward = {KlKind::kGradSelf, "aclnnKlDivBackward",
                                                 aclnnKlDivBackwardGetWorkspaceSize,
                                                 aclnnKlDivBackward};
inline constexpr KlGradientApi kKlDivTargetBackward = {
    KlKind::kGradTarget, "aclnnKlDivTargetBackward", aclnnKlDivTargetBackwardGetWorkspaceSize,
    aclnnKlDivTargetBackward};

// Phase 1 of a gradient only; a successful executor is destroyed.
inline aclnnStatus PlanGradient(const KlGradientApi& api, const aclTensor* grad,
                                const aclTensor* self, const aclTensor* target, int64_t reduction,
                                bool log_target, aclTensor* out,
                                uint64_t* workspace_size = nullptr) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      api.plan(grad, self, target, reduction, log_target, out, &size, &executor);
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  if (workspace_size != nullptr) *workspace_size = size;
  return status;
}

inline aclnnStatus PlanGradient(const KlGradientApi& api, const DeviceTensor& grad,
                                const DeviceTensor& self, const DeviceTensor& target,
                                int64_t reduction, const DeviceTensor& out,
                                bool log_target = false) {
  return PlanGradient(api, grad.get(), self.get(), target.get(), reduction, log_target, out.get());
}

// Both phases of a gradient and a sync.
inline aclnnStatus RunGradient(const KlGradientApi& api, const DeviceTensor& grad,
                               const DeviceTensor& self, const DeviceTensor& target,
                               int64_t reduction, bool log_target, const DeviceTensor& out) {
  return RunPhases(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return api.plan(grad.get(), self.get(), target.get(), reduction, log_target, out.get(),
                        size, executor);
      },
      api.launch);
}

// The tensors of one of CANN's gradient cases: every one of `dtype`, gradOutput of `grad_shape`,
// self, target and the output of `shape`.
struct KlCaseTensors {
  KlCaseTensors(const Shape& grad_shape, const Shape& shape, aclDataType dtype)
      : grad(grad_shape, dtype, Gradients(ElementCount(grad_shape))),
        self(shape, dtype, LogProbabilities(ElementCount(shape))),
        target(shape, dtype, Targets(ElementCount(shape), false)),
        out(shape, dtype, {}) {}
  aclnnStatus Plan(const KlGradientApi& api, int64_t reduction, bool log_target) const {
    return PlanGradient(api, grad, self, target, reduction, out, log_target);
  }
  DeviceTensor grad, self, target, out;
};

// An aclTensor of `format` over each of a case's tensors.
struct KlFormattedCase {
  KlFormattedCase(const KlCaseTensors& c, const Shape& grad_shape, const Shape& shape,
                  aclDataType dtype, aclFormat format)
      : grad(grad_shape, dtype, format, c.grad.device()),
        self(shape, dtype, format, c.self.device()),
        target(shape, dtype, format, c.target.device()),
        out(shape, dtype, format, c.out.device()) {}
  aclnnStatus Plan(const KlGradientApi& api, int64_t reduction, bool log_target) const {
    return PlanGradient(api, grad.get(), self.get(), target.get(), reduction, log_target,
                        out.get());
  }
  FormattedTensor grad, self, target, out;
};

// CANN's UT cases of both gradients that must pass: every reduction and both target kinds, fp32,
// fp16 and bf16, in the public formats ND, NCHW, NCDHW, HWCN, NHWC, NDHWC, NCL and UNDEFINED
// (case_fp_reduction_none/mean/sum/batchmean, case_logtarget_true, case_NHWC, case_NDHWC).
inline void ExpectEveryReductionAndFormatAccepted(const KlGradientApi& api) {
  EXPECT_EQ(KlCaseTensors({3, 1}, {3, 5}, ACL_FLOAT).Plan(api, 0, false), ACLNN_SUCCESS);
  const struct {
    Shape shape;
    aclDataType dtype;
    aclFormat format;
    int64_t reduction;
    bool log_target;
  } cases[] = {{{3, 5, 2, 4}, ACL_FLOAT, ACL_FORMAT_NCHW, 1, false},
               {{1, 2, 3, 4, 5}, ACL_FLOAT16, ACL_FORMAT_NCDHW, 2, false},
               {{3, 5, 4, 6}, ACL_FLOAT, ACL_FORMAT_HWCN, 3, false},
               {{3, 5, 4, 6}, ACL_BF16, ACL_FORMAT_HWCN, 0, true},
               {{3, 1, 2, 5}, ACL_FLOAT, ACL_FORMAT_NHWC, 0, true},
               {{3, 1, 2, 5, 4}, ACL_FLOAT, ACL_FORMAT_NDHWC, 0, true},
               {{3, 1, 2}, ACL_FLOAT, ACL_FORMAT_NCL, 2, true},
               {{3, 2}, ACL_FLOAT, ACL_FORMAT_UNDEFINED, 1, true}};
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << "format " << c.format << " reduction " << c.reduction);
    const KlCaseTensors tensors(c.shape, c.shape, c.dtype);
    EXPECT_EQ(KlFormattedCase(tensors, c.shape, c.shape, c.dtype, c.format)
                  .Plan(api, c.reduction, c.log_target),
              ACLNN_SUCCESS);
  }
}

// case_checknull: each of the four tensors null in turn (the output named `output`).
inline void ExpectNullTensorsRefusedInOrder(const KlGradientApi& api, const char* output) {
  DeviceTensor tensor({10, 3, 5, 24}, ACL_FLOAT, {});
  const char* names[] = {"gradOutput", "self", "target", output};
  for (int which = 0; which < 4; ++which) {
    const auto pick = [&](int k) { return k == which ? nullptr : tensor.get(); };
    EXPECT_EQ(PlanGradient(api, pick(0), pick(1), pick(2), 0, true, pick(3)),
              ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(ErrorMentions(std::string(api.name) +
                              ": Expected a proper Tensor but got null for argument " +
                              names[which] + "."));
  }
}

}  // namespace openaclnn::testing
