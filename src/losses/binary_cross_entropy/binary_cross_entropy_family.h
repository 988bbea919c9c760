// The binary cross entropy family (aclnnBinaryCrossEntropy and its Backward: probabilities in, no
// sigmoid) as the backends' generic code sees it (kernels/loss_families.h): the loss
// (binary_cross_entropy_loss.h) and the gradient w.r.t. self (binary_cross_entropy_gradient.h),
// each correctly rounded once; its means and sums add fp64 terms only.
#pragma once

#include "kernels/loss_problem.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_error_budget.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_gradient.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_loss.h"

namespace openaclnn {

struct BinaryCrossEntropyFamily {
  static constexpr LossFamily kFamily = LossFamily::kBinaryCrossEntropy;
  static constexpr double kTermError = math::kBinaryCrossEntropyLossError64;
  // kLoss or kGradSelf (the family has no other kind).
  OPENACLNN_HOST_DEVICE static float Element(LossKind kind, const ElementParameters& parameters,
                                             const ElementInputs& in, FloatType type) {
    return kind == LossKind::kLoss ? BinaryCrossEntropyLoss(in, type)
                                   : BinaryCrossEntropyGradient(in, parameters, type);
  }
  OPENACLNN_HOST_DEVICE static constexpr bool SumsFp32Terms(FloatType, FloatType, bool, FloatType) {
    return false;
  }
  // The family sums its loss only.
  OPENACLNN_HOST_DEVICE static ElementEstimate Term(LossKind, const ElementParameters&,
                                                    const ElementInputs& in, bool, bool) {
    return BinaryCrossEntropyLossTerm(in);
  }
  OPENACLNN_HOST_DEVICE static void AddExactTerm(LossKind, const ElementParameters&,
                                                 const ElementInputs& in,
                                                 math::exact::ExactSum& sum) {
    sum.Add(BinaryCrossEntropyExactLossTerm(in));
  }
  OPENACLNN_HOST_DEVICE static double TermDenominator(const ElementParameters&) { return 1.0; }
};

// Every op of the family.
inline constexpr uint64_t kBinaryCrossEntropyKernelOps =
    KernelOpBit(LossFamily::kBinaryCrossEntropy, KernelOp::kLoss) |
    KernelOpBit(LossFamily::kBinaryCrossEntropy, KernelOp::kGradSelf);

}  // namespace openaclnn
