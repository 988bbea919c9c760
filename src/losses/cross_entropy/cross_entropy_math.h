// The cross entropy's formulas (CANN's CrossEntropyLoss and CrossEntropyLossGrad), shared by every
// backend, over a row's log-sum-exp and log-probabilities (kernels/log_sum_exp.h: lp_c =
// -((m - x_c) + L), m the row's first maximum, L = log1p(rest), no cancellation even where the
// target is the row's maximum and its probability next to 1). A counted row with target t, class
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
#include "kernels/log_sum_exp.h"
#include "kernels/math.h"

namespace openaclnn::cross_entropy {

using math::exact::DD;
using namespace log_sum_exp;  // NOLINT(build/namespaces): the row math these formulas build on

// A gradient's log-probability above this is not one: the fp64 formula gives its result.
inline constexpr double kLargestExponent = 700.0;

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
    // Terms that are not finite (a -inf logit's: w times inf) add apart, as IEEE's sum: inside
    // the compensation their inf - inf would make a NaN of an infinite loss.
    double sum = 0.0, compensation = 0.0, infinite = 0.0, magnitudes = 0.0, bound = 0.0;
    for (int64_t c = 0; c < k.classes; ++c) {
      const Estimated lp = LogProbability(row.At(c), lse);
      const double w = weights(c), term = -w * lp.value, next = sum + term;
      if (!std::isfinite(term)) {
        infinite += term;
        continue;
      }
      compensation += std::fabs(sum) >= std::fabs(term) ? (sum - next) + term : (term - next) + sum;
      sum = next;
      magnitudes += std::fabs(term);
      bound += std::fabs(w) * lp.bound;
    }
    const double smooth = sum + compensation + infinite;
    const double first_part = (1.0 - k.smoothing) * first;
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
// s the incoming gradient: log_sum_exp::LogSoftmaxGradient's form, whose estimate holds for
// lp_c <= 0. lp_c in (0, 700] is left to the exact path (an infinite bound); a part that is not
// finite gives IEEE's class (NaN bound), and so does lp_c > 700, through the fp64 formula (no
// log-probability is positive; torch's is that formula). a and b each take at most three
// roundings, within the estimate's 2^-50 of the parts.
struct GradientInputs {
  double log_probability;
  double exponential;  // e^lp for lp <= 0 (log_sum_exp::ExpOfNonPositive's bound)
  bool at_target;
  double target_weight, class_weight, gradient;
};

OPENACLNN_HOST_DEVICE inline LogSoftmaxGradient GradientFactorsOf(double gradient,
                                                                  double target_weight,
                                                                  const RowConstants& k) {
  return {gradient * (1.0 - k.smoothing) * target_weight,
          gradient * (k.smoothing / static_cast<double>(k.classes)), k.weight_sum.hi,
          1.0 / k.divisor.hi};
}

OPENACLNN_HOST_DEVICE inline Estimated EstimateGradient(const GradientInputs& in,
                                                        const LogSoftmaxGradient& f) {
  const double lp = in.log_probability;
  if (lp > 0.0 || lp != lp) {  // the formula's value; its bound holds for lp <= 0 only
    const double value =
        EstimateLogSoftmaxGradient(std::exp(lp), in.at_target, in.class_weight, f).value;
    const bool formula = !std::isfinite(value) || lp != lp || lp > kLargestExponent;
    return {value, formula ? NAN : INFINITY};
  }
  const Estimated estimate =
      EstimateLogSoftmaxGradient(in.exponential, in.at_target, in.class_weight, f);
  return std::isfinite(estimate.value) ? estimate : Estimated{estimate.value, NAN};
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
