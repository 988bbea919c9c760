// The gradient of the binary cross entropy w.r.t. self (aclnnBinaryCrossEntropyBackward), one
// element: d = g w (x - t) / max(x (1 - x), fl32(1e-12)), times gradient_scale (fp64 1/N for mean,
// else 1), rounded once into the output type. Its fp64 estimate
// (binary_cross_entropy_gradient.inc) settles nearly every element; the rest, which a rational
// gradient puts exactly on or next to a rounding boundary far more often than a transcendental
// one (x = 1/2, hard labels, 16-bit inputs), take an exact path: the sign of the exact value's
// difference from each boundary, from a sum of a few exact products. Host/device scalar code; a
// SIMD evaluator instantiates the .inc with its own policy and sends the lanes that do not settle
// to BinaryCrossEntropyGradient.
//
// Domain: every input an fp32 value (16-bit inputs widened exactly), gradient_scale in
// [2^-400, 2^400] (fl64(1/N) is in [2^-64, 1]). x outside [0, 1] follows the formula literally:
// x (1 - x) < 0, so the floor applies and the gradient is finite, g w (x - t) / fl32(1e-12).
// Zeros: where g w (x - t) = 0 the result is the zero IEEE arithmetic gives the formula, signed
// by the product of its factors' signs, x - t being -0 only for x = -0, t = +0 (the denominator
// is positive); a nonzero value that underflows keeps its own sign.
#pragma once

#include <cmath>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/element_inputs.h"
#include "kernels/math.h"
#include "kernels/rounded_element.h"

namespace openaclnn::math {

// fl32(1e-12) (0x2b8cbccc), the floor of the denominator: every CANN path and torch float32 apply
// the constant in fp32.
inline constexpr double kBinaryCrossEntropyGradientFloor = 0x1.197998p-40;
static_assert(kBinaryCrossEntropyGradientFloor == static_cast<double>(1e-12f));

// The estimate's relative error bound. g*w is exact (two fp32 significands, above 2^-298); x - t,
// x - x*x (x*x exact), the product with the scale, that with x - t and the quotient are five
// roundings of 2^-53, relative while every value is a normal double (in the domain: between
// 2^-847 and 2^825), so the estimate is within (1 + 2^-53)^4 / (1 - 2^-53) - 1 < 5.01 * 2^-53 of
// the exact value. A bound of 2^-50 of the estimate is at least 8 (1 - 2^-50) * 2^-53 of the exact
// value; the interval's ends, rounded in fp64, give up at most 2^-53 of it: 6.9 against 5.01.
inline constexpr double kBinaryCrossEntropyGradientError64 = 0x1p-50;

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "losses/binary_cross_entropy/binary_cross_entropy_gradient.inc"

}  // namespace openaclnn::math

namespace openaclnn::math::exact {

// The gradient as an exact quotient of sums of doubles: n = (coef.hi + coef.lo)(difference.hi +
// difference.lo) = g w s (x - t) and D = denominator.hi + denominator.lo = max(x (1 - x), floor).
// TwoProd and TwoSum are exact here and in CompareWithBoundary: no value comes near overflow
// (below 2^825), and every product's exact bits lie above 2^-1074: coef's parts are multiples of
// 2^-750 (g w of 2^-298, s of 2^-452), difference's of 2^-149, D's of 2^-126 (x >= 2^-40 where
// the floor does not apply; the floor of 2^-63), a midpoint m of 2^-150.
struct GradientQuotient {
  DD coef, difference, denominator;
};
OPENACLNN_HOST_DEVICE inline GradientQuotient ExactGradientQuotient(const ElementInputs& in,
                                                                    double gradient_scale) {
  const double x = in.x;
  DD denominator = TwoSum(x, -(x * x));
  // The same comparison as GradientDenominator64's, which is exact (see there).
  if (!(denominator.hi > kBinaryCrossEntropyGradientFloor)) {
    denominator = {kBinaryCrossEntropyGradientFloor, 0.0};
  }
  return {TwoProd(static_cast<double>(in.g) * in.w, gradient_scale),
          TwoSum(x, -static_cast<double>(in.t)), denominator};
}

// The sign of |n| - m D, exactly, where n has the sign `negative` says: |n| = +-n expands into
// eight doubles, m D (m a midpoint of a 16- or 32-bit grid, below 2^129) into four.
OPENACLNN_HOST_DEVICE inline int CompareWithBoundary(const GradientQuotient& q, bool negative,
                                                     double m) {
  const double c_hi = negative ? -q.coef.hi : q.coef.hi, c_lo = negative ? -q.coef.lo : q.coef.lo;
  const DD products[6] = {TwoProd(c_hi, q.difference.hi), TwoProd(c_hi, q.difference.lo),
                          TwoProd(c_lo, q.difference.hi), TwoProd(c_lo, q.difference.lo),
                          TwoProd(-m, q.denominator.hi),  TwoProd(-m, q.denominator.lo)};
  double terms[12];
  for (int i = 0; i < 6; ++i) terms[2 * i] = products[i].hi, terms[2 * i + 1] = products[i].lo;
  return SignOfSum(terms);
}

}  // namespace openaclnn::math::exact

