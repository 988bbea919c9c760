// The smooth L1 family (aclnnSmoothL1Loss and its Backward; openaclnnHuberLoss and its Backward
// as the Huber variant) as the backends' generic code sees it: one element of each kind correctly
// rounded once, a mean's or sum's term with its bound, the exact pass's numerator and its common
// denominator. The math: smooth_l1_loss_math.h; the bounds: smooth_l1_loss_error_budget.h.
#pragma once

#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/loss_problem.h"
#include "kernels/rounded_element.h"
#include "losses/smooth_l1_loss/smooth_l1_loss_error_budget.h"
#include "losses/smooth_l1_loss/smooth_l1_loss_math.h"

namespace openaclnn {

// p.variant: kSmoothL1Variant (p.parameter = beta, an fp32 value >= 0 or +inf) or kHuberVariant
// (p.parameter = delta, a double > 0 or +inf); the ops refuse the rest. kGradTarget is the self
// gradient of -g: d(loss)/dt = -d(loss)/dx, its zeros of the other sign.
struct SmoothL1LossFamily {
  static constexpr LossFamily kFamily = LossFamily::kSmoothL1Loss;
  // Every finite-input term's bound is kTermError of its magnitude (in Huber's tiny range, a bound
  // of kHuberTinyTermBound on a term of 0).
  static constexpr double kTermError = math::kSmoothL1Error64;

  OPENACLNN_HOST_DEVICE static float Element(LossKind kind, const ElementParameters& p,
                                             const ElementInputs& in, FloatType type) {
    if (kind == LossKind::kLoss) return SmoothL1Loss(p, in, type);
    return SmoothL1Gradient(p, in.x, in.t, kind == LossKind::kGradTarget ? -in.g : in.g, type);
  }

  OPENACLNN_HOST_DEVICE static ElementEstimate Term(LossKind kind, const ElementParameters& p,
                                                    const ElementInputs& in, bool, bool) {
    if (kind == LossKind::kLoss) return SmoothL1LossTerm(p, in);
    return SmoothL1GradientTerm(p, in.x, in.t, kind == LossKind::kGradTarget ? -in.g : in.g);
  }

  OPENACLNN_HOST_DEVICE static void AddExactTerm(LossKind kind, const ElementParameters& p,
                                                 const ElementInputs& in,
                                                 math::exact::ExactSum& sum) {
    if (kind != LossKind::kLoss) {
      AddSmoothL1GradientTerm(p, in.x, in.t, kind == LossKind::kGradTarget ? -in.g : in.g, sum);
    } else if (std::isfinite(in.x) && std::isfinite(in.t)) {  // else not finite: never here
      math::exact::AddSmoothL1LossNumerator(math::exact::SmoothL1NumeratorsOf(p), in.x, in.t, sum);
    }
  }

  OPENACLNN_HOST_DEVICE static double TermDenominator(const ElementParameters& p) {
    return math::exact::SmoothL1NumeratorsOf(p).denominator;
  }

  OPENACLNN_HOST_DEVICE static constexpr bool SumsFp32Terms(FloatType, FloatType, bool, FloatType) {
    return false;
  }
};

// Every op of the family: the loss and the self gradient of both variants (PyTorch's target
// gradient is the self gradient with self and target swapped).
inline constexpr uint64_t kSmoothL1LossKernelOps =
    KernelOpBit(LossFamily::kSmoothL1Loss, KernelOp::kLoss) |
    KernelOpBit(LossFamily::kSmoothL1Loss, KernelOp::kGradSelf);

}  // namespace openaclnn
