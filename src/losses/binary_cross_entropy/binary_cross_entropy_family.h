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
  static constexpr double kLossTermError = math::kBinaryCrossEntropyLossError64;
  // kLoss or kGradSelf (the family has no other kind).
  OPENACLNN_HOST_DEVICE static float Element(LossKind kind, double gradient_scale,
                                             const ElementInputs& in, FloatType type) {
    return kind == LossKind::kLoss ? BinaryCrossEntropyLoss(in, type)
                                   : BinaryCrossEntropyGradient(in, gradient_scale, type);
  }
  OPENACLNN_HOST_DEVICE static constexpr bool SumsFp32Terms(FloatType, FloatType, bool, FloatType) {
    return false;
  }
  OPENACLNN_HOST_DEVICE static ElementEstimate LossTerm(const ElementInputs& in, bool, bool) {
    return BinaryCrossEntropyLossTerm(in);
  }
  OPENACLNN_HOST_DEVICE static math::exact::DD ExactLossTerm(const ElementInputs& in) {
    return BinaryCrossEntropyExactLossTerm(in);
  }
};

// Every op of the family.
inline constexpr uint32_t kBinaryCrossEntropyKernelOps =
    KernelOpBit(LossFamily::kBinaryCrossEntropy, KernelOp::kLoss) |
    KernelOpBit(LossFamily::kBinaryCrossEntropy, KernelOp::kGradSelf);

}  // namespace openaclnn
