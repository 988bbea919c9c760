// The negative log likelihood's formulas (CANN's NLLLoss, NLLLoss2d and their Backwards), shared
// by every backend. A position with target t (not ignored) and class weight w (1 without
// weights) has the loss -w x_t and, with respect to self, the gradient -g w at class t (divided
// by the total weight for a mean) and 0 at every other class. Every value is rational in the
// inputs: each result is the exact value rounded once.
#pragma once

#include <cmath>

#include "base/dtype.h"
#include "kernels/rounded_element.h"

namespace openaclnn::nll {

// -a b, exact. Domain: a and b values of fp32, fp16 or bf16 (significands of at most 24 bits, so
// the fp64 product is exact, and within fp64's range: 2^-298 <= |a b| <= 2^256, or 0); IEEE's
// product where either is not finite (0 times an infinity is NaN). Error: none.
OPENACLNN_HOST_DEVICE inline double NegatedProduct(double a, double b) { return -(a * b); }

// p / d rounded once to `type`, as a double whose RoundOnce to `type` is the result. Domain: p
// exact in fp64 with at most 48 significant bits (NegatedProduct's), d a value of fp32, fp16 or
// bf16. The estimate fl64(p / d) is within 2^-53 of the quotient (one rounding; the quotient
// stays in fp64's normal range, [2^-447, 2^405]); where that interval could round two ways, the
// exact comparisons with the midpoints decide (a midpoint m of the output type has at most 25
// significant bits, so m |d| is exact in fp64). Not finite p or d, or d = 0: IEEE's quotient.
OPENACLNN_HOST_DEVICE inline double RoundedQuotient(double p, double d, FloatType type) {
  const double q = p / d;
  if (!std::isfinite(q) || q == 0.0) return q;  // a zero quotient is exact
  const double bound = std::fabs(q) * 0x1p-52;  // twice the estimate's error
  if (RoundOnce(q - bound, type) == RoundOnce(q + bound, type)) return q;
  const double numerator = std::fabs(p), divisor = std::fabs(d);
  return RoundedByComparisons(q, std::signbit(q), type, [&](double midpoint) {
    const double product = midpoint * divisor;
    return numerator > product ? 1 : (numerator < product ? -1 : 0);
  });
}

}  // namespace openaclnn::nll
