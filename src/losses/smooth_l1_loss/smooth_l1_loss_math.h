// The smooth L1 family's element math: smooth L1 (variant 0, parameter beta, an fp32 value >= 0 or
// +inf) and Huber (variant 1, parameter delta, a double > 0 or +inf), loss and gradient, each
// correctly rounded once. With d = x - t:
//   smooth L1 loss     |d| < beta ? d^2 / (2 beta) : |d| - beta / 2   (beta = 0: |d|)
//   smooth L1 gradient |d| < beta ? g d / beta     : g sign(d)        (sign(+-0) = +-0)
//   Huber loss         |d| < delta ? d^2 / 2       : delta (|d| - delta / 2)
//   Huber gradient     |d| < delta ? g d           : g delta sign(d)
// An element's result is that divided by p.divisor (N). Its value is a numerator over a divisor
// (d^2 over 2 beta N, g d over beta N, ...), estimated as the numerator's fp64 value times a
// constant scale (smooth_l1_loss_formulas.inc). The estimate settles nearly every element; where it
// does not, and the numerator is exact (its rest is 0: short inputs, ties among them), the value is
// the exact ratio of two doubles: the estimate itself where the scale is exactly 1 / divisor (both
// powers of two), else rounded by the exact sign of |numerator| - m divisor at each midpoint m (a
// TwoProd and SignOfSum); the rest take the exact path: the numerator over the problem's common
// denominator D (beta for smooth L1 with 0 < beta < inf, a power of two for Huber's tiny deltas,
// else 1) added exactly (math::exact::ExactSum) and divided by D N in one rounding
// (RoundedQuotient). Host/device scalar code; a SIMD evaluator instantiates the .inc with its own
// policy and sends the lanes that do not settle to the family's Element (smooth_l1_loss_family.h).
//
// Inputs that are not finite take the formula as IEEE fp64 evaluates it (its class: NaN, +-inf),
// but for a gradient whose d is +-inf with g finite: its linear branch, g sign(d) (smooth L1) or
// g delta sign(d) (Huber, delta finite), finite and correctly rounded.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/math.h"
#include "kernels/rounded_element.h"
#include "losses/smooth_l1_loss/smooth_l1_loss_error_budget.h"

namespace openaclnn::math {

// One problem's constants of the estimates: an element takes the quadratic branch where
// |fl(x - t)| < threshold; the linear branch's loss numerator is (|d| - offset) linear_factor, its
// gradient's g sign(d) linear_factor (linear_factor 1, or Huber's delta). Each value is its
// numerator times a scale that stands for 1 / divisor: loss_quadratic for d^2 over
// 2 quadratic_divisor, gradient_quadratic for g d over quadratic_divisor (beta N, Huber's N),
// linear for the linear numerators over linear_divisor (N). quadratic_exact and linear_exact: the
// scale is exactly 1 / its divisor (both powers of two); divisors_exact: both divisors are.
struct SmoothL1Constants {
  double threshold, offset, linear_factor;
  double loss_quadratic, gradient_quadratic, linear;
  double quadratic_divisor, linear_divisor;
  bool quadratic_exact, linear_exact, divisors_exact;
};

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "losses/smooth_l1_loss/smooth_l1_loss_formulas.inc"

}  // namespace openaclnn::math

