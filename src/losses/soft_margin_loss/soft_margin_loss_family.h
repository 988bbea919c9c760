// The soft margin family (aclnnSoftMarginLoss and its Backward) as the backends' generic code sees
// it: the loss and the gradient w.r.t. self (soft_margin_loss_math.h), each correctly rounded once
// after the division by the reduction's divisor; mean and sum add fp64 terms, and their exact pass
// the exact terms. The family has no target gradient (torch raises for one, CANN has no API).
#pragma once

#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/loss_problem.h"
#include "kernels/rounded_element.h"
#include "losses/soft_margin_loss/soft_margin_loss_error_budget.h"
#include "losses/soft_margin_loss/soft_margin_loss_math.h"

namespace openaclnn {

struct SoftMarginLossFamily {
  static constexpr LossFamily kFamily = LossFamily::kSoftMarginLoss;
  // Every finite-input term's bound is at least this fraction of its value
  // (soft_margin_loss_error_budget.h).
  static constexpr double kTermError = math::kSoftMarginError64;

  // kLoss or kGradSelf (any other kind reads as kGradSelf), RN(term / p.divisor) in `type`: the
  // estimate where its interval settles, else the exact path; an input that is not finite gives
  // the reference's class (SoftMarginReference), a finite one of those (-(t g) / d at z = -inf)
  // correctly rounded. Zeros: the loss is never 0 for finite inputs (a result that rounds to 0
  // is +0; z = +inf gives +0); the gradient is exactly 0 where t g = 0, with the sign of
  // -(t g) (-0 for t = +0, g > 0), and a nonzero one that rounds to 0 keeps its own sign.
  OPENACLNN_HOST_DEVICE static float Element(LossKind kind, const ElementParameters& p,
                                             const ElementInputs& in, FloatType type) {
    double settled = 0.0;
    if (SettledIn(SoftMarginEstimate(kind, p.scale, in), type, &settled)) {
      return RoundedTo(settled, type);
    }
    return RoundedTo(SoftMarginRoundedExactly(kind, p, in, type), type);
  }

  // A mean's or sum's term, not divided: the fp64 estimate and bound, or where an input is not
  // finite the reference value with a NaN bound. fp32_terms and unweighted are the BCE family's.
  OPENACLNN_HOST_DEVICE static ElementEstimate Term(LossKind kind, const ElementParameters&,
                                                    const ElementInputs& in, bool, bool) {
    if (!SoftMarginInputsFinite(kind, in)) return {SoftMarginReference(kind, in), kCanonicalNaN};
    return SoftMarginEstimate(kind, 1.0, in);
  }

  // The exact pass's term (AddSoftMarginExactTerm): rational parts exact, transcendental ones in
  // double-double; the finite reference value where an input is not finite.
  OPENACLNN_HOST_DEVICE static void AddExactTerm(LossKind kind, const ElementParameters&,
                                                 const ElementInputs& in,
                                                 math::exact::ExactSum& sum) {
    AddSoftMarginExactTerm(kind, in, sum);
  }

  // No common denominator: every exact term is a sum of doubles.
  OPENACLNN_HOST_DEVICE static double TermDenominator(const ElementParameters&) { return 1.0; }

  OPENACLNN_HOST_DEVICE static constexpr bool SumsFp32Terms(FloatType, FloatType, bool, FloatType) {
    return false;
  }
};

// Every op of the family.
inline constexpr uint64_t kSoftMarginLossKernelOps =
    KernelOpBit(LossFamily::kSoftMarginLoss, KernelOp::kLoss) |
    KernelOpBit(LossFamily::kSoftMarginLoss, KernelOp::kGradSelf);

}  // namespace openaclnn
