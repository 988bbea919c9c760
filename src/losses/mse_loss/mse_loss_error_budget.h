// The error budget of the MSE family (mse_loss_formulas.inc): the relative error bounds of its
// fp64 estimates, with their derivations, and the conditions under which a value is exact and
// needs no bound at all. The rounding tests are exactly as sound as these bounds;
// tests/unit/losses/mse_loss/ measures each against exact GMP rationals.
//
// Inputs x, t, g are fp32 values (16-bit inputs widened exactly): multiples of 2^-149 below
// 2^128. u = 2^-53, fp64's unit roundoff. Every fp64 value below is 0 or between 2^-361 and 2^259
// (d^2 >= 2^-298, a divisor below 2^63): normal, so each rounding is within u of its result.
#pragma once

namespace openaclnn::math {

// ---- d = x - t. Let |x| >= |t| > 0, 2^E <= |x| < 2^(E+1), and 2^q the last significand bit of
// t's format at t (q >= e - 23 for t of exponent e; fp16: e - 10, bf16: e - 7; never below -149):
// d is a multiple of 2^q below 2^(E+2), so it has at most E + 2 - q significant bits, and
// fl64(x - t) is exact where E - q <= 51: fp32 exponents at most 28 apart (either input 0:
// exact). Elsewhere fl64(x - t) is one rounding, within u of d. Whether it was exact is told by
// the Fast2Sum pair test (MseDifferenceExact): for |x| >= |t|, fl(d~ - x) is exact (Dekker), so
// fl(x - d~) == t exactly where d~ = x - t; for |t| > |x| the same holds for fl(d~ + t) == x; and
// both hold where d~ is exact. The same test in fp32 arithmetic tells whether fl32(x - t) is
// exact (where it overflows, x - inf is not t). fl32(x - t) is exact where d has at most 24
// significant bits and does not overflow: x, t of one sign within a factor 2 of each other
// (Sterbenz), either one 0, fp16 inputs whose exponents differ by at most 12, bf16 ones by at
// most 15 (below 2^127).
//
// ---- The terms (MseLossTerm64, MseGradientTerm64), not divided.
// The loss's q = fl(fl(x - t)^2): (1 + u)^3 - 1 < 3.0001 u of d^2. Exact where d~ is exact and d
// has at most 26 significant bits (an odd k-bit significand squares to 2k - 1 or 2k bits): fp16
// inputs with exponents at most 14 apart, bf16 ones 17 apart, fp32 ones 1 apart.
// The gradient's fl(fl(g + g) * fl(x - t)): g + g is exact, two roundings: 2.0001 u of 2 g d. Exact
// where d~ is exact and the significant bits of g and d add up to at most 53.
// A bound of kMseTermError = 4 u of the estimate exceeds 3.0001 u / (1 - 3.0001 u) of it. It is
// also the term error of a mean or sum (reduction.h: SettleReduction): each term's bound is this
// fraction of its magnitude, where the estimate happens to be exact too. As a reach (the bit tests
// of the SIMD tiles): 4 fp64 ulps of the value.
inline constexpr double kMseTermError = 0x1p-51;
static_assert(kMseTermError > 3.0001 * 0x1p-53 / (1 - 3.0001 * 0x1p-53));

// ---- The element estimates (MseLoss64, MseGradient64): the term over the divisor D. The scale
// s = fl(1 / fl(D)) is within (1 + u) / (1 - u) - 1 < 2.0001 u of 1 / D (within u where D <= 2^53,
// exact where D is a power of two), and 2 s is exact. The loss fl(q * s): d~'s rounding squared,
// q's and the product's, and s: (1 + u)^5 / (1 - u) - 1 < 6.0001 u of d^2 / D. The gradient
// fl(fl(g * 2s) * fl(x - t)): three roundings and s, (1 + u)^4 / (1 - u) - 1 < 5.0001 u of 2 g d /
// D. So each is within 6.0001 u / (1 - 6.0001 u) of itself. Its bound, kMseElementError = 8 u of
// the estimate, is exact; ErrorInterval's ends, rounded in fp64, give up at most u (1 + 8 u) of it:
// 6.999 u against 6.0002 u. As a reach: 8 fp64 ulps of the value.
inline constexpr double kMseElementError = 0x1p-50;
static_assert(kMseElementError - 0x1p-53 * (1 + kMseElementError) >
              6.0001 * 0x1p-53 / (1 - 6.0001 * 0x1p-53));

// ---- No bound at all. (a) Where D is a power of two and d~ is exact, the element is a product of
// two exact doubles scaled exactly by s: TwoProd's two parts, each times s (no underflow), rounded
// to odd, round once to any output type as the exact value does (MseScaledProductToOdd). (b) Where
// an estimate is one rounding of the exact value (D = 1, d~ exact, a single rounded product), its
// rounding to a type differs from the exact value's only where the estimate is itself a rounding
// boundary of the type (boundaries are doubles, and no double lies nearer the exact value than its
// rounding), and its exact residual (a fused multiply-add) tells which way. (c) fp32 lanes: where
// fl32(x - t) is exact, fl32(d * d) is the correctly rounded fp32 loss and, g + g finite,
// fl32((g + g) * d) the correctly rounded fp32 gradient of D = 1: one IEEE rounding of the exact
// value (subnormal results and overflow included, with no flush to zero); by (b) their rounding to
// fp16 or bf16 is correct unless the fp32 value is a boundary of that type with a residual.

}  // namespace openaclnn::math
