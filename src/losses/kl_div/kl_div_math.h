// The KL divergence family's element math (aclnnKlDiv, aclnnKlDivBackward,
// aclnnKlDivTargetBackward), one element: x = self (log-probabilities), t = target, g =
// gradOutput, D = the divisor, variant 0 (t holds probabilities) or kKlDivLogTarget (t holds
// log-probabilities):
//
//   kind         probabilities                   log targets
//   kLoss        t (ln t - x) / D, t = 0: 0      e^t (t - x) / D
//   kGradSelf    -g t / D                         -g e^t / D
//   kGradTarget  g (ln t - x + 1) / D             g e^t (t - x + 1) / D
//
// each rounded once into the output type. Its fp64 estimates (kl_div_formulas.inc) settle nearly
// every element; the rest take an exact path: the numerator as an exact sum of exact products
// (kernels/exact_sum.h) with ln t or e^t in double-double, divided by D exactly and rounded once
// (RoundedQuotient), so that rational results round ties to even and cancelling ones keep their
// own relative accuracy (kl_div_error_budget.h). Host/device scalar code; a SIMD evaluator
// instantiates the .inc with its own policy and sends the lanes that do not settle to
// KlDivElement.
//
// Domain of the formulas: every input read finite (the loss reads x, t; the self gradient g, t;
// the target gradient all three), and for probabilities t >= 0 (loss), t > 0 (target gradient),
// for log targets t <= kKlDivExpTargetMax. Elsewhere KlDivSpecial: NaN for t < 0 (a logarithm of a
// negative) and for the target gradient at t = 0 (no derivative there: CANN and torch give NaN
// too); +-inf (or an exact 0) for log targets above kKlDivExpTargetMax; and for an input that is
// not finite the class IEEE arithmetic gives the formula with every finite factor exact
// (KlDivReference).
#pragma once

#include <cmath>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/loss_problem.h"
#include "kernels/math.h"
#include "kernels/rounded_element.h"
#include "kernels/triple_double.h"
#include "losses/kl_div/kl_div_error_budget.h"

namespace openaclnn::math {

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "losses/kl_div/kl_div_formulas.inc"

}  // namespace openaclnn::math

