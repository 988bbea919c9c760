// The MSE family's element math (aclnnMseLoss, aclnnMseLossOut, aclnnMseLossBackward), d = x - t:
// the loss d^2 and its gradient w.r.t. self 2 g d, each over a divisor D (a mean gradient's N,
// else 1) and rounded once. The fp64 estimates (mse_loss_formulas.inc) for scalar code; the
// exact forms: the terms added to an ExactSum exactly (every part an exact product of doubles),
// and the products that need no estimate at all (a power-of-two divisor, an exact difference).
// Host/device code, for every backend.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/math.h"
#include "losses/mse_loss/mse_loss_error_budget.h"

namespace openaclnn::math {

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "losses/mse_loss/mse_loss_formulas.inc"

// Whether fl64(x - t), `difference`, is exactly x - t, for fp32 x and t: the Fast2Sum pair test
// (mse_loss_error_budget.h). False where an input is not finite.
OPENACLNN_HOST_DEVICE inline bool MseDifferenceExact(double x, double t, double difference) {
  return x - difference == t && difference + t == x;
}

}  // namespace openaclnn::math

namespace openaclnn::math::exact {

// Adds d^2 = (x - t)^2 to `sum` exactly: d = hi + lo (TwoSum, exact), d^2 = hi^2 + (2 hi) lo +
// lo^2. Every product is in TwoProd's domain: hi and lo are multiples of 2^-149 below 2^130 (hi
// rounds a multiple of 2^-149 onto a grid no finer, or is exact), so each product is a multiple of
// 2^-298 below 2^260. Finite x and t.
OPENACLNN_HOST_DEVICE inline void AddMseLoss(double x, double t, ExactSum& sum) {
  const DD difference = TwoSum(x, -t);
  sum.AddProduct(difference.hi, difference.hi);
  sum.AddProduct(2.0 * difference.hi, difference.lo);
  sum.AddProduct(difference.lo, difference.lo);
}

// Adds 2 g d to `sum` exactly: (2 g) hi + (2 g) lo, 2 g a multiple of 2^-148 below 2^129. Finite
// inputs.
OPENACLNN_HOST_DEVICE inline void AddMseGradient(double x, double t, double g, ExactSum& sum) {
  const DD difference = TwoSum(x, -t);
  sum.AddProduct(2.0 * g, difference.hi);
  sum.AddProduct(2.0 * g, difference.lo);
}

// Where `scale` is exact (1 / D for a power of two D) and x - t is exact in fp64: the element, the
// loss d^2 s or the gradient (g 2s) d, as TwoProd of two exact doubles whose parts, times s, stay
// exact (the loss's parts are multiples of 2^-298, s >= 2^-63: above fp64's normal range's
// start; g 2s is exact for the same reason), rounded to odd: a double whose one rounding to any
// output type is the correctly rounded element (mse_loss_error_budget.h, (a)), with the zero sign
// IEEE arithmetic gives the product. Returns false where x - t is not exact. Finite inputs.
OPENACLNN_HOST_DEVICE inline bool MseScaledProductToOdd(bool loss, double x, double t, double g,
                                                        double scale, double* value) {
  const double difference = x - t;
  if (!MseDifferenceExact(x, t, difference)) return false;
  if (loss) {
    const DD square = TwoProd(difference, difference);
    *value = RoundToOdd({square.hi * scale, square.lo * scale});
  } else {
    *value = RoundToOdd(TwoProd(g * (2.0 * scale), difference));
  }
  return true;
}

}  // namespace openaclnn::math::exact
