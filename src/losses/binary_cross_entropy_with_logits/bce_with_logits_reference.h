// The fp32 reference formulas of the BCE-with-logits family, the ones CANN and PyTorch evaluate,
// for an element with an input that is not finite (NaN, +-inf): they decide the class of its
// result (NaN, +inf, -inf; docs/contract/numerics.md §4). Finite inputs take
// bce_with_logits_math.h's correctly rounded formulas. Scalar code only (math::ScalarOps), the same
// on every backend: the SIMD evaluators send such lanes to the scalar element function.
#pragma once

#include "kernels/reference_math.h"

namespace openaclnn::math {

// The formula CANN and PyTorch evaluate, ((1-t)*x - (1+(p-1)*t) * log_sigmoid(x)) * w, which
// decides the class (NaN, +inf, -inf) of the result when an input is not finite.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V ReferenceLoss(typename O::V x, typename O::V t,
                                                         typename O::V w, typename O::V p) {
  using Vec = typename O::V;
  const Vec one = O::Set(1.0f);
  const Vec log_sigmoid = O::Neg(SoftplusPair<O>(x).neg);
  return ((one - t) * x - ((p - one) * t + one) * log_sigmoid) * w;
}

// The contract's form g * w * ((1 + (p-1)*t) * sigmoid(x) - p*t), in fp32: decides the class
// (NaN, +inf, -inf) of the gradient when an input is not finite.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V ReferenceGradSelf(typename O::V x, typename O::V t,
                                                             typename O::V w, typename O::V p,
                                                             typename O::V g) {
  using Vec = typename O::V;
  const Vec one = O::Set(1.0f);
  const Vec pos_scale = (p - one) * t + one;
  return g * w * O::MulAdd(pos_scale, Sigmoid<O>(x), O::Neg(p * t));
}

// The PyTorch form g * w * (log_sigmoid(-x) - p*log_sigmoid(x)), for the class of the result
// when an input is not finite.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V ReferenceGradTarget(typename O::V x, typename O::V w,
                                                               typename O::V p, typename O::V g) {
  const Softplus<O> sp = SoftplusPair<O>(x);
  return g * w * (p * sp.neg - sp.pos);
}

}  // namespace openaclnn::math