namespace openaclnn {

// ElementParameters::variant of log targets (aclnnKlDiv's logTarget); 0: probabilities.
inline constexpr int kKlDivLogTarget = 1;

// The variant of aclnnKlDiv's logTarget, as the op table holds the attribute (0 or 1).
constexpr int KlDivVariant(double log_target) { return log_target != 0.0 ? kKlDivLogTarget : 0; }

// Whether the inputs `kind` reads are finite.
OPENACLNN_HOST_DEVICE inline bool KlDivInputsFinite(LossKind kind, const ElementInputs& in) {
  const bool finite = std::isfinite(in.t);
  if (kind == LossKind::kLoss) return finite && std::isfinite(in.x);
  if (kind == LossKind::kGradSelf) return finite && std::isfinite(in.g);
  return finite && std::isfinite(in.x) && std::isfinite(in.g);
}

// Whether an element takes the formulas (see the domain above).
OPENACLNN_HOST_DEVICE inline bool KlDivInDomain(LossKind kind, int variant,
                                                const ElementInputs& in) {
  if (!KlDivInputsFinite(kind, in)) return false;
  if (variant == kKlDivLogTarget) return in.t <= math::kKlDivExpTargetMax;
  return kind == LossKind::kLoss ? in.t >= 0.0f : kind == LossKind::kGradSelf || in.t > 0.0f;
}

// The fp64 estimate of `kind` times `scale` (p.scale for an element, 1 for a mean's or sum's
// term); its bound is NaN outside the domain. The self gradient of probabilities is exact where
// `exact_scale` says the scale is (1 / D for D a power of two; fl(1 / D) may be one for other D).
OPENACLNN_HOST_DEVICE inline ElementEstimate KlDivEstimate(LossKind kind, int variant,
                                                           const ElementInputs& in, double scale,
                                                           bool exact_scale) {
  using O64 = math::ScalarOps64;
  const double x = in.x, t = in.t, g = in.g;
  if (variant == kKlDivLogTarget) {
    switch (kind) {
      case LossKind::kLoss:
        return math::KlDivLogTargetLoss64<O64>(x, t, scale);
      case LossKind::kGradSelf:
        return math::KlDivLogTargetGradSelf64<O64>(t, g, scale);
      default:
        return math::KlDivLogTargetGradTarget64<O64>(x, t, g, scale);
    }
  }
  switch (kind) {
    case LossKind::kLoss:
      return math::KlDivLoss64<O64>(x, t, scale);
    case LossKind::kGradSelf:
      return math::KlDivGradSelf64<O64>(t, g, scale,
                                        exact_scale ? 0.0 : math::kKlDivProductError64);
    default:
      return math::KlDivGradTarget64<O64>(x, t, g, scale);
  }
}

// Adds f ln t - f x (+ g) to `sum`, f = t (the loss) or g (the target gradient) of probability
// targets, with ln t as the sum of the `count` doubles of `log`: each product exactly.
OPENACLNN_HOST_DEVICE inline void AddKlDivLogNumerator(LossKind kind, const ElementInputs& in,
                                                       const double* log, int count,
                                                       math::exact::ExactSum& sum) {
  const double f = kind == LossKind::kLoss ? in.t : in.g;
  for (int k = 0; k < count; ++k) sum.AddProduct(f, log[k]);
  sum.AddProduct(-f, in.x);
  if (kind == LossKind::kGradTarget) sum.Add(in.g);
}

// Adds the numerator of `kind` (its value times D) to `sum`: exactly, but for ln t and e^t, each in
// double-double within kKlDivLogDoubleDoubleError, kKlDivExpDoubleDoubleError of itself, for an
// element in the domain (for log targets where g e^t is below 2^1024). Every part
// is an exact product of two doubles (TwoProd), and exact while its lowest bit stays above 2^-1074
// (every part of a result above 2^-600; a smaller one is far below every rounding boundary but
// zero's, and keeps its sign).
OPENACLNN_HOST_DEVICE inline void AddKlDivNumerator(LossKind kind, int variant,
                                                    const ElementInputs& in,
                                                    math::exact::ExactSum& sum) {
  const double x = in.x, t = in.t, g = in.g;
  if (variant == kKlDivLogTarget) {
    const math::exact::DD exp = math::exact::ExpNeg(-t);
    const double exp_parts[2] = {exp.hi, exp.lo};
    for (const double e : exp_parts) {
      if (kind == LossKind::kLoss) {  // e^t t - e^t x
        sum.AddProduct(e, t);
        sum.AddProduct(-e, x);
      } else if (kind == LossKind::kGradSelf) {  // -g e^t
        sum.AddProduct(-g, e);
      } else {  // (g e^t) t - (g e^t) x + g e^t, g e^t exactly as two doubles
        const math::exact::DD ge = math::exact::TwoProd(g, e);
        const double ge_parts[2] = {ge.hi, ge.lo};
        for (const double part : ge_parts) {
          sum.AddProduct(part, t);
          sum.AddProduct(-part, x);
          sum.Add(part);
        }
      }
    }
    return;
  }
  if (kind == LossKind::kGradSelf) {
    sum.Add(-(g * t));  // exact: two fp32 significands
    return;
  }
  if (t == 0.0) return;  // the loss's t (0 - x) = 0
  const math::exact::DD log = math::exact::Log(t);
  const double parts[2] = {log.hi, log.lo};
  AddKlDivLogNumerator(kind, in, parts, 2, sum);
}

// Whether a numerator known as `sum` within `error` (>= 0), divided by `divisor`, rounds to one
// value of `type` (sign included) over the whole interval sum -+ error: then *rounded is a double
// whose one rounding to `type` is that value.
OPENACLNN_HOST_DEVICE inline bool KlDivRoundedWithin(const math::exact::ExactSum& sum, double error,
                                                     const math::exact::ExactDivisor& divisor,
                                                     FloatType type, double* rounded) {
  math::exact::ExactSum low = sum, high = sum;
  low.Add(-error);
  high.Add(error);
  *rounded = math::exact::RoundedQuotient(low, divisor, type);
  if (error == 0.0) return true;
  const float a = RoundedTo(*rounded, type);
  const float b = RoundedTo(math::exact::RoundedQuotient(high, divisor, type), type);
  return BitCast<uint32_t>(a) == BitCast<uint32_t>(b);
}

// The exact path of probability targets' loss or target gradient with ln t in triple double
// (math::exact::LogTriple, within kKlDivLogTripleError of itself): a double whose one rounding to
// `type` is the result.
OPENACLNN_HOST_DEVICE inline double KlDivTripleExact(LossKind kind, const ElementInputs& in,
                                                     const math::exact::ExactDivisor& divisor,
                                                     FloatType type) {
  const math::exact::TD log = math::exact::LogTriple(in.t);
  math::exact::ExactSum sum;
  AddKlDivLogNumerator(kind, in, log.part, 3, sum);
  return math::exact::RoundedQuotient(sum, divisor, type);
}

// Where an input is not finite: the class IEEE arithmetic gives the formula whose finite factors
// are exact (NaN made kCanonicalNaN). ln t and e^t of a finite t count as finite and positive
// (e^t never underflows to 0 here, as fp32 arithmetic would from t < -103.9), ln 0 as 0 (the
// loss's t = 0 rule); t = +inf gives ln t = e^t = +inf, t = -inf e^t = 0. The one sign a finite
// value can decide, that of l - x + 1 or t - x + 1 beside an infinite g, is the exact one: for log
// targets the sign of an exact sum of three doubles, for probabilities that of the exact path's
// numerator, whose double-double ln t kl_div_error_budget.h's kKlDivLogCancellation keeps right.
OPENACLNN_HOST_DEVICE inline double KlDivReference(LossKind kind, int variant,
                                                   const ElementInputs& in) {
  const double x = in.x, t = in.t, g = in.g;
  const bool finite_pair = std::isfinite(in.t) && std::isfinite(in.x);
  double value;
  if (variant == kKlDivLogTarget) {
    const double exp = std::isnan(t) ? t : t == HUGE_VAL ? t : t == -HUGE_VAL ? 0.0 : 1.0;
    if (kind == LossKind::kLoss) {
      value = exp * (t - x);
    } else if (kind == LossKind::kGradSelf) {
      value = -(g * exp);
    } else {
      const double inner[3] = {t, -x, 1.0};
      value = g * exp * (finite_pair ? math::exact::SignOfSum(inner) : (t - x) + 1.0);
    }
  } else if (kind == LossKind::kGradSelf) {
    value = -(g * t);
  } else if (!(t >= 0.0) || (kind == LossKind::kGradTarget && t == 0.0)) {
    value = kCanonicalNaN;  // t < 0, NaN, or the target gradient's t = 0
  } else {
    const double log = t == HUGE_VAL ? t : 0.0;  // the class of ln t - x where x is not finite
    if (kind == LossKind::kLoss || !finite_pair) {
      value = kind == LossKind::kLoss ? t * (log - x) : g * ((log - x) + 1.0);
    } else {  // t > 0 and x finite, g not: the sign of ln t - x + 1
      math::exact::ExactSum sum;
      AddKlDivNumerator(LossKind::kGradTarget, 0, {in.x, in.t, 1.0f, 1.0f, 1.0f}, sum);
      value = g * sum.Sign();
    }
  }
  return CanonicalNaN(value);
}

// The result outside the domain (as a double whose rounding to any type is the result, or a
// mean's or sum's term): NaN where t is outside the probabilities' domain; for log targets above
// kKlDivExpTargetMax, +-inf where the value is not 0 (kl_div_error_budget.h), the estimate's exact
// zero where it is; KlDivReference where an input is not finite.
OPENACLNN_HOST_DEVICE inline double KlDivSpecial(LossKind kind, int variant,
                                                 const ElementInputs& in, double scale) {
  if (!KlDivInputsFinite(kind, in)) return KlDivReference(kind, variant, in);
  if (variant != kKlDivLogTarget) return kCanonicalNaN;
  const double value = KlDivEstimate(kind, variant, in, scale, true).value;
  return value == 0.0 ? value : std::copysign(HUGE_VAL, value);
}

// The target gradient's zero where its inner factor (l - x + 1, t - x + 1) is exactly 0 (t = 1 and
// x = 1, or t - x = -1; IEEE's sum gives +0) or g is: +-0 with the sign of g times that of the
// inner factor, exactly; or 1 where neither is 0.
OPENACLNN_HOST_DEVICE inline double KlDivGradTargetZero(int variant, const ElementInputs& in) {
  int sign;
  if (variant == kKlDivLogTarget) {
    const double inner[3] = {in.t, -static_cast<double>(in.x), 1.0};
    sign = math::exact::SignOfSum(inner);
  } else {
    math::exact::ExactSum sum;
    AddKlDivNumerator(LossKind::kGradTarget, variant, {in.x, in.t, 1.0f, 1.0f, 1.0f}, sum);
    sign = sum.Sign();
  }
  if (sign != 0 && in.g != 0.0f) return 1.0;
  return (sign < 0) != std::signbit(in.g) ? -0.0 : 0.0;
}

// The exact path of an element the estimate (value `estimate`) leaves open: a double whose one
// rounding to `type` is the result. An exact zero is +-0 with the sign IEEE arithmetic gives the
// formula whose factors are exact: that of the estimate (exact wherever its bound is 0), but for
// the target gradients' (KlDivGradTargetZero; g e^t may overflow fp64 there, only beside a zero).
OPENACLNN_HOST_DEVICE inline double KlDivExact(LossKind kind, const ElementParameters& p,
                                               const ElementInputs& in, double estimate,
                                               FloatType type) {
  if (kind == LossKind::kGradTarget) {
    const double zero = KlDivGradTargetZero(p.variant, in);
    if (zero == 0.0) return zero;
  }
  math::exact::ExactSum sum;
  AddKlDivNumerator(kind, p.variant, in, sum);
  if (sum.Sign() == 0) return estimate;
  const math::exact::ExactDivisor divisor = math::exact::DivisorOf(1.0, p.divisor);
  if (p.variant == kKlDivLogTarget || kind == LossKind::kGradSelf) {
    return math::exact::RoundedQuotient(sum, divisor, type);
  }
  // f ln t - f x (+ g) with the double-double ln t errs by at most kKlDivLogDoubleDoubleError
  // |f ln t|, here twice that (std::log's own rounding inside the margin), which may be far more
  // than the value where ln t - x cancels: where the interval leaves the rounding open, ln t in
  // triple double decides it (kl_div_error_budget.h: kKlDivLogTripleError).
  const double f = kind == LossKind::kLoss ? in.t : in.g;
  const double error = std::fabs(f) * std::fabs(std::log(static_cast<double>(in.t))) *
                       (2 * math::kKlDivLogDoubleDoubleError);
  double rounded = 0.0;
  if (KlDivRoundedWithin(sum, error, divisor, type, &rounded)) return rounded;
  return KlDivTripleExact(kind, in, divisor, type);
}

// One element of `kind`, correctly rounded once to `type` (returned as the fp32 that holds that
// value): beyond kKlDivBeyondRange (log targets' values overflow fp64 too) the estimate's
// infinity; the estimate where its rounding is certain; else the exact path (also where g e^t
// overflowed beside an exact zero, a NaN value); KlDivSpecial outside the domain.
OPENACLNN_HOST_DEVICE inline float KlDivElement(LossKind kind, const ElementParameters& p,
                                                const ElementInputs& in, FloatType type) {
  if (!KlDivInDomain(kind, p.variant, in)) {
    return RoundedTo(KlDivSpecial(kind, p.variant, in, p.scale), type);
  }
  const ElementEstimate estimate =
      KlDivEstimate(kind, p.variant, in, p.scale, (p.divisor & (p.divisor - 1)) == 0);
  if (std::fabs(estimate.value) > math::kKlDivBeyondRange) {
    return RoundedTo(std::copysign(HUGE_VAL, estimate.value), type);
  }
  double settled = 0.0;
  if (SettledIn(estimate, type, &settled)) return RoundedTo(settled, type);
  return RoundedTo(KlDivExact(kind, p, in, estimate.value, type), type);
}

// A mean's or sum's term of `kind` (not divided by D): the estimate with scale 1, its bound raised
// by kKlDivTermError of its magnitude, and for log targets below kKlDivExpTargetMin by twice its
// magnitude (the exact value lies between 0 and the value formed with e^kKlDivExpTargetMin); an
// exact zero beside an overflowed g e^t (a NaN value) exactly; outside the domain KlDivSpecial's
// value with a NaN bound.
OPENACLNN_HOST_DEVICE inline ElementEstimate KlDivTerm(LossKind kind, int variant,
                                                       const ElementInputs& in) {
  if (!KlDivInDomain(kind, variant, in))
    return {KlDivSpecial(kind, variant, in, 1.0), kCanonicalNaN};
  const ElementEstimate estimate = KlDivEstimate(kind, variant, in, 1.0, true);
  if (std::isnan(estimate.value)) return {KlDivGradTargetZero(variant, in), 0.0};
  const bool clamped = variant == kKlDivLogTarget && in.t < math::kKlDivExpTargetMin;
  const double magnitude = std::fabs(estimate.value);
  return {estimate.value, estimate.bound + magnitude * (clamped ? 2.0 + math::kKlDivTermError
                                                                : math::kKlDivTermError)};
}

// The exact pass's term (AddKlDivNumerator), or outside the domain KlDivSpecial's value where it is
// finite (an exact 0; a total with a term that is not finite never takes the exact pass).
OPENACLNN_HOST_DEVICE inline void AddKlDivTerm(LossKind kind, int variant, const ElementInputs& in,
                                               math::exact::ExactSum& sum) {
  if (KlDivInDomain(kind, variant, in)) {
    AddKlDivNumerator(kind, variant, in, sum);
    return;
  }
  const double value = KlDivSpecial(kind, variant, in, 1.0);
  if (std::isfinite(value)) sum.Add(value);
}

}  // namespace openaclnn