namespace openaclnn {

// ElementParameters::variant of the family.
inline constexpr int kSmoothL1Variant = 0;
inline constexpr int kHuberVariant = 1;

OPENACLNN_HOST_DEVICE inline bool IsHuber(const ElementParameters& p) {
  return p.variant == kHuberVariant;
}

// Huber below kHuberTinyDelta: every element result is a zero (the error budget says why).
OPENACLNN_HOST_DEVICE inline bool InHuberTinyRange(const ElementParameters& p) {
  return IsHuber(p) && p.parameter < math::kHuberTinyDelta;
}

// The estimates' constants for results divided by `count` (N) through `scale` (fl64(1/N): exact
// where N is a power of two). beta = 0: the quadratic branch only at d = 0, where both give zeros
// (kSmoothL1ZeroBetaThreshold); beta = +inf: every finite d quadratic, d^2 / inf = 0.
OPENACLNN_HOST_DEVICE inline math::SmoothL1Constants SmoothL1ConstantsOf(const ElementParameters& p,
                                                                         double scale,
                                                                         int64_t count) {
  const double b = p.parameter, n = static_cast<double>(count);
  const bool scale_exact = (count & (count - 1)) == 0;
  const bool count_exact = count <= (int64_t{1} << 53);  // n is N itself
  if (IsHuber(p)) {
    return {b, 0.5 * b, b, 0.5 * scale, scale, scale, n, n, scale_exact, scale_exact, count_exact};
  }
  if (b == 0.0) {
    return {math::kSmoothL1ZeroBetaThreshold,
            0.0,
            1.0,
            0.5 * scale,
            scale,
            scale,
            n,
            n,
            true,
            scale_exact,
            count_exact};
  }
  if (std::isinf(b)) return {b, b, 1.0, 0.0, 0.0, scale, n, n, true, scale_exact, count_exact};
  // scale / beta is exact where both are powers of two (beta is a normal double), then halved.
  const double quadratic = scale / b, divisor = b * n;
  const bool beta_power_of_two = (BitCast<uint64_t>(b) & ((uint64_t{1} << 52) - 1)) == 0;
  return {b,
          0.5 * b,
          1.0,
          0.5 * quadratic,
          quadratic,
          scale,
          divisor,
          n,
          scale_exact && beta_power_of_two,
          scale_exact,
          count_exact && std::fma(b, n, -divisor) == 0.0};
}

// An element's constants (divided by p.divisor) and a mean's or sum's term's (not divided).
OPENACLNN_HOST_DEVICE inline math::SmoothL1Constants SmoothL1ElementConstants(
    const ElementParameters& p) {
  return SmoothL1ConstantsOf(p, p.scale, p.divisor);
}
OPENACLNN_HOST_DEVICE inline math::SmoothL1Constants SmoothL1TermConstants(
    const ElementParameters& p) {
  return SmoothL1ConstantsOf(p, 1.0, 1);
}

}  // namespace openaclnn

