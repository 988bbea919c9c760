// The error budget of the L1 family (l1_loss_formulas.inc): the one relative error bound its fp64
// estimates carry, with its derivation. The rounding tests (SettledIn, and a SIMD tile's bit tests
// with the reach below) are exactly as sound as this bound; tests/unit/losses/l1_loss/ measures it
// against exact rationals. Every derivation of the family's bounds is written here.
#pragma once

#include <cstdint>

namespace openaclnn::math {

// u = 2^-53, fp64's unit roundoff. For fp32 inputs x, t (16-bit ones widened exactly), a nonzero
// d = x - t lies in [2^-149, 2^129], a normal double, so each fp64 rounding below is relative:
// - the loss's estimate fl(fl(|x - t|) s), s = fl64(1 / fl64(D)) within 2u of 1/D
//   (ElementParameters: 2^-52; u where D <= 2^53, 0 where D is a power of two), and the product's
//   rounding (the product lies in [2^-212, 2^129], normal): within
//   (1 + u)^2 (1 + 2u) - 1 < 4.01u of |d| / D;
// - the gradient's, fl(g s) times sign(d) (+-1 or 0, exact): within (1 + 2u)(1 + u) - 1 < 3.01u of
//   g sign(d) / D.
// A bound of 8u (2^-50) of the estimate is at least 8u (1 - 4.01u) of the exact value; each end of
// the interval value -+ bound, rounded in fp64 (ErrorInterval), gives up at most u (1 + 8u) of the
// estimate: at least 6.99u of the exact value remains, against 4.01u. The bound is formed as
// fma(|value|, 2^-50, +-0): exact (a power of two times a normal double), so that it is also the
// family's term error, bound == kL1Error64 * |value| bit for bit (a mean's or sum's terms, D = 1).
// A SIMD tile's bit test takes the same bound as a reach of 8 fp64 ulps of the value.
inline constexpr double kL1Error64 = 0x1p-50;
// The derivation's two inequalities in units of u (each product expanded: (1 + u)^2 (1 + 2u) - 1 =
// 4u + 5u^2 + 2u^3), so that no constant below rounds away the terms it is about.
inline constexpr double kL1EstimateErrorUlps = 4.01;
static_assert(4 + 5 * 0x1p-53 + 2 * 0x1p-106 < kL1EstimateErrorUlps);
static_assert(kL1Error64 == 8 * 0x1p-53 &&
              8 * (1 - kL1EstimateErrorUlps * 0x1p-53) -
                      (1 + 8 * 0x1p-53) * (1 + kL1EstimateErrorUlps * 0x1p-53) >=
                  kL1EstimateErrorUlps);

// ---- The gradient's quotient without a rounding test. For a finite nonzero fp32 g and an integer
// D <= 2^53 (a double), v = fl64(g / D) is q = g / D rounded once to fp64 (IEEE division), and its
// one rounding to a type of precision p (RoundOnce) is q's wherever D <= 2^(52 - p): every midpoint
// m of the type's grid (its overflow threshold included) is a double, so rounding's monotony keeps
// v on q's side of each, and v = m != q is the one way to round q wrongly. That needs
// |q - m| <= 2^-53 m (half an fp64 ulp; m >= 2^-150 is a normal double). Write m = M 2^a (M odd,
// M < 2^(p+1)) and g = G 2^b (|G| < 2^24): g - m D is a nonzero multiple of 2^min(a, b), so
// |q - m| >= 2^min(a, b) / D. Where b < a: 2^b > |g| 2^-24 >= m D (1 - 2^-53) 2^-24, so
// |q - m| > 2^-53 m. Where a <= b: 2^a / D <= 2^-53 M 2^a needs D >= 2^53 / M > 2^(52 - p).
// (q is never 0 and never below fp64's range: |g / D| >= 2^-149 / 2^63.) Beyond the limit a test
// is needed: D = M^-1 mod 2^c makes M D - 1 = G 2^c, and g = G 2^(a + c) (a float where G < 2^24)
// lies 2^a / D below m D, so q = m - 2^a / D, which fp64 rounds onto m where M D > 2^53 (the tests
// build such inputs for each type). The limits, 2^(52 - p) for fp32 (p = 24), fp16 (11), bf16 (8):
inline constexpr int64_t kL1QuotientDivisorLimit32 = int64_t{1} << (52 - 24);
inline constexpr int64_t kL1QuotientDivisorLimitFp16 = int64_t{1} << (52 - 11);
inline constexpr int64_t kL1QuotientDivisorLimitBf16 = int64_t{1} << (52 - 8);

}  // namespace openaclnn::math
