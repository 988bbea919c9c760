// The KL divergence family (aclnnKlDiv, aclnnKlDivBackward, aclnnKlDivTargetBackward) as the
// backends' generic code sees it: the loss and both gradients (kl_div_math.h), each correctly
// rounded once; p.variant selects probability targets (0) or log targets (kKlDivLogTarget). Its
// means and sums add fp64 terms only, and their exact pass adds exact numerators.
#pragma once

#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/loss_problem.h"
#include "kernels/rounded_element.h"
#include "losses/kl_div/kl_div_error_budget.h"
#include "losses/kl_div/kl_div_math.h"

namespace openaclnn {

struct KlDivFamily {
  static constexpr LossFamily kFamily = LossFamily::kKlDiv;
  // Every finite-input term's bound is at least this fraction of its magnitude (KlDivTerm).
  static constexpr double kTermError = math::kKlDivTermError;
  // One element of `kind` divided by p.divisor, correctly rounded once to `type` (KlDivElement).
  OPENACLNN_HOST_DEVICE static float Element(LossKind kind, const ElementParameters& p,
                                             const ElementInputs& in, FloatType type) {
    return KlDivElement(kind, p, in, type);
  }
  // A mean's or sum's term (not divided): fp64 estimate and bound, NaN where an input is not
  // finite.
  OPENACLNN_HOST_DEVICE static ElementEstimate Term(LossKind kind, const ElementParameters& p,
                                                    const ElementInputs& in, bool, bool) {
    return KlDivTerm(kind, p.variant, in);
  }
  // The exact pass's term: its numerator, exact but for ln t and e^t in double-double.
  OPENACLNN_HOST_DEVICE static void AddExactTerm(LossKind kind, const ElementParameters& p,
                                                 const ElementInputs& in,
                                                 math::exact::ExactSum& sum) {
    AddKlDivTerm(kind, p.variant, in, sum);
  }
  OPENACLNN_HOST_DEVICE static double TermDenominator(const ElementParameters&) { return 1.0; }
  OPENACLNN_HOST_DEVICE static constexpr bool SumsFp32Terms(FloatType, FloatType, bool, FloatType) {
    return false;
  }
};

// Every op of the family: the loss and both gradients.
inline constexpr uint64_t kKlDivKernelOps = KernelOpBit(LossFamily::kKlDiv, KernelOp::kLoss) |
                                            KernelOpBit(LossFamily::kKlDiv, KernelOp::kGradSelf) |
                                            KernelOpBit(LossFamily::kKlDiv, KernelOp::kGradTarget);

}  // namespace openaclnn
