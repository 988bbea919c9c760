// The plans of the class-axis ops: self (C), (N, C) or (N, C, d1, ...) with dimension 1 (0 of a
// 1-D self) the classes, and the other dimensions the positions, which target, a per-position
// gradOutput and a per-position out share; weight one value per class; the reduced results and
// the total weights one element each. The ops' checks made sure the shapes pair so.
#pragma once

#include <cstdint>
#include <memory>

#include "base/executor.h"
#include "kernels/loss_problem.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// The work of a class-axis op of `kind` (kLoss: out, and totalWeightOut or logProbOut; kGradSelf:
// out, self's shape), its ignoreIndex the op's attribute 0 and its label smoothing attribute 1
// (where it has one); nullptr where a gradient has no element to write. Needs no workspace.
std::unique_ptr<Plan> PlanClassAxis(LossFamily family, LossKind kind, const LossOperands& operands,
                                    int64_t reduction, uint64_t* workspace_size);

// As an op descriptor's `plan`.
template <LossKind kKind>
std::unique_ptr<Plan> PlanClassAxisOf(LossFamily family, const LossOperands& operands,
                                      int64_t reduction, uint64_t* workspace_size) {
  return PlanClassAxis(family, kKind, operands, reduction, workspace_size);
}

}  // namespace openaclnn
