// The error budget of the KL divergence family (kl_div_formulas.inc, kl_div_math.h): every bound
// its fp64 estimates carry and the accuracy of its exact paths, each with its derivation and a
// static_assert that the parts fit. The rounding tests are exactly as sound as these bounds;
// tests/unit/losses/kl_div/ measures each against binary128 and exact rationals.
//
// Notation: u = 2^-53 (one fp64 rounding); s = fl(1 / D), D the divisor, within 2^-52 of 1 / D
// (element_inputs.h); l = ln t; E = e^t.
#pragma once

#include "kernels/math_tables.h"
#include "kernels/transcendentals_error_budget.h"

namespace openaclnn::math {

inline constexpr double kKlDivRounding = 0x1p-53;

// ---- The two transcendentals. ln t: Log64 within kLogError64 (2^-47) of itself for every positive
// normal double (transcendentals_error_budget.h derives it for every exponent k).
// e^t: ExpNeg64(-t), whose reduction, table and polynomial are those of exp(-a) for a >= 0, with
// the same error, 2^-45.3 (bce_with_logits_error_budget.h: kEstimateError64's parts): for -t in
// [-700, 0) the integer n of its reduction is negative, and 2^floor(-n/16) stays a normal double
// (its exponent field at most 1023 + 1010). 2^-45 leaves a margin; the test measures the worst over
// [-500, 700] (every fp16 and bf16 t there and 200,000 fp32 ones): 2^-45.6.
inline constexpr double kKlDivExpError64 = 0x1p-45;

// The range of e^t the estimates form: t is clamped to [kKlDivExpTargetMin, kKlDivExpTargetMax].
// Above it (t > 700) e^t (t - x) / D is at least 2^932 wherever it is not 0 (|t - x| >= 2^-14 for
// fp32 t >= 512, D <= 2^63), and g e^t / D and g e^t (t - x + 1) / D at least 2^783 (|g| >=
// 2^-149, |t - x + 1| >= 2^-14): +-inf in every output type, or an exact 0. Below it (t < -500)
// every result is below 2^128 e^-500 2^129 < 2^-464 in magnitude, so it rounds to +-0 with its
// sign, which the value formed with e^-500 shares (a positive factor in place of another); and
// within it e^t s |g| >= 2^-721 2^-63 2^-149 keeps every product of the estimates a normal double
// but the last.
inline constexpr double kKlDivExpTargetMax = kExpArgMax64;
inline constexpr double kKlDivExpTargetMin = -500.0;

// ---- The estimates.

// Probability targets: t (l - x) s and g (l - x + 1) s, from L = Log64(t) within 2^-47 |l|, its
// difference with x and the sum with 1 rounded (u each of |l| + |x| + 1 at most), times t s or g s
// (s within 2u of 1 / D, two roundings): within (2^-47 + 6u)(1 + 2^-46) of the terms
// T = |t s| (|l| + |x|), resp. |g s| (|l| + |x| + 1), which are formed in fp64 from L (|L| within
// 2^-47 of |l|) in at most five roundings of non-negative values (within 6u of themselves, low).
// The interval's ends, rounded in fp64, give up at most u (|value| + bound) <= 1.01 u T. The sum of
// these needs 2^-46.8 of T; 2^-46 leaves a margin of 1.7. Every value is at most T (1 + 8u), so the
// bound is at least kKlDivLogTermError64 / (1 + 8u) of it.
inline constexpr double kKlDivLogTermError64 = 0x1p-46;
static_assert(kKlDivLogTermError64 >= (kLogError64 + 6 * kKlDivRounding) *
                                              (1 + kLogError64 + 6 * kKlDivRounding) /
                                              (1 - kLogError64 - 6 * kKlDivRounding) +
                                          1.01 * kKlDivRounding);

// Log targets: E s (t - x), -g s E, as products of E (within 2^-45 of e^t) and exact inputs, four
// roundings and s: within 2^-45 + 5.01u of the value. And g s E (t - x + 1), whose t - x and + 1
// round (u of |t - x| and of |t - x + 1|): within (2^-45 + 7u)(1 + 2^-44) of the terms
// T = |g s E| (|d| + |d + 1|), d = fl(t - x), formed in fp64 within 7u of themselves. With the
// interval's rounding (u of the value and bound) each needs 2^-44.8; 2^-44 of |value|, resp. T,
// leaves a margin of 1.7 (a bound of |value| is within 2^-44.8 of the exact value's magnitude).
inline constexpr double kKlDivExpTermError64 = 0x1p-44;
static_assert(kKlDivExpTermError64 * (1 - kKlDivExpError64 - 6 * kKlDivRounding) >=
              (kKlDivExpError64 + 7 * kKlDivRounding) * (1 + kKlDivExpTermError64) /
                      (1 - kKlDivExpError64 - 7 * kKlDivRounding) +
                  1.01 * kKlDivRounding);

// -g t s for probability targets: g t is exact in fp64 (two fp32 significands, within [2^-298,
// 2^256]); s is exact where D is a power of two (the estimate is then the exact value: bound 0),
// else within 2u of 1 / D, and the product rounds once: within 3.01u of the value, and 4.02u with
// the interval's rounding; 2^-50 (8u) of |value| leaves a margin of 2.
inline constexpr double kKlDivProductError64 = 0x1p-50;
static_assert(kKlDivProductError64 * (1 - 3.01 * kKlDivRounding) >= 4.02 * kKlDivRounding);

// A mean's or sum's term (scale 1; not divided by D) carries its estimate's bound plus
// kKlDivTermError of its magnitude, so that every bound is at least that fraction of its term
// (reduction.h: SettleReduction bounds the in-block additions from it, as 260 u / kKlDivTermError
// = 2.03 times the bounds), exact products included. At most the losses' own bounds: it at most
// doubles them.
inline constexpr double kKlDivTermError = 0x1p-46;
static_assert(kKlDivTermError <= kKlDivLogTermError64 && kKlDivTermError <= kKlDivExpTermError64);

// An estimate beyond kKlDivBeyondRange in magnitude is the result's infinity, with its sign: every
// exact value there is beyond 2^198, above every type's range. (A bound exceeds 2^-40 of its value
// only where l - x or l - x + 1 cancels, for |x| < 107, where the value is below 2^136; or for log
// targets where t - x + 1 does, whose fp64 value errs by a factor of 2 at most and never in sign:
// fl(t - x) + 1 has the sign of t - x + 1, -1 being a double, and is 0 or at least 2^-53.) The
// rounding tests' 16-bit grids, which hold below 2^900 only (scalar_ops.h: RoundToGrid), are then
// never asked.
inline constexpr double kKlDivBeyondRange = 0x1p200;

// ---- The exact paths. Each forms its result's numerator (before the division by D) as an exact
// sum of exact products of doubles (kernels/exact_sum.h), divided by D exactly and rounded once
// (RoundedQuotient): exact but for the double-double ln t (math::exact::Log) and e^t
// (math::exact::ExpNeg), within these of themselves (the tests measure 2^-99.9 over every fp16 and
// bf16 t and 200,000 fp32 ones, and 2^-96.6 for e^t, whose reduction's m ln 2 errs by m 2^-107,
// m up to 1010: 2^-97.6 for t <= 150). e^t for t >= kKlDivExpTargetMin only: below -671 its low
// part is subnormal, and every result there is below 2^-800, a zero of its sign in every type.
// Rational results (t = 1 for probability targets, t = 0 for log targets, -g t always) are exact,
// and their ties round to even.
inline constexpr double kKlDivLogDoubleDoubleError = 0x1p-99;
inline constexpr double kKlDivExpDoubleDoubleError = 0x1p-96;

// l - x and l - x + 1 cancel: their error, kKlDivLogDoubleDoubleError |l|, is a larger part of a
// smaller value. scripts/kl-div-log-distance.cc searched every positive finite fp32 t != 1
// (2,139,095,038 of them; 92 s of one core, 10 min on the shared machine): no fp32 x comes closer
// to ln t than 2^-56.58 |ln t| (t = 0x1.108a5ap-66, then 2^-56.12 at t = 0x1.2fe614p+117), nor to
// ln t + 1 than 2^-56.57 |ln t| (the same t, then 0x1.78bc74p-2, where ln t + 1 = 7.3e-5: 2^-56.55
// of ln t + 1 itself); 2, resp. 3, t come within 2^-56, 46 and 63 within 2^-50, 45,836 and 51,677
// within 2^-40 (every other t stays farther). So t (l - x) and g (l - x + 1) are formed within
// kKlDivCancellingExactError of their own value, however small (exactly where l = 0); for every t
// but those 45,836 and 51,677 (2^-15.4 of them), within 2^-59 at every x. Log targets
// lose nothing to cancellation (t - x + 1 is an exact sum of three doubles): 2^-96 of the value.
inline constexpr double kKlDivLogCancellation = 0x1p-57;
inline constexpr double kKlDivCancellingExactError =
    kKlDivLogDoubleDoubleError / kKlDivLogCancellation;
static_assert(kKlDivCancellingExactError == 0x1p-42);

// So an element's exact path does not trust the double-double ln t beyond its interval: the
// numerator with it errs by at most 2 kKlDivLogDoubleDoubleError |f ln t| (f = t or g; std::log's
// rounding of |ln t| inside the factor 2), and where that interval around it does not round to one
// value (KlDivRoundedWithin), the numerator is formed again with ln t in triple double
// (kernels/triple_double.h: LogTriple, within kKlDivLogTripleError of itself; MPFR measures
// 2^-157.1 at worst), within kKlDivLogTripleError / kKlDivLogCancellation = 2^-90 of the value at
// the deepest cancellation, and rounded from that. (Means and sums keep the double-double terms.)
inline constexpr double kKlDivLogTripleError = 0x1p-147;
static_assert(kKlDivLogTripleError / kKlDivLogCancellation == 0x1p-90);

}  // namespace openaclnn::math
