// A row's log-sum-exp and log-probabilities, the row math of the class-axis families (the cross
// entropy's; a softmax's), shared by every backend. A row x of C values has the log-sum-exp
// lambda = m + L, m its first maximum (index top), L = log1p(rest), rest = sum over c != top of
// e^-(m - x_c); its log-probabilities are lp_c = -((m - x_c) + L), two non-negative parts, so that
// none cancels. Each has an fp64 estimate with an error bound (Estimated) and a double-double form
// (about 2^-96) for what the bound leaves open. A backend may compute the estimates its own way
// (the CPU's SIMD rows, backends/cpu/row_math.h) within the same bounds.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/class_axis_row.h"
#include "kernels/double_double.h"
#include "kernels/exact_sum.h"
#include "kernels/math.h"

namespace openaclnn::log_sum_exp {

using math::exact::DD;

// ExpNeg64's relative error given its argument (transcendentals.inc: below 2^-45.3), and Log64's
// and Log1p64's (transcendentals_error_budget.h: 2^-47), rounded up.
inline constexpr double kExpError = 0x1p-45;
inline constexpr double kLogError = 0x1p-47;
// A term e^-a with a >= kNegligibleShift is below 2^-1076 and left out; ExpNeg64 and ExpNeg clamp
// a above 708.39 (their results stay normal): either way a term errs by at most kTermFloor.
inline constexpr double kNegligibleShift = 746.0;
inline constexpr double kTermFloor = 0x1p-1020;

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

// `maximum` (RowMaximum's) with L = log1p(rest) and its bound, from rest's compensated sum and
// the sum of a_c e^-a_c over its terms (`shifted`, see EstimateLogSumExp).
OPENACLNN_HOST_DEVICE inline LogSumExp WithLog1pRest(LogSumExp maximum, double rest, double shifted,
                                                     int64_t classes) {
  const double rest_bound =
      rest * (kExpError + 0x1p-51) + shifted * 0x1p-52 + static_cast<double>(classes) * kTermFloor;
  if (rest <= 1.0) {
    const double log = math::Log1p64<math::ScalarOps64>(rest);
    maximum.log1p_rest = {log, log * kLogError + rest_bound};
  } else {
    const double log = math::Log64<math::ScalarOps64>(1.0 + rest);
    maximum.log1p_rest = {log, log * kLogError + rest_bound + 0x1p-53};
  }
  return maximum;
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
  return WithLog1pRest(result, sum + compensation, shifted, classes);
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

// e^x for x <= 0, within kExpError of itself plus kTermFloor (0 where -x >= kNegligibleShift);
// what a row's exponentials (Exponentials; a backend's own, in SIMD, within the same bound) hold.
OPENACLNN_HOST_DEVICE inline double ExpOfNonPositive(double x) {
  return !(-x < kNegligibleShift) ? 0.0 : math::ExpNeg64<math::ScalarOps64>(-x);
}

// ExpOfNonPositive of each value of a row into e[0..C) (unspecified where a value is positive or
// NaN: its user computes those itself).
template <class Row>
OPENACLNN_HOST_DEVICE void Exponentials(const Row& row, int64_t classes, double* e) {
  for (int64_t c = 0; c < classes; ++c) {
    const double x = row.At(c);
    e[c] = x <= 0.0 ? ExpOfNonPositive(x) : 0.0;
  }
}

// The gradient with respect to a row's logits of a loss of its log-probabilities lp (the cross
// entropy's, smoothed and weighted): out_c = ((a + b Omega) e^lp_c - a [c = t] - b w_c) / W. The
// factors: a, b, Omega (within 2^-53) and 1/W (rounded: with W's own rounding, three roundings
// of the quotient). The estimate from e = e^lp (ExpOfNonPositive's bound; lp <= 0): at most seven
// roundings before the division (2^-50 of the parts' magnitudes covers eight).
struct LogSoftmaxGradient {
  double a, b, omega, inverse_divisor;
};

OPENACLNN_HOST_DEVICE inline Estimated EstimateLogSoftmaxGradient(double e, bool at_target,
                                                                  double class_weight,
                                                                  const LogSoftmaxGradient& f) {
  const double delta = at_target ? 1.0 : 0.0;
  const double scale = f.a + f.b * f.omega;
  const double value = ((scale * e - f.a * delta) - f.b * class_weight) * f.inverse_divisor;
  const double magnitude = std::fabs(f.a) + std::fabs(f.b * f.omega);
  const double bound = magnitude * (e * kExpError + kTermFloor) +
                       (std::fabs(f.a) * (e + delta) +
                        std::fabs(f.b) * (std::fabs(f.omega) * e + std::fabs(class_weight))) *
                           0x1p-50;
  return {value, bound * std::fabs(f.inverse_divisor) + std::fabs(value) * 0x1p-51};
}

// Each log-probability of a row rounded once to out's type: its estimate where the bound settles
// it, else from the row's double-double L (computed once, for the first element that needs it).
// `out` is written through Set(c, value) (value a double whose one rounding is the result).
template <class Row>
struct LogProbabilityRounder {
  const Row& row;
  int64_t classes;
  const LogSumExp& lse;
  FloatType type;
  DD exact_rest{0.0, 0.0};
  bool have_exact_rest = false;

  OPENACLNN_HOST_DEVICE double operator()(double x) {
    double value;
    if (Settles(LogProbability(x, lse), type, &value)) return value;
    if (!have_exact_rest) exact_rest = ExactLog1pRest(row, classes, lse.max, lse.top);
    have_exact_rest = true;
    return math::exact::RoundToOdd(ExactLogProbability(x, lse.max, exact_rest));
  }
};

template <class Row, class OutRow>
OPENACLNN_HOST_DEVICE void WriteLogProbabilities(const Row& row, int64_t classes,
                                                 const LogSumExp& lse, OutRow& out) {
  LogProbabilityRounder<Row> rounder{row, classes, lse, out.type};
  for (int64_t c = 0; c < classes; ++c) out.Set(c, rounder(row.At(c)));
}

}  // namespace openaclnn::log_sum_exp