namespace openaclnn {

// Whether the gradient's inputs are finite (the estimate's and the exact path's domain).
OPENACLNN_HOST_DEVICE inline bool GradientInputsFinite(const ElementInputs& in) {
  return std::isfinite(in.x) && std::isfinite(in.t) && std::isfinite(in.w) && std::isfinite(in.g);
}

// The fp64 estimate at one element, its bound NaN where an input is not finite.
OPENACLNN_HOST_DEVICE inline ElementEstimate BinaryCrossEntropyGradientEstimate(
    const ElementInputs& in, double gradient_scale) {
  return math::BinaryCrossEntropyGradient64<math::ScalarOps64>(in.x, in.t, in.w, in.g,
                                                               gradient_scale);
}

// Where an input is not finite: the formula as written, in IEEE fp64, decides the class of the
// result (+-inf, or NaN, made kCanonicalNaN): (g w) (x - t), 0 * inf giving NaN; x = +-inf makes
// x (1 - x) = -inf, so the floor applies, as for any x outside [0, 1].
OPENACLNN_HOST_DEVICE inline double BinaryCrossEntropyGradientReference(const ElementInputs& in,
                                                                        double gradient_scale) {
  const double x = in.x, t = in.t, w = in.w, g = in.g;
  const double product = x * (1.0 - x);
  const double denominator = product > math::kBinaryCrossEntropyGradientFloor
                                 ? product
                                 : math::kBinaryCrossEntropyGradientFloor;
  return CanonicalNaN((g * w) * (x - t) / denominator * gradient_scale);
}

// The exact path, for finite inputs whose estimate (value `estimate`) does not settle: a double
// of `type` that is the gradient correctly rounded to it. An exact zero is the estimate itself
// (then exactly +-0, with the sign IEEE arithmetic gives the formula).
OPENACLNN_HOST_DEVICE inline double BinaryCrossEntropyGradientExact(const ElementInputs& in,
                                                                    double gradient_scale,
                                                                    double estimate,
                                                                    FloatType type) {
  const math::exact::GradientQuotient q = math::exact::ExactGradientQuotient(in, gradient_scale);
  if (q.coef.hi == 0.0 || q.difference.hi == 0.0) return estimate;
  const bool negative = (q.coef.hi < 0.0) != (q.difference.hi < 0.0);
  return RoundedByComparisons(estimate, negative, type, [&](double m) {
    return math::exact::CompareWithBoundary(q, negative, m);
  });
}

// The gradient at one element, correctly rounded once to `type` (returned as fp32, exactly): the
// fp64 estimate where its rounding is certain, else the exact path; the reference formula where
// an input is not finite.
OPENACLNN_HOST_DEVICE inline float BinaryCrossEntropyGradient(const ElementInputs& in,
                                                              double gradient_scale,
                                                              FloatType type) {
  if (!GradientInputsFinite(in)) {
    return RoundedTo(BinaryCrossEntropyGradientReference(in, gradient_scale), type);
  }
  const ElementEstimate estimate = BinaryCrossEntropyGradientEstimate(in, gradient_scale);
  double settled = 0.0;
  if (SettledIn(estimate, type, &settled)) return RoundedTo(settled, type);
  return RoundedTo(BinaryCrossEntropyGradientExact(in, gradient_scale, estimate.value, type), type);
}

}  // namespace openaclnn
