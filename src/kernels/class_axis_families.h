// Every class-axis family, one line each: WithClassAxisFamily calls a generic function with the
// family struct of a problem's LossFamily, and kEveryClassAxisKernelOps is the ops of them all. A
// class-axis family struct (e.g. NllLossFamily, losses/nll_loss/nll_loss_family.h) is all a
// backend's generic class-axis code knows of a family (kernels/class_axis_row.h: Estimated,
// RowConstants):
//   kFamily, kKernelOps; kLossReadsRows (a loss position reads its whole row, not one element);
//   kSparseGradientRows (GradientRow zeroes its row, then sets few elements: a backend may zero
//     many rows at once beforehand and make that Zero() a no-op);
//   LossRow(self_row, weights, log_prob_row, target, constants): a position's loss (a counted
//     one's: target not nullptr; else 0) as an estimate and its bound, and its row of
//     log-probabilities written where log_prob_row is not nullptr;
//   ExactLossTerm(self_row, weights, target, constants): a counted position's loss, exact or in
//     double-double, for the results its estimate leaves open;
//   GradientRow(self_row, out_row, weights, target, gradient, constants, type): a counted
//     position's row of the gradient with respect to self, each element rounded once to `type`.
#pragma once

#include "kernels/class_axis_problem.h"
#include "losses/cross_entropy/cross_entropy_family.h"
#include "losses/nll_loss/nll_loss_family.h"

namespace openaclnn {

// Host/device: a host-only `visit` (a kernel launch) is allowed too.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Visit>
OPENACLNN_HOST_DEVICE decltype(auto) WithClassAxisFamily(LossFamily family, Visit&& visit) {
  if (family == LossFamily::kCrossEntropy) return visit(CrossEntropyFamily{});
  return visit(NllLossFamily{});
}

inline constexpr uint64_t kEveryClassAxisKernelOps =
    NllLossFamily::kKernelOps | CrossEntropyFamily::kKernelOps;

}  // namespace openaclnn