namespace openaclnn::math::exact {

// A problem's exact numerators: every term is its numerator over `denominator` (D), where
// numerators are sums of exact products of doubles: the quadratic branch (|d| < threshold, decided
// on d's exact value) 0.5 quadratic d^2 and quadratic g d, the linear one linear |d| -
// 0.5 linear parameter and g sign(d) linear. D = beta (smooth L1, 0 < beta < inf: linear = beta,
// quadratic = 1), 1 (beta = 0: linear = 1, parameter = 0; beta = +inf: quadratic = 0, every finite
// d giving 0, linear = 1 for a gradient at d = +-inf; Huber in the regular range: linear = delta),
// 2^k (Huber's tiny deltas: linear = 2^k delta and quadratic = 2^k, math::kHuberTinyScaleLimit).
struct SmoothL1Numerators {
  double threshold, denominator, quadratic, linear, parameter;
};
OPENACLNN_HOST_DEVICE inline SmoothL1Numerators SmoothL1NumeratorsOf(const ElementParameters& p) {
  const double b = p.parameter;
  if (IsHuber(p)) {
    if (!InHuberTinyRange(p)) return {b, 1.0, 1.0, b, b};
    const int k = std::ilogb(b) < -kHuberTinyScaleLimit ? kHuberTinyScaleLimit : -std::ilogb(b);
    const double power = std::ldexp(1.0, k);
    return {b, power, power, b * power, b};
  }
  if (b == 0.0) return {kSmoothL1ZeroBetaThreshold, 1.0, 1.0, 1.0, 0.0};
  if (std::isinf(b)) return {b, 1.0, 0.0, 1.0, b};
  return {b, b, 1.0, b, b};
}

// d = x - t exactly, and whether |d| < n.threshold (TwoSum's high part decides, but where it equals
// the threshold, which a low part of the other sign takes below it).
struct SmoothL1Difference {
  DD d;
  bool quadratic;
};
OPENACLNN_HOST_DEVICE inline SmoothL1Difference SmoothL1DifferenceOf(const SmoothL1Numerators& n,
                                                                     float x, float t) {
  const DD d = TwoSum(x, -static_cast<double>(t));
  const double magnitude = std::fabs(d.hi);
  const bool below = d.lo != 0.0 && (d.lo < 0.0) != (d.hi < 0.0);
  return {d, magnitude < n.threshold || (magnitude == n.threshold && below)};
}

// The loss's numerator, for finite x and t, added to `sum`. Every product is in TwoProd's domain
// (its factors' lowest set bits multiply to at least 2^-1074, their product below 2^259): d's parts
// are multiples of 2^-149, beta's of 2^-149, a regular delta's of 2^-502 (0.5 delta delta:
// 2^-1005), a tiny delta' = 2^k delta's of 2^-274. But for a tiny delta below 2^-884, whose 0.5
// delta' delta can lie below fp64's range (its TwoProd then within 2^-1075 of it): every total of
// such terms rounds to +0 in every type all the same (error budget: kHuberTinyDelta).
OPENACLNN_HOST_DEVICE inline void AddSmoothL1LossNumerator(const SmoothL1Numerators& n, float x,
                                                           float t, ExactSum& sum) {
  const SmoothL1Difference difference = SmoothL1DifferenceOf(n, x, t);
  const DD d = difference.d;
  if (difference.quadratic) {
    const double half = 0.5 * n.quadratic;
    sum.AddProduct(half * d.hi, d.hi);
    sum.AddProduct(n.quadratic * d.hi, d.lo);
    sum.AddProduct(half * d.lo, d.lo);
    return;
  }
  const double sign = d.hi < 0.0 ? -1.0 : 1.0;
  sum.AddProduct(n.linear, sign * d.hi);
  sum.AddProduct(n.linear, sign * d.lo);
  sum.AddProduct(-0.5 * n.linear, n.parameter);
}

// The linear branch's gradient numerator, g sign(d) linear (d < 0 where `negative`), for a finite
// g whose product with n.linear is finite.
OPENACLNN_HOST_DEVICE inline void AddSmoothL1LinearGradientNumerator(const SmoothL1Numerators& n,
                                                                     bool negative, float g,
                                                                     ExactSum& sum) {
  sum.AddProduct(negative ? -static_cast<double>(g) : static_cast<double>(g), n.linear);
}

// The gradient's numerator, for finite x, t and g.
OPENACLNN_HOST_DEVICE inline void AddSmoothL1GradientNumerator(const SmoothL1Numerators& n, float x,
                                                               float t, float g, ExactSum& sum) {
  const SmoothL1Difference difference = SmoothL1DifferenceOf(n, x, t);
  if (!difference.quadratic) {
    AddSmoothL1LinearGradientNumerator(n, difference.d.hi < 0.0, g, sum);
    return;
  }
  const double coefficient = n.quadratic * g;  // exact: quadratic is 0 or a power of two
  sum.AddProduct(coefficient, difference.d.hi);
  sum.AddProduct(coefficient, difference.d.lo);
}

}  // namespace openaclnn::math::exact

