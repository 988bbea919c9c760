// The plans every loss op hands to the executor: the work for operands that passed the checks,
// on the active backend's kernels, for the op's family.
#pragma once

#include <cstdint>
#include <memory>

#include "base/executor.h"
#include "kernels/loss_problem.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// The forward's plan: the loss over self (a fill for an empty self's mean or sum). With
// operands' kGradSelfOut present, the same pass also writes the gradient with respect to self.
std::unique_ptr<Plan> PlanLoss(LossFamily family, const LossOperands& operands, int64_t reduction,
                               uint64_t* workspace_size);

// A gradient op's plan: the element-wise gradient `kind` over self (nothing for an empty self).
std::unique_ptr<Plan> PlanGradient(LossFamily family, LossKind kind, const LossOperands& operands,
                                   int64_t reduction, uint64_t* workspace_size);

// PlanGradient of kind `kKind`, as an op descriptor's `plan`.
template <LossKind kKind>
std::unique_ptr<Plan> PlanGradientOf(LossFamily family, const LossOperands& operands,
                                     int64_t reduction, uint64_t* workspace_size) {
  return PlanGradient(family, kKind, operands, reduction, workspace_size);
}

// The fused pass over self's (non-empty) shape, as the executor runs it; gradients are
// multiplied by `gradient_scale`.
std::unique_ptr<Plan> MakeLossPlan(LossFamily family, LossKind kind, Reduction reduction,
                                   double gradient_scale, const LossOperands& operands,
                                   uint64_t* workspace_size);
// Writes `value` into every element of the output (the result of a mean or sum over nothing).
std::unique_ptr<Plan> MakeFillPlan(const LossOperands& operands, double value);

}  // namespace openaclnn
