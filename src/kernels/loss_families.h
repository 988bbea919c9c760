// Every loss family, one line each: WithFamily calls a generic function with the family struct of
// a problem's LossFamily, and kEveryFamilyKernelOps is the ops of them all. A family struct (e.g.
// BceWithLogitsFamily, losses/binary_cross_entropy_with_logits/bce_with_logits_family.h) is all a
// backend's generic code knows of a family:
//   kFamily;
//   kTermError: the relative error bound of a term's estimate, bound >= kTermError * |value| for
//     every finite term (reduction.h's PartialsTotal accounts the sums' own additions from it);
//   Element(kind, parameters, inputs, type): one element of `kind`, its term divided by
//     parameters.divisor, correctly rounded once to `type`;
//   Term(kind, parameters, inputs, fp32_terms, unweighted): a sum's term of `kind` (not divided),
//     fp64 estimate and bound (bound NaN where an input is not finite);
//   AddExactTerm(kind, parameters, inputs, sum): the exact pass's term added to an ExactSum,
//     exactly where it is rational, transcendental parts to about 2^-100 of themselves;
//   TermDenominator(parameters): the exact terms' common denominator (an exact sum's value is
//     sum / (TermDenominator * divisor));
//   SumsFp32Terms(self, result, fused, gradient): whether a total's first pass adds fp32 terms.
// A family sums only the kinds its ops reduce (every family its loss; KL divergence its
// gradients too, summed back to a broadcast operand's shape).
#pragma once

#include "kernels/loss_problem.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_family.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"
#include "losses/kl_div/kl_div_family.h"
#include "losses/l1_loss/l1_loss_family.h"
#include "losses/mse_loss/mse_loss_family.h"

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
    case LossFamily::kL1Loss:
      return visit(L1LossFamily{});
    case LossFamily::kKlDiv:
      return visit(KlDivFamily{});
    case LossFamily::kMseLoss:
      return visit(MseLossFamily{});
    default:
      return visit(BceWithLogitsFamily{});
  }
}

// The ops of every family (KernelOpBit), which a backend that runs every family through
// WithFamily implements.
inline constexpr uint64_t kEveryFamilyKernelOps = 0                          // one line per family
                                                  | kBceWithLogitsKernelOps  //
                                                  | kBinaryCrossEntropyKernelOps  //
                                                  | kL1LossKernelOps              //
                                                  | kKlDivKernelOps               //
                                                  | kMseLossKernelOps;

// The family's kTermError.
OPENACLNN_HOST_DEVICE inline double TermError(LossFamily family) {
  return WithFamily(family, [](auto each) { return decltype(each)::kTermError; });
}

}  // namespace openaclnn
