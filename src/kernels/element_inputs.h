// One element's inputs, as every family's element function reads them: widened to fp32 (exactly,
// from any input dtype; an integer input first rounded once to the op's promoted type); an absent
// operand (weight, pos_weight, gradOutput) reads as 1. And what a problem tells every element
// alike: the divisor of a mean and a family's scalar parameter and variant.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"

namespace openaclnn {

struct ElementInputs {
  float x = 0.0f;  // self (logits, probabilities, predictions: see the family)
  float t = 0.0f;  // target
  float w = 1.0f;  // weight
  float p = 1.0f;  // pos_weight
  float g = 1.0f;  // gradOutput
};

// The domain of non-negative loss terms as unsigned ranges of an fp32's bits (-0 and NaN are
// outside both): a probability or target in [+0, 1], a weight in [+0, FLT_MAX]. One integer
// comparison per operand, in scalar and SIMD code alike.
inline constexpr uint32_t kOneBits = 0x3f800000u, kLargestFiniteBits = 0x7f7fffffu;

struct ElementParameters {
  // An element's result is its term divided by `divisor` (a mean's gradient: N), rounded once.
  int64_t divisor = 1;
  // 1 / divisor in fp64, which estimates multiply by: within kScaleError of it, relative
  // (DividedBy), exact where divisor is a power of two (ScaleIsExact); every estimate's bound
  // includes that. Exact paths divide by divisor itself.
  double scale = 1.0;
  // A family's scalar attribute (smooth L1's beta, Huber's delta) and variant (Huber within the
  // smooth L1 family; a log-space target within KL divergence); 0 where it has none.
  double parameter = 0.0;
  int variant = 0;
};

// The relative error of ElementParameters::scale, |scale * divisor - 1| <= kScaleError: one
// rounding, and above 2^53 2^-100 more (DividedBy); tests/unit/kernels/divided_by_test.cc checks
// it against exact rationals. The families' gradient bounds take 2^-53 (1 + 2^-40) for it.
inline constexpr double kScaleError = 0x1p-53 * (1 + 0x1p-40);

// Whether parameters.scale is 1 / divisor itself: the divisor a power of two (up to 2^62, so the
// scale 2^-k is an fp32 too). Only then may a path take a value times the scale as the quotient:
// fl64(1/N) is also a power of two for N = 2^k + 1 above 2^53, which it is not the reciprocal of.
OPENACLNN_HOST_DEVICE inline constexpr bool ScaleIsExact(const ElementParameters& parameters) {
  return (parameters.divisor & (parameters.divisor - 1)) == 0;
}

// The parameters of a problem whose elements are divided by `divisor` (>= 1). Up to 2^53 the
// divisor is a double and its reciprocal one rounding; above, where the divisor itself rounds, one
// Newton step against its exact two parts (divisor = high + low, low its 32 low bits) brings the
// reciprocal back within a rounding and 2^-100 of 1 / divisor. Its residual r = 1 - scale * divisor
// (|r| < 2^-51) is formed within 2^-103: each product as its rounding and that rounding's error
// (a fused multiply-add, both exact), 1 - scale * high exact (Sterbenz: the product lies within
// 2^-20 of 1), and the three subtractions that follow each exact or rounded by at most 2^-105
// (their results below 2^-51). The step's scale (1 + r) is then within r^2 + 2^-103 < 2^-101 of
// 1 / divisor, relative, before its one rounding. (Rounded alone, scale * low, up to 2^-21, erred
// by up to 2^-75, and so did the scale: 2^-53 (1 + 2^-23) of 1 / divisor for 2^54 - 65534.)
inline ElementParameters DividedBy(int64_t divisor, double parameter = 0.0, int variant = 0) {
  double scale = 1.0 / static_cast<double>(divisor);
  if (divisor > (int64_t{1} << 53)) {
    const double high = static_cast<double>(divisor >> 32) * 0x1p32;
    const double low = static_cast<double>(divisor & 0xffffffff);
    const double high_product = scale * high, high_error = std::fma(scale, high, -high_product);
    const double low_product = scale * low, low_error = std::fma(scale, low, -low_product);
    const double residual = (((1.0 - high_product) - low_product) - high_error) - low_error;
    scale = std::fma(scale, residual, scale);
  }
  return {divisor, scale, parameter, variant};
}

}  // namespace openaclnn
