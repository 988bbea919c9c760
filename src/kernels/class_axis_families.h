// Every class-axis family, one line each: WithClassAxisFamily calls a generic function with the
// family struct of a problem's LossFamily, and kEveryClassAxisKernelOps is the ops of them all. A
// class-axis family struct (e.g. NllLossFamily, losses/nll_loss/nll_loss_family.h) is all a
// backend's generic class-axis code knows of a family:
//   kFamily, kKernelOps;
//   LossTerm(self_row, target, weight): a counted position's loss, the exact value as a double;
//   GradientRow(self_row, out_row, target, weight, gradient, divisor, type): a counted position's
//     row of the gradient with respect to self, each element rounded once to `type`.
#pragma once

#include "kernels/class_axis_problem.h"
#include "losses/nll_loss/nll_loss_family.h"

namespace openaclnn {

template <class Visit>
OPENACLNN_HOST_DEVICE decltype(auto) WithClassAxisFamily(LossFamily, Visit&& visit) {
  return visit(NllLossFamily{});  // the only one so far
}

inline constexpr uint64_t kEveryClassAxisKernelOps = NllLossFamily::kKernelOps;

}  // namespace openaclnn
