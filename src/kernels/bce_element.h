// One element of every BCE-with-logits kind, as a host/device function: the definition that the
// CPU's scalar path runs, that every SIMD target must match bit for bit, and that a GPU thread
// runs. Inputs are already widened to fp32; absent operands (weight, pos_weight, gradOutput)
// read as 1.
#pragma once

#include <cmath>

#include "kernels/bce.h"
#include "kernels/math.h"
#include "kernels/math_exact.h"

namespace openaclnn {

struct ElementInputs {
  float x = 0.0f;  // self (logits)
  float t = 0.0f;  // target
  float w = 1.0f;  // weight
  float p = 1.0f;  // pos_weight
  float g = 1.0f;  // gradOutput
};

// Whether every input of `kind` at this element is finite (the exact formulas' domain).
OPENACLNN_HOST_DEVICE inline bool AllFinite(LossKind kind, const ElementInputs& in) {
  const bool shared = std::isfinite(in.x) && std::isfinite(in.w) && std::isfinite(in.p);
  const bool target = kind == LossKind::kGradTarget || std::isfinite(in.t);
  const bool gradient = kind == LossKind::kLoss || std::isfinite(in.g);
  return shared && target && gradient;
}

// The fp32 value of a gradient from its fp64 estimate, or where that estimate's rounding is not
// certain, from the double-double formula `exact`.
template <class Exact>
OPENACLNN_HOST_DEVICE inline float SettleToFloat(
    const math::Estimate64<math::ScalarOps64>& estimate, Exact exact) {
  return math::Settled(estimate) ? static_cast<float>(estimate.value) : exact();
}

// The value of `kind` at one element before its last rounding: the loss in fp64, to be rounded
// once to the output type or summed unrounded by mean/sum; a gradient already rounded to fp32
// (times `gradient_scale`, 1/N for mean, before that rounding). Finite inputs take the exact
// formulas; any non-finite input takes the reference formula, which decides the class (NaN,
// +inf, -inf) of the result (a NaN made kCanonicalNaN: only such inputs give NaN).
OPENACLNN_HOST_DEVICE inline double BceElementWide(LossKind kind, double gradient_scale,
                                                   const ElementInputs& in) {
  using O = math::ScalarOps;
  using O64 = math::ScalarOps64;
  const float x = in.x, t = in.t, w = in.w, p = in.p, g = in.g;
  const bool finite = AllFinite(kind, in);
  const float scale = static_cast<float>(gradient_scale);
  switch (kind) {
    case LossKind::kLoss:
      return finite ? math::Loss64<O64>(x, t, w, p)
                    : CanonicalNaN(math::ReferenceLoss<O>(x, t, w, p));
    case LossKind::kGradSelf:
      if (!finite) return CanonicalNaN(math::ReferenceGradSelf<O>(x, t, w, p, g) * scale);
      return SettleToFloat(math::GradSelf64<O64>(x, t, w, p, g, gradient_scale),
                           [&] { return math::exact::GradSelf(x, t, w, p, g, gradient_scale); });
    default:
      if (!finite) return CanonicalNaN(math::ReferenceGradTarget<O>(x, w, p, g) * scale);
      // p = 1 (no pos_weight): the log term's coefficient is 0, skip computing it.
      const double log_term = p == 1.0f ? 0.0 : math::Log1pExpNeg64<O64>(std::fabs(double{x}));
      return SettleToFloat(math::GradTarget64<O64>(x, w, p, g, gradient_scale, log_term),
                           [&] { return math::exact::GradTarget(x, w, p, g, gradient_scale); });
  }
}

// The value of `kind` at one element, rounded once to fp32.
OPENACLNN_HOST_DEVICE inline float BceElement(LossKind kind, double gradient_scale,
                                              const ElementInputs& in) {
  return static_cast<float>(BceElementWide(kind, gradient_scale, in));
}

}  // namespace openaclnn
