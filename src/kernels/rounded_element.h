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

// The value of `type` whose bits are `bits` (fp32, or fp16/bf16 widened exactly to fp32).
OPENACLNN_HOST_DEVICE inline float ValueOfBits(uint32_t bits, FloatType type) {
  switch (type) {
    case FloatType::kFloat32:
      return BitCast<float>(bits);
    case FloatType::kFloat16:
      return Float16ToFloat(static_cast<uint16_t>(bits));
    default:
      return BFloat16ToFloat(static_cast<uint16_t>(bits));
  }
}

// The value of `type` (fp32, or fp16/bf16 widened exactly to fp32) that `value` rounds to once.
OPENACLNN_HOST_DEVICE inline float RoundedTo(double value, FloatType type) {
  return ValueOfBits(RoundOnce(value, type), type);
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

// The bits of +inf in `type` (fp32's, or the 16 bits of fp16's or bf16's): one above the largest
// finite magnitude's.
OPENACLNN_HOST_DEVICE constexpr uint32_t InfinityBits(FloatType type) {
  return type == FloatType::kFloat32   ? 0x7f800000u
         : type == FloatType::kFloat16 ? 0x7c00u
                                       : 0x7f80u;
}

// The value of the non-negative `bits` of `type`, where those of +inf stand for the next power of
// two above the largest finite value (the grid's next step, whose midpoint with that value is where
// rounding overflows).
OPENACLNN_HOST_DEVICE inline double MagnitudeValue(uint32_t bits, FloatType type) {
  if (bits == InfinityBits(type)) return type == FloatType::kFloat16 ? 0x1p16 : 0x1p128;
  return ValueOfBits(bits, type);
}

// A nonzero value v correctly rounded to `type` (to nearest, ties to even, overflow to inf), where
// v is known by its sign and by `compare(m)`, the exact sign (-1, 0, 1) of |v| - m for a double m
// (the midpoints between neighbouring values of `type`): for a rational v that an estimate leaves
// open, which a double-double value cannot decide where v lies on or next to a midpoint. From
// `start`, an approximation of v, the walk steps to the neighbour on v's side of a midpoint until v
// lies between the two around it; every midpoint (at most 25 bits) is exact in fp64.
template <class CompareMagnitude>
OPENACLNN_HOST_DEVICE inline double RoundedByComparisons(double start, bool negative,
                                                         FloatType type, CompareMagnitude compare) {
  const uint32_t infinity = InfinityBits(type);
  uint32_t bits = RoundOnce(std::fabs(start), type);
  for (;;) {
    if (bits < infinity) {
      const int above = compare((MagnitudeValue(bits, type) + MagnitudeValue(bits + 1, type)) / 2);
      if (above > 0) {
        ++bits;
        continue;
      }
      if (above == 0) {
        bits += bits & 1u;  // a tie: the even one
        break;
      }
    }
    if (bits > 0) {
      const int below = compare((MagnitudeValue(bits - 1, type) + MagnitudeValue(bits, type)) / 2);
      if (below < 0) {
        --bits;
        continue;
      }
      if (below == 0) bits -= bits & 1u;
    }
    break;
  }
  const double magnitude = bits == infinity ? HUGE_VAL : MagnitudeValue(bits, type);
  return negative ? -magnitude : magnitude;
}

}  // namespace openaclnn
