// Every loss family, one line each: WithFamily calls a generic function with the family struct of
// a problem's LossFamily. A family struct (e.g. BceWithLogitsFamily, kernels/bce_element.h) is all
// a backend's generic code knows of a family:
//   kFamily, kLossTermError (the relative error bound of a loss term's estimate, for
//   reduction.h's SettleReduction), Element(kind, gradient_scale, inputs, type) (one element
//   correctly rounded), SumsFp32Terms(self, result, fused, gradient), LossTerm(inputs, fp32_terms,
//   unweighted) (a mean's or sum's term and bound), ExactLossTerm(inputs) (the exact pass's term).
#pragma once

#include "kernels/bce_element.h"
#include "kernels/loss_problem.h"

namespace openaclnn {

template <class Visit>
OPENACLNN_HOST_DEVICE decltype(auto) WithFamily(LossFamily family, Visit&& visit) {
  switch (family) {
    default:
      return visit(BceWithLogitsFamily{});
  }
}

}  // namespace openaclnn