namespace openaclnn {

// Where an input is not finite: the formula as IEEE fp64 evaluates it (not divided by N: the class
// is the same), which decides the class of the result; NaN made kCanonicalNaN. sign(d) is d itself
// at +-0 and NaN. A gradient's g is the one of its kind (negated for the target's).
OPENACLNN_HOST_DEVICE inline double SmoothL1LossReference(const ElementParameters& p, float x,
                                                          float t) {
  const double a = std::fabs(static_cast<double>(x) - t), b = p.parameter;
  if (IsHuber(p)) return CanonicalNaN(a < b ? 0.5 * a * a : b * (a - 0.5 * b));
  return CanonicalNaN(a < b ? 0.5 * a * a / b : a - 0.5 * b);
}
OPENACLNN_HOST_DEVICE inline double SmoothL1GradientReference(const ElementParameters& p, float x,
                                                              float t, float g) {
  const double d = static_cast<double>(x) - t, b = p.parameter;
  const double sign = d > 0.0 ? 1.0 : d < 0.0 ? -1.0 : d;
  if (IsHuber(p)) return CanonicalNaN(std::fabs(d) < b ? g * d : g * b * sign);
  return CanonicalNaN(std::fabs(d) < b ? g * d / b : g * sign);
}

// One element's value, numerator / divisor with the numerator's fp64 value `numerator` (exact where
// `rest()` is 0, called only where `estimate` does not settle), rounded once to `type`: where the
// estimate settles, its rounding; where the numerator is exact and `scale_exact` (the estimate is
// then the value itself), its rounding; where the numerator and `divisor` are exact, by the exact
// sign of |numerator| - m divisor at the midpoints m next to the estimate (TwoProd is exact: m's
// and the divisor's lowest set bits are at least 2^-150 and 2^-149, their product below 2^310);
// else the exact path: the numerator `add_numerator` adds, over D times p.divisor.
template <class Rest, class AddNumerator>
OPENACLNN_HOST_DEVICE inline float SmoothL1Rounded(const ElementEstimate& estimate,
                                                   double numerator, double divisor,
                                                   bool scale_exact, bool divisor_exact,
                                                   const ElementParameters& p, FloatType type,
                                                   Rest rest, AddNumerator add_numerator) {
  double settled = 0.0;
  if (SettledIn(estimate, type, &settled)) return RoundedTo(settled, type);
  if (rest() == 0.0) {
    if (scale_exact) return RoundedTo(estimate.value, type);
    if (divisor_exact) {
      const double magnitude = std::fabs(numerator);
      return RoundedTo(
          RoundedByComparisons(estimate.value, numerator < 0.0, type,
                               [&](double m) {
                                 const math::exact::DD product = math::exact::TwoProd(m, divisor);
                                 const double terms[3] = {magnitude, -product.hi, -product.lo};
                                 return math::exact::SignOfSum(terms);
                               }),
          type);
    }
  }
  const math::exact::SmoothL1Numerators n = math::exact::SmoothL1NumeratorsOf(p);
  math::exact::ExactSum sum;
  add_numerator(n, sum);
  const double quotient =
      math::exact::RoundedQuotient(sum, math::exact::DivisorOf(n.denominator, p.divisor), type);
  return RoundedTo(quotient, type);
}

// The loss at one element divided by p.divisor, correctly rounded once to `type` (returned as the
// fp32 that holds it). Zeros are +0.
OPENACLNN_HOST_DEVICE inline float SmoothL1Loss(const ElementParameters& p, const ElementInputs& in,
                                                FloatType type) {
  using O64 = math::ScalarOps64;
  if (!(std::isfinite(in.x) && std::isfinite(in.t))) {
    return RoundedTo(SmoothL1LossReference(p, in.x, in.t), type);
  }
  if (InHuberTinyRange(p)) return 0.0f;
  const math::SmoothL1Constants k = SmoothL1ElementConstants(p);
  const bool quadratic = std::fabs(static_cast<double>(in.x) - in.t) < k.threshold;
  return SmoothL1Rounded(
      math::SmoothL1Loss64<O64>(in.x, in.t, k),
      math::SmoothL1LossParts64<O64>(in.x, in.t, k).numerator,
      quadratic ? 2.0 * k.quadratic_divisor : k.linear_divisor,
      quadratic ? k.quadratic_exact : k.linear_exact, k.divisors_exact, p, type,
      [&] { return math::SmoothL1LossRest64<O64>(in.x, in.t, k); },
      [&](const math::exact::SmoothL1Numerators& n, math::exact::ExactSum& sum) {
        math::exact::AddSmoothL1LossNumerator(n, in.x, in.t, sum);
      });
}

// The gradient w.r.t. self at one element with gradOutput g (-g for the target's), divided by
// p.divisor, correctly rounded once to `type`. Zeros have the sign of g times d's (d = x - t is -0
// only for x = -0, t = +0); a nonzero result that rounds to zero keeps its own.
OPENACLNN_HOST_DEVICE inline float SmoothL1Gradient(const ElementParameters& p, float x, float t,
                                                    float g, FloatType type) {
  using O64 = math::ScalarOps64;
  const double d = static_cast<double>(x) - t;
  if (std::isnan(d) || !std::isfinite(g)) {
    return RoundedTo(SmoothL1GradientReference(p, x, t, g), type);
  }
  if (InHuberTinyRange(p)) return std::signbit(g) != std::signbit(d) ? -0.0f : 0.0f;
  const math::SmoothL1Constants k = SmoothL1ElementConstants(p);
  if (std::isinf(d)) {
    // Its linear branch; a Huber delta of +inf (g delta: +-inf or NaN) takes the reference.
    if (std::isinf(k.linear_factor)) return RoundedTo(SmoothL1GradientReference(p, x, t, g), type);
    const double numerator = math::SmoothL1LinearGradientNumerator64<O64>(d, g, k);
    const double value = numerator * k.linear;
    // Beyond fp64's range (g delta with delta near it): beyond every type's.
    if (std::isinf(value)) return RoundedTo(value, type);
    return SmoothL1Rounded(
        {value, std::fabs(value) * math::kSmoothL1Error64}, numerator, k.linear_divisor,
        k.linear_exact, k.divisors_exact, p, type,
        [&] { return math::SmoothL1LinearGradientRest64<O64>(g, k); },
        [&](const math::exact::SmoothL1Numerators& n, math::exact::ExactSum& sum) {
          math::exact::AddSmoothL1LinearGradientNumerator(n, d < 0.0, g, sum);
        });
  }
  const bool quadratic = std::fabs(d) < k.threshold;
  return SmoothL1Rounded(
      math::SmoothL1Gradient64<O64>(x, t, g, k),
      math::SmoothL1GradientParts64<O64>(x, t, g, k).numerator,
      quadratic ? k.quadratic_divisor : k.linear_divisor,
      quadratic ? k.quadratic_exact : k.linear_exact, k.divisors_exact, p, type,
      [&] { return math::SmoothL1GradientRest64<O64>(x, t, g, k); },
      [&](const math::exact::SmoothL1Numerators& n, math::exact::ExactSum& sum) {
        math::exact::AddSmoothL1GradientNumerator(n, x, t, g, sum);
      });
}

// A mean's or sum's loss term (not divided): its estimate and bound (kSmoothL1Error64 of it), or
// where an input is not finite the reference value with a NaN bound; Huber's tiny range: 0 within
// kHuberTinyTermBound.
OPENACLNN_HOST_DEVICE inline ElementEstimate SmoothL1LossTerm(const ElementParameters& p,
                                                              const ElementInputs& in) {
  if (!(std::isfinite(in.x) && std::isfinite(in.t))) {
    return {SmoothL1LossReference(p, in.x, in.t), kCanonicalNaN};
  }
  if (InHuberTinyRange(p)) return {0.0, math::kHuberTinyTermBound};
  return math::SmoothL1Loss64<math::ScalarOps64>(in.x, in.t, SmoothL1TermConstants(p));
}

// A gradient's term (gradOutput g), as SmoothL1LossTerm.
OPENACLNN_HOST_DEVICE inline ElementEstimate SmoothL1GradientTerm(const ElementParameters& p,
                                                                  float x, float t, float g) {
  if (!(std::isfinite(x) && std::isfinite(t) && std::isfinite(g))) {
    return {SmoothL1GradientReference(p, x, t, g), kCanonicalNaN};
  }
  if (InHuberTinyRange(p)) {
    return {std::signbit(g) != std::signbit(static_cast<double>(x) - t) ? -0.0 : 0.0,
            math::kHuberTinyTermBound};
  }
  return math::SmoothL1Gradient64<math::ScalarOps64>(x, t, g, SmoothL1TermConstants(p));
}

// A gradient's exact numerator (gradOutput g), for the exact pass: nothing where the term is not
// finite (a total that is not finite never takes that pass), the linear branch where d = +-inf.
OPENACLNN_HOST_DEVICE inline void AddSmoothL1GradientTerm(const ElementParameters& p, float x,
                                                          float t, float g,
                                                          math::exact::ExactSum& sum) {
  const math::exact::SmoothL1Numerators n = math::exact::SmoothL1NumeratorsOf(p);
  const double d = static_cast<double>(x) - t;
  if (std::isnan(d) || !std::isfinite(g)) return;
  if (!std::isinf(d)) {
    math::exact::AddSmoothL1GradientNumerator(n, x, t, g, sum);
  } else if (std::isfinite(g * n.linear)) {
    math::exact::AddSmoothL1LinearGradientNumerator(n, d < 0.0, g, sum);
  }
}

}  // namespace openaclnn
