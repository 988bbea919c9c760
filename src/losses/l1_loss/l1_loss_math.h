// The L1 family's element math (aclnnL1Loss, aclnnL1LossBackward): the loss |x - t| and the
// gradient w.r.t. self g sign(x - t), each divided by an element's divisor D (a mean's gradient:
// N; else 1) and rounded once into the output type. Host/device scalar code, the definition every
// backend's result must equal bit for bit; a SIMD tile instantiates l1_loss_formulas.inc with its
// own policy and sends the lanes its tests leave open to L1LossElement or L1GradientElement.
//
// Domain: x, t, g any fp32 values (16-bit inputs widened exactly; an integer input arrives
// already rounded once to the promoted float type), D >= 1 with p.scale = fl64(1/D) (DividedBy).
// The paths, cheapest first, each proven to give the correctly rounded result:
// - the fp32 loss with D = 1: the fp32 subtraction itself (L1Loss32);
// - a value exact in fp64 (the gradient's numerator +-g, or any zero, times a power-of-two scale),
//   or the loss's exact double-double |x - t| times such a scale, rounded through round-to-odd:
//   one rounding, no test;
// - the gradient's fl64(+-g / D) where D <= 2^(52 - p) for the type's precision p (2^28 for fp32,
//   2^41 for fp16, 2^44 for bf16): one fp64 rounding whose rounding to the type is correct, ties
//   of g / N with N = 3, 5, 7 included (l1_loss_error_budget.h), no test;
// - otherwise the fp64 estimate (L1Loss64, L1Gradient64) where its interval rounds to one value
//   (SettledIn), and the exact quotient of the exact numerator by D (RoundedQuotient) for the
//   rest, on or next to a midpoint.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/math.h"
#include "kernels/rounded_element.h"
#include "losses/l1_loss/l1_loss_error_budget.h"

namespace openaclnn::math {

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "losses/l1_loss/l1_loss_formulas.inc"

}  // namespace openaclnn::math

namespace openaclnn::math::exact {

// |x - t| exactly, as hi + lo, for finite fp32 x, t: TwoSum is exact for doubles whose sum does not
// overflow (fp32 values are below 2^128), and both parts are multiples of 2^-149. The sign bit
// decides, so that x = -0, t = +0 gives +0 too.
OPENACLNN_HOST_DEVICE inline DD AbsoluteDifference(float x, float t) {
  const DD d = TwoSum(x, -static_cast<double>(t));
  return std::signbit(d.hi) ? Neg(d) : d;
}

}  // namespace openaclnn::math::exact

namespace openaclnn {

// ScaleIsExact(p) (element_inputs.h): D a power of two, p.scale = 1/D exactly, and a product by it
// exact in fp64 (every value here is at least 2^-149, the scale at least 2^-62: no underflow).

// The fp64 estimates at one element (l1_loss_formulas.inc), their bounds NaN where an input is not
// finite.
OPENACLNN_HOST_DEVICE inline ElementEstimate L1LossEstimate(const ElementInputs& in, double scale) {
  return math::L1Loss64<math::ScalarOps64>(in.x, in.t, scale);
}
OPENACLNN_HOST_DEVICE inline ElementEstimate L1GradientEstimate(const ElementInputs& in,
                                                                double scale) {
  return math::L1Gradient64<math::ScalarOps64>(in.x, in.t, in.g, scale);
}

// The largest divisor whose gradient quotient fl64(n / D) rounds correctly to `type` with no test
// (l1_loss_error_budget.h).
OPENACLNN_HOST_DEVICE constexpr int64_t QuotientDivisorLimit(FloatType type) {
  return type == FloatType::kFloat32   ? math::kL1QuotientDivisorLimit32
         : type == FloatType::kFloat16 ? math::kL1QuotientDivisorLimitFp16
                                       : math::kL1QuotientDivisorLimitBf16;
}

// The exact path: n / D correctly rounded to `type`, for a nonzero finite n given exactly as
// hi + lo, as a double whose RoundedTo(type) is the result (exact comparisons of n with each
// nearby midpoint times D; a tie goes to even).
OPENACLNN_HOST_DEVICE inline double L1QuotientExact(math::exact::DD n, int64_t divisor,
                                                    FloatType type) {
  math::exact::ExactSum sum;
  sum.Add(n);
  return math::exact::RoundedQuotient(sum, math::exact::DivisorOf(1.0, divisor), type);
}

// |x - t| / D correctly rounded once to `type` (returned as fp32, exactly). Not finite: +inf
// where x or t is infinite (and not both of one sign), NaN (canonical) where either is NaN or
// x = t = +-inf. A zero is +0 (x = t), as is a nonzero value that underflows.
OPENACLNN_HOST_DEVICE inline float L1LossElement(const ElementParameters& p,
                                                 const ElementInputs& in, FloatType type) {
  if (p.divisor == 1 && type == FloatType::kFloat32) {
    return RoundedTo(math::L1Loss32<math::ScalarOps>(in.x, in.t), type);
  }
  if (!std::isfinite(in.x) || !std::isfinite(in.t)) {
    return RoundedTo(std::fabs(static_cast<double>(in.x) - in.t), type);  // +inf / D is +inf
  }
  const math::exact::DD d = math::exact::AbsoluteDifference(in.x, in.t);
  if (ScaleIsExact(p)) {
    // 53 bits rounded to odd keep the exact value's side of every midpoint of fp32, fp16 and bf16
    // (RoundToOdd), which fl64(x - t) alone does not (x a 16-bit midpoint, t tiny).
    return RoundedTo(math::exact::RoundToOdd({d.hi * p.scale, d.lo * p.scale}), type);
  }
  const ElementEstimate estimate = L1LossEstimate(in, p.scale);
  double settled = 0.0;
  if (SettledIn(estimate, type, &settled)) return RoundedTo(settled, type);
  return RoundedTo(L1QuotientExact(d, p.divisor, type), type);
}

// g sign(x - t) / D correctly rounded once to `type` (returned as fp32, exactly), sign(+-0) = +0
// and sign(NaN) = NaN (not CANN's 0). Not finite: NaN (canonical) where x, t or g is NaN, for x = t
// = +-inf (d = NaN) and for an infinite g with x = t (inf * 0); +-inf for an infinite g with x !=
// t. An infinite x or t with a finite g and d of one sign gives the finite +-g / D. A zero has the
// sign IEEE gives g * sign(d) (g's sign for x = t; for g = +-0 the product of the signs), as does a
// nonzero value that underflows.
OPENACLNN_HOST_DEVICE inline float L1GradientElement(const ElementParameters& p,
                                                     const ElementInputs& in, FloatType type) {
  const double n = math::L1GradientNumerator<math::ScalarOps64>(in.x, in.t, in.g);
  // NaN, or +-inf whose quotient by D is itself; a zero, or a quotient by a power of two: exact.
  if (!std::isfinite(n) || n == 0.0 || ScaleIsExact(p)) return RoundedTo(n * p.scale, type);
  if (p.divisor <= QuotientDivisorLimit(type)) {
    return RoundedTo(n / static_cast<double>(p.divisor), type);
  }
  const ElementEstimate estimate = L1GradientEstimate(in, p.scale);
  double settled = 0.0;
  if (SettledIn(estimate, type, &settled)) return RoundedTo(settled, type);
  return RoundedTo(L1QuotientExact({n, 0.0}, p.divisor, type), type);
}

}  // namespace openaclnn
