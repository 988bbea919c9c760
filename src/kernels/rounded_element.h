// One element's result rounded once into its output type, for any loss family: an fp64 estimate
// settles (its interval's ends round alike, estimate.inc) or the element takes its exact path;
// either way the result is a double whose one rounding to the type (RoundedTo) is the answer.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/math.h"

namespace openaclnn {

using ElementEstimate = math::Estimate64<math::ScalarOps64>;

// The value of `type` (fp32, or fp16/bf16 widened exactly to fp32) that `value` rounds to once.
OPENACLNN_HOST_DEVICE inline float RoundedTo(double value, FloatType type) {
  const uint32_t bits = RoundOnce(value, type);
  switch (type) {
    case FloatType::kFloat32:
      return BitCast<float>(bits);
    case FloatType::kFloat16:
      return Float16ToFloat(static_cast<uint16_t>(bits));
    default:
      return BFloat16ToFloat(static_cast<uint16_t>(bits));
  }
}

// The grid of a 16-bit output type (scalar_ops.h: RoundToGrid).
struct Grid {
  int precision, min_exponent;
};
OPENACLNN_HOST_DEVICE constexpr Grid GridOf(FloatType type) {
  return type == FloatType::kFloat16 ? Grid{11, -14} : Grid{8, -126};
}

// Whether the estimate's rounding to `type` is certain (estimate.inc: Settled, SettledOnGrid), and
// then *value a double whose one rounding to `type` is the result. Both ends of the interval must
// also have one sign: where they round to -0 and +0 (equal, but not the same result), the sign is
// open.
OPENACLNN_HOST_DEVICE inline bool SettledIn(const ElementEstimate& estimate, FloatType type,
                                            double* value) {
  *value = estimate.value;
  const auto interval = math::ErrorInterval(estimate);
  if (std::signbit(interval.low) != std::signbit(interval.high)) return false;
  if (type == FloatType::kFloat32) return math::Settled(estimate);
  const Grid grid = GridOf(type);
  return math::SettledOnGrid(estimate, grid.precision, grid.min_exponent, value);
}

}  // namespace openaclnn
