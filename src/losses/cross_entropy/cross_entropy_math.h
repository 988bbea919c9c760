// The cross entropy's formulas (CANN's CrossEntropyLoss and CrossEntropyLossGrad), shared by every
// backend. A row x of C logits has the log-sum-exp lambda = m + L, m its first maximum (index
// top), L = log1p(rest), rest = sum over c != top of e^-(m - x_c); its log-probabilities are
// lp_c = -((m - x_c) + L), two non-negative parts, so that no result cancels, not even where the
// target is the row's maximum and its probability next to 1. A counted row with target t, class
// weights w (1 without weights), smoothing eps and Omega = sum of w_c has the loss
// (1 - eps) w_t (L + m - x_t) + eps/C sum_c w_c (L + m - x_c). Each result has an fp64 estimate
// with an error bound (Estimated), whose rounding test settles almost every one; the rest take
// the double-double path (about 2^-96 of the value), as the element-wise families' exact paths.
// The values are transcendental (Lindemann-Weierstrass) but in degenerate rows (one finite logit:
// L = 0), so no rounding tie arises from them.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/class_axis_row.h"
#include "kernels/double_double.h"
#include "kernels/exact_sum.h"
#include "kernels/math.h"

namespace openaclnn::cross_entropy {

using math::exact::DD;

// ExpNeg64's relative error given its argument (transcendentals.inc: below 2^-45.3), and Log64's
// and Log1p64's (transcendentals_error_budget.h: 2^-47), rounded up.
inline constexpr double kExpError = 0x1p-45;
inline constexpr double kLogError = 0x1p-47;
// A term e^-a with a >= kNegligibleShift is below 2^-1076 and left out; ExpNeg64 and ExpNeg clamp
// a above 708.39 (their results stay normal): either way a term errs by at most kTermFloor.
inline constexpr double kNegligibleShift = 746.0;
inline constexpr double kTermFloor = 0x1p-1020;
// A gradient's log-probability above this is not one: the fp64 formula gives its result.
inline constexpr double kLargestExponent = 700.0;

// A row's log-sum-exp: m, top, and L's estimate. `special`: the row holds a NaN or +inf, or no
// finite value (every log-probability and loss is NaN, as the max-shifted formula gives).
struct LogSumExp {
  double max = 0.0;
  int64_t top = -1;
  Estimated log1p_rest;
  bool special = false;
};

// The row's maximum and its first index; special where the row has a NaN or +inf, or is all -inf.
template <class Row>
OPENACLNN_HOST_DEVICE LogSumExp RowMaximum(const Row& row, int64_t classes) {
  LogSumExp result;
  double max = -INFINITY;
  for (int64_t c = 0; c < classes; ++c) {
    const double x = row.At(c);
    if (!(x < INFINITY)) result.special = true;
    if (x > max) {
      max = x;
      result.top = c;
    }
  }
  result.max = max;
  result.special = result.special || result.top < 0;
  return result;
}

// L = log1p(rest) in fp64. rest is summed with Neumaier's compensation (within 2^-52 of the sum of
// the terms, for any C below 2^40), each term e^-a within kExpError of itself given a, and a =
// m - x_c within 2^-53 a of itself (exact unless x_c and m are 2^30 apart), which moves the term
// by at most 2^-52 a of itself: their sum is the `shifted` sum below. log1p: Log1p64 for rest <= 1,
// else Log64 of fl(1 + rest) (2^-53 more); a change d of rest moves L by at most d.
// Contract: finite m; bound >= |L - log1p(exact rest)|.
template <class Row>
OPENACLNN_HOST_DEVICE LogSumExp EstimateLogSumExp(const Row& row, int64_t classes) {
  LogSumExp result = RowMaximum(row, classes);
  if (result.special) return result;
  double sum = 0.0, compensation = 0.0, shifted = 0.0;
  for (int64_t c = 0; c < classes; ++c) {
    const double a = result.max - row.At(c);
    if (c == result.top || !(a < kNegligibleShift)) continue;
    const double term = math::ExpNeg64<math::ScalarOps64>(a);
    const double next = sum + term;
    compensation += std::fabs(sum) >= term ? (sum - next) + term : (term - next) + sum;
    sum = next;
    shifted = std::fma(a, term, shifted);
  }
  const double rest = sum + compensation;
  const double rest_bound =
      rest * (kExpError + 0x1p-51) + shifted * 0x1p-52 + static_cast<double>(classes) * kTermFloor;
  if (rest <= 1.0) {
    const double log = math::Log1p64<math::ScalarOps64>(rest);
    result.log1p_rest = {log, log * kLogError + rest_bound};
  } else {
    const double log = math::Log64<math::ScalarOps64>(1.0 + rest);
    result.log1p_rest = {log, log * kLogError + rest_bound + 0x1p-53};
  }
  return result;
}

// e^-a for a = hi + lo >= 0 (a DD, exact): ExpNeg(hi) e^-lo, e^-lo = 1 - lo + lo^2/2 within
// 2^-150 (|lo| <= 2^-44); 0 for a >= kNegligibleShift.
OPENACLNN_HOST_DEVICE inline DD ExpNegOf(DD a) {
  if (!(a.hi < kNegligibleShift)) return {0.0, 0.0};
  const DD e = math::exact::ExpNeg(a.hi);
  if (a.lo == 0.0) return e;
  const DD factor = math::exact::Add(math::exact::TwoSum(1.0, -a.lo), DD{0.5 * a.lo * a.lo, 0.0});
  return math::exact::Mul(e, factor);
}

// L in double-double, about 2^-96 of itself: rest's terms (ExpNeg, 2^-96 each) summed exactly,
// then log1p (math::exact::Log1p, rest <= 1) or ln(hi) + lo/hi of 1 + rest (lo/hi within 2^-106).
// Contract: finite m = x_top, the row's maximum.
template <class Row>
OPENACLNN_HOST_DEVICE DD ExactLog1pRest(const Row& row, int64_t classes, double max, int64_t top) {
  math::exact::ExactSum sum;
  for (int64_t c = 0; c < classes; ++c) {
    if (c != top) sum.Add(ExpNegOf(math::exact::TwoSum(max, -row.At(c))));
  }
  const DD rest = LeadingTwo(sum);
  if (rest.hi <= 1.0) return math::exact::Log1p(rest);
  const DD whole = math::exact::Add(DD{1.0, 0.0}, rest);
  return math::exact::Add(math::exact::Log(whole.hi), DD{whole.lo / whole.hi, 0.0});
}

// lp_c = -((m - x_c) + L): the estimate (m - x_c and the sum each within 2^-53 of themselves) and
// the double-double value. Contract: finite m; x_c = -inf gives -inf exactly.
OPENACLNN_HOST_DEVICE inline Estimated LogProbability(double x, const LogSumExp& lse) {
  if (x == -INFINITY) return {-INFINITY, 0.0};
  const double shift = lse.max - x;
  const double value = -(shift + lse.log1p_rest.value);
  return {value, lse.log1p_rest.bound + (shift - value) * 0x1p-53};
}
OPENACLNN_HOST_DEVICE inline DD ExactLogProbability(double x, double max, DD log1p_rest) {
  return math::exact::Neg(math::exact::Add(math::exact::TwoSum(max, -x), log1p_rest));
}

// A row's loss, (1 - eps) w_t (L + a_t) + eps/C S, S = sum over c of w_c (L + a_c), a_c = m - x_c.
// The estimate: L + a_t is -lp_t's (LogProbability), S summed with Neumaier's compensation (within
// 2^-52 of its terms' sum of magnitudes), each term within |w_c| (lp_c's bound) plus its own
// rounding; the products and the sum add at most eight roundings (2^-50 of the parts). Contract:
// finite m (LogSumExp not special); weights(c) the class weights; an infinite part gives IEEE's
// class (NaN bound).
template <class Row, class Weights>
OPENACLNN_HOST_DEVICE Estimated EstimateLoss(const Row& row, const Weights& weights,
                                             const LogSumExp& lse, int64_t target,
                                             const RowConstants& k) {
  const Estimated target_lp = LogProbability(row.At(target), lse);
  const double w_t = weights(target);
  const double first = -w_t * target_lp.value;
  Estimated loss{first, std::fabs(w_t) * target_lp.bound + std::fabs(first) * 0x1p-53};
  if (k.smoothing != 0.0) {
    double sum = 0.0, compensation = 0.0, magnitudes = 0.0, bound = 0.0;
    for (int64_t c = 0; c < k.classes; ++c) {
      const Estimated lp = LogProbability(row.At(c), lse);
      const double w = weights(c), term = -w * lp.value, next = sum + term;
      compensation += std::fabs(sum) >= std::fabs(term) ? (sum - next) + term : (term - next) + sum;
      sum = next;
      magnitudes += std::fabs(term);
      bound += std::fabs(w) * lp.bound;
    }
    const double smooth = sum + compensation, first_part = (1.0 - k.smoothing) * first;
    const double smooth_part = k.smoothing / static_cast<double>(k.classes) * smooth;
    loss.value = first_part + smooth_part;
    loss.bound =
        std::fabs(1.0 - k.smoothing) * loss.bound +
        std::fabs(k.smoothing / static_cast<double>(k.classes)) * (bound + magnitudes * 0x1p-51) +
        (std::fabs(first_part) + std::fabs(smooth_part)) * 0x1p-50;
  }
  if (!std::isfinite(loss.value)) loss.bound = NAN;
  return loss;
}

// (1 - eps) and eps / C in double-double.
OPENACLNN_HOST_DEVICE inline DD OneMinusSmoothing(const RowConstants& k) {
  return math::exact::TwoSum(1.0, -k.smoothing);
}
OPENACLNN_HOST_DEVICE inline DD SmoothingPerClass(const RowConstants& k) {
  return math::exact::Div(DD{k.smoothing, 0.0}, DD{static_cast<double>(k.classes), 0.0});
}

// The loss in double-double, about 2^-96 of each part (for the rows EstimateLoss leaves open).
// Contract: as EstimateLoss, every part finite; classes below 2^53.
template <class Row, class Weights>
OPENACLNN_HOST_DEVICE DD ExactLoss(const Row& row, const Weights& weights, const LogSumExp& lse,
                                   int64_t target, const RowConstants& k) {
  using math::exact::Mul;
  const DD log1p_rest = ExactLog1pRest(row, k.classes, lse.max, lse.top);
  const DD first = Mul(ExactLogProbability(row.At(target), lse.max, log1p_rest), -weights(target));
  if (k.smoothing == 0.0) return first;
  math::exact::ExactSum smooth;
  for (int64_t c = 0; c < k.classes; ++c) {
    smooth.Add(Mul(ExactLogProbability(row.At(c), lse.max, log1p_rest), -weights(c)));
  }
  return math::exact::Add(Mul(OneMinusSmoothing(k), first),
                          Mul(SmoothingPerClass(k), LeadingTwo(smooth)));
}

// The gradient of a counted row with respect to its logits, at class c, from its log-probability
// lp_c: (a (E - [c = t]) + b (Omega E - w_c)) / W, E = e^lp_c, a = s (1 - eps) w_t, b = s eps/C,
// s the incoming gradient. The estimate: E within kExpError of itself (lp_c <= 0; 0 where -lp_c >=
// kNegligibleShift), within kTermFloor besides; at most eight roundings in the rest and two in
// the division (the double W within 2^-53 of the exact one). lp_c in (0, 700] is left to the exact
// path (an infinite bound); a part that is not finite gives IEEE's class (NaN bound), and so does
// lp_c > 700, through the fp64 formula (no log-probability is positive; torch's is that formula).
struct GradientInputs {
  double log_probability;
  bool at_target;
  double target_weight, class_weight, gradient;
};

OPENACLNN_HOST_DEVICE inline Estimated EstimateGradient(const GradientInputs& in,
                                                        const RowConstants& k) {
  const double lp = in.log_probability;
  if (lp > kLargestExponent) {  // not a log-probability: the fp64 formula
    const double e = std::exp(lp);
    return {(in.gradient * (1.0 - k.smoothing) * in.target_weight * e) / k.divisor.hi, NAN};
  }
  const double e = lp > 0.0                    ? std::exp(lp)
                   : !(-lp < kNegligibleShift) ? 0.0
                                               : math::ExpNeg64<math::ScalarOps64>(-lp);
  const double a = in.gradient * (1.0 - k.smoothing) * in.target_weight;
  const double b = in.gradient * (k.smoothing / static_cast<double>(k.classes));
  const double omega = k.weight_sum.hi, delta = in.at_target ? 1.0 : 0.0;
  const double first = a * (e - delta), second = b * (omega * e - in.class_weight);
  const double divisor = k.divisor.hi, value = (first + second) / divisor;
  if (!std::isfinite(value) || lp != lp) return {value, NAN};
  if (lp > 0.0) return {value, INFINITY};
  const double exp_error = e * kExpError + kTermFloor;
  const double bound = std::fabs(a) * exp_error + std::fabs(b * omega) * exp_error +
                       (std::fabs(a) * (e + delta) +
                        std::fabs(b) * (std::fabs(omega) * e + std::fabs(in.class_weight))) *
                           0x1p-50;
  return {value, bound / std::fabs(divisor) + std::fabs(value) * 0x1p-51};
}

// The gradient in double-double, about 2^-96 of its parts: E by ExpNeg (or its reciprocal for
// lp > 0), E - 1 at the target by ExpM1 where |lp| <= 0.75 (no cancellation near lp = 0).
// Contract: finite inputs, lp below 708, W != 0.
OPENACLNN_HOST_DEVICE inline DD ExactGradient(const GradientInputs& in, const RowConstants& k) {
  using math::exact::Add;
  using math::exact::Mul;
  const double lp = in.log_probability;
  const DD e =
      lp > 0.0 ? math::exact::Div(DD{1.0, 0.0}, math::exact::ExpNeg(lp)) : ExpNegOf(DD{-lp, 0.0});
  DD shifted = e;
  if (in.at_target) {
    shifted = std::fabs(lp) <= 0.75 ? math::exact::ExpM1(DD{lp, 0.0}) : Add(e, DD{-1.0, 0.0});
  }
  const DD a = Mul(math::exact::TwoProd(in.gradient, in.target_weight), OneMinusSmoothing(k));
  DD value = Mul(a, shifted);
  if (k.smoothing != 0.0) {
    const DD b = Mul(SmoothingPerClass(k), in.gradient);
    value = Add(value, Mul(b, Add(Mul(k.weight_sum, e), DD{-in.class_weight, 0.0})));
  }
  return k.divisor.hi == 1.0 && k.divisor.lo == 0.0 ? value : math::exact::Div(value, k.divisor);
}

}  // namespace openaclnn::cross_entropy
