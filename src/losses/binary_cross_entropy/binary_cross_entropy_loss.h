// The binary cross entropy loss (aclnnBinaryCrossEntropy), one element:
// l = -w (t max(ln x, -100) + (1 - t) max(ln(1 - x), -100)), ln(1 - x) of the exact 1 - x, rounded
// once into the output type. Its fp64 estimate (binary_cross_entropy_loss.inc) settles nearly every
// element; the rest take the double-double form, whose rational parts (x = 0 or 1, a clamped
// logarithm: 100 w t, 100 w (1 - t)) are exact, so that a tie of those rounds to even and a tiny
// other term (x near 1e-44) still decides it. Host/device scalar code; a SIMD evaluator
// instantiates the .inc with its own policy and sends the lanes that do not settle to
// BinaryCrossEntropyLoss.
//
// Domain: every input an fp32 value (16-bit inputs widened exactly). An input that is not finite,
// or x outside [0, 1], takes the reference formula (BinaryCrossEntropyReference): NaN (x outside
// [0, 1], as CANN's logarithm of a negative; a target that is not finite) or an infinity (a weight
// that is).
#pragma once

#include <cmath>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/element_inputs.h"
#include "kernels/math.h"
#include "kernels/rounded_element.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_error_budget.h"

namespace openaclnn::math {

// The clamp of each logarithm, and the double just above e^-100 (0x1.a8c1f14e2af5dp-145, from
// mpmath): for every double x, x < kLogFloorArgument64 exactly where ln x < -100 (e^-100 is no
// double). For fp32 x that is x <= 26 * 2^-149.
inline constexpr double kLogFloor = -100.0;
inline constexpr double kLogFloorArgument64 = 0x1.a8c1f14e2af5dp-145;

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "losses/binary_cross_entropy/binary_cross_entropy_loss.inc"

}  // namespace openaclnn::math

namespace openaclnn::math::exact {

// The loss in double-double for finite inputs with x in [0, 1]: -w t L1 - w (1 - t) L2. A clamped
// term is exact: 100 w t = W t and 100 w (1 - t) = W - W t with W = 100 w (29 bits) and W t (53
// bits, above 2^-292) exact doubles, their difference an exact TwoSum; a logarithm of 1 is 0.
// The others are about 2^-100 of themselves (Log, LogOneMinus); the sum of the two keeps the sign
// of a tiny second term beside an exact first one, so that it decides a tie of the first.
OPENACLNN_HOST_DEVICE inline DD BinaryCrossEntropyLoss(float x, float t, float w) {
  const double hundred_w = 100.0 * w, hundred_wt = hundred_w * t;
  const double wt = static_cast<double>(w) * t;
  DD first, second;  // -w t L1, -w (1 - t) L2; 0 where the logarithm is of 1
  if (x < kLogFloorArgument64) {
    first = {hundred_wt, 0.0};
  } else if (x != 1.0f) {
    first = Mul(Log(x), -wt);
  }
  if (x == 1.0f) {
    second = TwoSum(hundred_w, -hundred_wt);
  } else if (x != 0.0f) {
    second =
        Mul(Mul(TwoSum(1.0, -static_cast<double>(t)), -static_cast<double>(w)), LogOneMinus(x));
  }
  return Add(first, second);
}

}  // namespace openaclnn::math::exact

namespace openaclnn {

// Whether an element takes the loss's formulas: t and w finite, x in [0, 1] (not NaN).
OPENACLNN_HOST_DEVICE inline bool InBinaryCrossEntropyDomain(const ElementInputs& in) {
  return in.x >= 0.0f && in.x <= 1.0f && std::isfinite(in.t) && std::isfinite(in.w);
}

// The loss's fp64 estimate and its bound (binary_cross_entropy_loss.inc); the bound is NaN outside
// the domain.
OPENACLNN_HOST_DEVICE inline ElementEstimate BinaryCrossEntropyEstimate(const ElementInputs& in) {
  using O64 = math::ScalarOps64;
  const double x = in.x;
  return math::BinaryCrossEntropyLoss64<O64>(x, in.t, in.w, math::ClampedLog64<O64>(x),
                                             math::ClampedLogOneMinus64<O64>(x));
}

// Outside the domain: CANN's formula in fp32 arithmetic, which decides the class of the result:
// NaN where x is outside [0, 1] (a logarithm of a negative) or t is not finite (t L1 + (1 - t) L2
// is then inf - inf or inf * 0), else -w * S, an infinity for an infinite w (NaN where S = 0). The
// logarithms are Log64's rounded to fp32 (the same bits on every backend), 1 - x is fp32's as
// CANN's; a clamp keeps NaN. NaN made kCanonicalNaN.
OPENACLNN_HOST_DEVICE inline double BinaryCrossEntropyReference(const ElementInputs& in) {
  const auto clamped_log = [](float v) {
    if (!(v >= 0.0f)) return static_cast<float>(NAN);  // a negative v or NaN, as logf
    if (v == 0.0f) return static_cast<float>(math::kLogFloor);
    if (std::isinf(v)) return v;
    const auto log = static_cast<float>(math::Log64<math::ScalarOps64>(v));
    return log < -100.0f ? -100.0f : log;
  };
  const float loss = -in.w * (in.t * clamped_log(in.x) + (1.0f - in.t) * clamped_log(1.0f - in.x));
  return CanonicalNaN(loss);
}

// The loss at one element, correctly rounded once to `type` (returned as fp32, exactly): the fp64
// estimate where its rounding is certain, else the double-double form; the reference formula
// outside the domain.
OPENACLNN_HOST_DEVICE inline float BinaryCrossEntropyLoss(const ElementInputs& in, FloatType type) {
  if (!InBinaryCrossEntropyDomain(in)) return RoundedTo(BinaryCrossEntropyReference(in), type);
  double settled = 0.0;
  if (SettledIn(BinaryCrossEntropyEstimate(in), type, &settled)) return RoundedTo(settled, type);
  return RoundedTo(math::exact::RoundToOdd(math::exact::BinaryCrossEntropyLoss(in.x, in.t, in.w)),
                   type);
}

// What mean and sum add for one element: its estimate and bound (kBinaryCrossEntropyLossError64
// of its terms, the term error of SettleReduction), or outside the domain the reference value
// with a NaN bound.
OPENACLNN_HOST_DEVICE inline ElementEstimate BinaryCrossEntropyLossTerm(const ElementInputs& in) {
  if (!InBinaryCrossEntropyDomain(in)) return {BinaryCrossEntropyReference(in), kCanonicalNaN};
  return BinaryCrossEntropyEstimate(in);
}

// What the exact pass of mean and sum adds for one element: its loss in double-double, or outside
// the domain the reference value (as BinaryCrossEntropyLossTerm).
OPENACLNN_HOST_DEVICE inline math::exact::DD BinaryCrossEntropyExactLossTerm(
    const ElementInputs& in) {
  if (!InBinaryCrossEntropyDomain(in)) return {BinaryCrossEntropyReference(in), 0.0};
  return math::exact::BinaryCrossEntropyLoss(in.x, in.t, in.w);
}

}  // namespace openaclnn
