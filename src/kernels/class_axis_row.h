// What a class-axis family's row functions (kernels/class_axis_families.h) take and give besides
// the row itself: the op's constants, and a result's estimate with its error bound.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/exact_sum.h"

namespace openaclnn {

// An estimate and a bound on its distance from the exact value (0: exact); a NaN bound where an
// input is not finite (the value is then IEEE's class of the formula: NaN or an infinity).
struct Estimated {
  double value = 0.0;
  double bound = 0.0;
};

// A row's constants: C, the label smoothing eps, Omega = the sum of the class weights (within
// 2^-106 of it; 0 where eps is 0, which makes it unused) and a gradient's divisor (a mean's total
// weight, exact or within 2^-106; 1 otherwise).
struct RowConstants {
  int64_t classes = 0;
  double smoothing = 0.0;
  math::exact::DD weight_sum{0.0, 0.0};
  math::exact::DD divisor{1.0, 0.0};
};

// The bounds' own arithmetic, rounded up with them (Settles).
inline constexpr double kWiden = 1.0 + 0x1p-20;

// What Settles tests: value +- EndsBound(value, bound) contain value +- bound even after their
// own fp64 rounding (within 2^-53 of each end), so an end that rounds onto a midpoint of the
// output type can only do so from beyond the interval. An infinite value's ends are itself.
OPENACLNN_HOST_DEVICE inline double EndsBound(double value, double bound) {
  return bound * kWiden + (std::isinf(value) ? 0.0 : std::fabs(value) * 0x1p-52);
}

// value's one rounding to `type` where the bound settles it: true with *rounded a double whose
// RoundOnce is the result (the value itself); false where the exact path must decide.
OPENACLNN_HOST_DEVICE inline bool Settles(const Estimated& estimate, FloatType type,
                                          double* rounded) {
  *rounded = estimate.value;
  if (estimate.bound != estimate.bound) return true;  // IEEE's class
  const double bound = EndsBound(estimate.value, estimate.bound);
  return RoundOnce(estimate.value - bound, type) == RoundOnce(estimate.value + bound, type);
}

// The leading double-double of an exact sum (within 2^-106 of it).
OPENACLNN_HOST_DEVICE inline math::exact::DD LeadingTwo(math::exact::ExactSum sum) {
  const double hi = sum.RoundedToOdd();
  sum.Add(-hi);
  return math::exact::FastTwoSum(hi, sum.RoundedToOdd());
}

}  // namespace openaclnn
