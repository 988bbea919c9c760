// Every loss family, one line each: WithFamily calls a generic function with the family struct of
// a problem's LossFamily, and kEveryFamilyKernelOps is the ops of them all. A family struct (e.g.
// BceWithLogitsFamily, losses/binary_cross_entropy_with_logits/bce_with_logits_family.h) is all a
// backend's generic code knows of a family:
//   kFamily, kLossTermError (the relative error bound of a loss term's estimate, for
//   reduction.h's SettleReduction), Element(kind, gradient_scale, inputs, type) (one element
//   correctly rounded), SumsFp32Terms(self, result, fused, gradient), LossTerm(inputs, fp32_terms,
//   unweighted) (a mean's or sum's term and bound), ExactLossTerm(inputs) (the exact pass's term).
#pragma once

#include "kernels/loss_problem.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_family.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"

namespace openaclnn {

// Host/device: a host-only `visit` (a kernel launch) is allowed too.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Visit>
OPENACLNN_HOST_DEVICE decltype(auto) WithFamily(LossFamily family, Visit&& visit) {
  switch (family) {
    case LossFamily::kBinaryCrossEntropy:
      return visit(BinaryCrossEntropyFamily{});
    default:
      return visit(BceWithLogitsFamily{});
  }
}

// The ops of every family (KernelOpBit), which a backend that runs every family through
// WithFamily implements.
inline constexpr uint32_t kEveryFamilyKernelOps =
    kBceWithLogitsKernelOps | kBinaryCrossEntropyKernelOps;

// The family's kLossTermError.
OPENACLNN_HOST_DEVICE inline double LossTermError(LossFamily family) {
  return WithFamily(family, [](auto each) { return decltype(each)::kLossTermError; });
}

}  // namespace openaclnn
