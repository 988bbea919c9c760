// The gradient of the binary cross entropy w.r.t. self (aclnnBinaryCrossEntropyBackward), one
// element: d = g w (x - t) / max(x (1 - x), fl32(1e-12)), divided by a divisor (N for mean, else
// 1), rounded once into the output type. Its fp64 estimate
// (binary_cross_entropy_gradient.inc) settles nearly every element; the rest, which a rational
// gradient puts exactly on or next to a rounding boundary far more often than a transcendental
// one (x = 1/2, hard labels, 16-bit inputs), take an exact path: the sign of the exact value's
// difference from each boundary times the divisor, from a sum of a few exact products. Host/device
// scalar code; a SIMD evaluator instantiates the .inc with its own policy and sends the lanes that
// do not settle to BinaryCrossEntropyGradient.
//
// Domain: every input an fp32 value (16-bit inputs widened exactly), any divisor (its scale
// 1/divisor is in [2^-63, 1]). x outside [0, 1] follows the formula literally:
// x (1 - x) < 0, so the floor applies and the gradient is finite, g w (x - t) / fl32(1e-12).
// Zeros: where g w (x - t) = 0 the result is the zero IEEE arithmetic gives the formula, signed
// by the product of its factors' signs, x - t being -0 only for x = -0, t = +0 (the denominator
// is positive); a nonzero value that underflows keeps its own sign.
#pragma once

#include <cmath>
#include <initializer_list>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
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
// 2^-847 and 2^825), and the scale itself is within 2^-53 (1 + 2^-40) of 1 / divisor
// (ElementParameters), so the estimate is within (1 + 2^-53)^5 / (1 - 2^-53) - 1 < 6.02 * 2^-53 of
// the exact value. A bound of 2^-50 of the estimate is at least 8 (1 - 2^-50) * 2^-53 of the exact
// value; the interval's ends, rounded in fp64, give up at most 2^-53 of it: 6.9 against 6.02.
inline constexpr double kBinaryCrossEntropyGradientError64 = 0x1p-50;

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "losses/binary_cross_entropy/binary_cross_entropy_gradient.inc"

}  // namespace openaclnn::math

namespace openaclnn::math::exact {

// The gradient as an exact quotient of sums of doubles: n = coef (difference.hi + difference.lo)
// = g w (x - t) (coef = g w, exact: two fp32 significands) and D = denominator.hi +
// denominator.lo = max(x (1 - x), floor), divided once more by an element count (a mean's).
// TwoSum and TwoProd are exact here and in CompareWithBoundary: no value comes near overflow
// (below 2^300), and every product's exact bits lie above 2^-1074: coef is a multiple of 2^-298,
// difference of 2^-149, D's parts of 2^-298 (x >= 2^-40 where the floor does not apply; the floor
// of 2^-63), a midpoint m of 2^-150, so m times a part of D of 2^-448, and the count's parts are
// whole numbers.
struct GradientQuotient {
  double coef;
  DD difference, denominator;
};
OPENACLNN_HOST_DEVICE inline GradientQuotient ExactGradientQuotient(const ElementInputs& in) {
  const double x = in.x;
  DD denominator = TwoSum(x, -(x * x));
  // The same comparison as GradientDenominator64's, which is exact (see there).
  if (!(denominator.hi > kBinaryCrossEntropyGradientFloor)) {
    denominator = {kBinaryCrossEntropyGradientFloor, 0.0};
  }
  return {static_cast<double>(in.g) * in.w, TwoSum(x, -static_cast<double>(in.t)), denominator};
}

// The sign of |n| - m D divisor, exactly, where n has the sign `negative` says: n's two exact
// products and m D divisor's eight, in an ExactSum.
OPENACLNN_HOST_DEVICE inline int CompareWithBoundary(const GradientQuotient& q, bool negative,
                                                     double m, int64_t divisor) {
  ExactSum sum;
  const double coef = negative ? -q.coef : q.coef;
  sum.AddProduct(coef, q.difference.hi);
  sum.AddProduct(coef, q.difference.lo);
  const double count_high = static_cast<double>(divisor >> 32) * 0x1p32;  // exact, as the low
  const double count_low = static_cast<double>(divisor & 0xffffffff);     // 32 bits
  for (const double part : {q.denominator.hi, q.denominator.lo}) {
    const DD scaled = TwoProd(-m, part);
    for (const double piece : {scaled.hi, scaled.lo}) {
      sum.AddProduct(piece, count_high);
      sum.AddProduct(piece, count_low);
    }
  }
  return sum.Sign();
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
// of `type` that is the gradient divided by `divisor`, correctly rounded to it. An exact zero is
// the estimate itself (then exactly +-0, with the sign IEEE arithmetic gives the formula).
OPENACLNN_HOST_DEVICE inline double BinaryCrossEntropyGradientExact(const ElementInputs& in,
                                                                    int64_t divisor,
                                                                    double estimate,
                                                                    FloatType type) {
  const math::exact::GradientQuotient q = math::exact::ExactGradientQuotient(in);
  if (q.coef == 0.0 || q.difference.hi == 0.0) return estimate;
  const bool negative = (q.coef < 0.0) != (q.difference.hi < 0.0);
  return RoundedByComparisons(estimate, negative, type, [&](double m) {
    return math::exact::CompareWithBoundary(q, negative, m, divisor);
  });
}

// The gradient at one element divided by parameters.divisor, correctly rounded once to `type`
// (returned as fp32, exactly): the fp64 estimate (times parameters.scale, whose rounding is
// inside its bound) where its rounding is certain, else the exact path; the reference formula
// where an input is not finite.
OPENACLNN_HOST_DEVICE inline float BinaryCrossEntropyGradient(const ElementInputs& in,
                                                              const ElementParameters& parameters,
                                                              FloatType type) {
  if (!GradientInputsFinite(in)) {
    return RoundedTo(BinaryCrossEntropyGradientReference(in, parameters.scale), type);
  }
  const ElementEstimate estimate = BinaryCrossEntropyGradientEstimate(in, parameters.scale);
  double settled = 0.0;
  if (SettledIn(estimate, type, &settled)) return RoundedTo(settled, type);
  return RoundedTo(BinaryCrossEntropyGradientExact(in, parameters.divisor, estimate.value, type),
                   type);
}

}  // namespace openaclnn
