// One element of every BCE-with-logits kind, as a host/device function: the definition that the
// CPU's scalar path runs, that every SIMD target must match bit for bit, and that a GPU thread
// runs. Inputs are already widened to fp32; absent operands (weight, pos_weight, gradOutput)
// read as 1.
#pragma once

#include <cmath>

#include "kernels/bce.h"
#include "kernels/math.h"

namespace openaclnn {

struct ElementInputs {
  float x = 0.0f;  // self (logits)
  float t = 0.0f;  // target
  float w = 1.0f;  // weight
  float p = 1.0f;  // pos_weight
  float g = 1.0f;  // gradOutput
};

// The value of `kind` at one element, rounded once to fp32; gradients are multiplied by
// `gradient_scale` (1/N for mean) before that rounding where the kind computes in fp64. Finite
// inputs take the exact formulas; any non-finite input takes the reference formula, which
// decides the class (NaN, +inf, -inf) of the result.
OPENACLNN_HOST_DEVICE inline float BceElement(LossKind kind, double gradient_scale,
                                              const ElementInputs& in) {
  using O = math::ScalarOps;
  using O64 = math::ScalarOps64;
  const float x = in.x, t = in.t, w = in.w, p = in.p, g = in.g;
  switch (kind) {
    case LossKind::kLoss: {
      const bool finite =
          std::isfinite(x) && std::isfinite(t) && std::isfinite(w) && std::isfinite(p);
      return finite ? math::Loss<O>(x, t, w, p) : math::ReferenceLoss<O>(x, t, w, p);
    }
    case LossKind::kGradSelf: {
      const bool finite = std::isfinite(x) && std::isfinite(t) && std::isfinite(w) &&
                          std::isfinite(p) && std::isfinite(g);
      if (!finite) {
        return math::ReferenceGradSelf<O>(x, t, w, p, g) * static_cast<float>(gradient_scale);
      }
      return static_cast<float>(math::GradSelf64<O64>(x, t, w, p, g) * gradient_scale);
    }
    default: {
      const bool finite =
          std::isfinite(x) && std::isfinite(w) && std::isfinite(p) && std::isfinite(g);
      const float grad =
          finite ? math::GradTarget<O>(x, w, p, g) : math::ReferenceGradTarget<O>(x, w, p, g);
      return grad * static_cast<float>(gradient_scale);
    }
  }
}

}  // namespace openaclnn
