// The loss and gradient math of the BCE-with-logits family, written once for every backend.
//
// Each function is a template over an "arithmetic" policy O that supplies the vector type
// O::V (float for scalar code, a SIMD vector for Highway kernels) and the few operations C++
// operators do not cover. Every step is an IEEE-exact operation (+, -, *, /, fused multiply-add,
// min/max, select, exponent-field arithmetic), so the scalar, SIMD and CUDA instantiations
// return the same bits for every finite input, whatever the vector width.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/dtype.h"

namespace openaclnn::math {

// Constants for exp(r) on |r| <= ln2/2 (Cephes expf coefficients, accurate to under 1 ulp in
// fp32) and the argument reduction around it.
inline constexpr float kLog2E = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693359375f;  // few mantissa bits: n * kLn2Hi is exact
inline constexpr float kLn2Lo = -2.12194440e-4f;
// 1.5 * 2^23: x + M rounds x to an integer i (for |x| < 2^22) and holds i in its low mantissa
// bits, which the exponent arithmetic (Pow2Rounded) and the table lookups (LookupRounded) read.
inline constexpr float kRoundMagic = 12582912.0f;
// exp(-a) is evaluated directly up to a = kExpNearMax and, scaled by 2^64, up to kExpArgMax:
// beyond, exp(-a) < 2^-150 rounds to 0, and clamping keeps the exponent arithmetic small.
inline constexpr float kExpNearMax = 64.0f;
inline constexpr float kExpArgMax = 120.0f;
OPENACLNN_TABLE float kExpP[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
// log(1 + e) by table: 1 + e is split at the nearest 1 + i/8 (i = 0..8), with
// kLogReciprocal[i] = r = 1/(1 + i/8) rounded to fp32, kLogReciprocalMinusOne[i] = r - 1 (exact)
// and kLogCenterHi/Lo[i] = -log(r) to 48 bits (i = 0 is exact: r = 1, log 0, so small results
// keep every digit).
OPENACLNN_TABLE float kLogReciprocal[16] = {0x1.000000p+0f, 0x1.c71c72p-1f, 0x1.99999ap-1f,
                                            0x1.745d18p-1f, 0x1.555556p-1f, 0x1.3b13b2p-1f,
                                            0x1.24924ap-1f, 0x1.111112p-1f, 0x1.000000p-1f};
OPENACLNN_TABLE float kLogReciprocalMinusOne[16] = {0.0f,
                                                    -0x1.c71c70p-4f,
                                                    -0x1.999998p-3f,
                                                    -0x1.1745d0p-2f,
                                                    -0x1.555554p-2f,
                                                    -0x1.89d89cp-2f,
                                                    -0x1.b6db6cp-2f,
                                                    -0x1.dddddcp-2f,
                                                    -0x1.000000p-1f};
OPENACLNN_TABLE float kLogCenterHi[16] = {0.0f,           0x1.e27074p-4f, 0x1.c8ff7ap-3f,
                                          0x1.4618bap-2f, 0x1.9f323cp-2f, 0x1.f128f4p-2f,
                                          0x1.1e85f4p-1f, 0x1.41d8fcp-1f, 0x1.62e430p-1f};
OPENACLNN_TABLE float kLogCenterLo[16] = {0.0f,
                                          0x1.c55e5cp-29f,
                                          0x1.e6a68ap-29f,
                                          0x1.0e2f66p-29f,
                                          0x1.97f30ap-27f,
                                          -0x1.0a1f20p-27f,
                                          0x1.9c1036p-27f,
                                          0x1.88ce58p-26f,
                                          -0x1.05c610p-29f};
// log1p(y) = y + y^2 * (-1/2 + y/3 - y^2/4 + y^3/5 - y^4/6) for |y| <= 1/16, error < 2^-26.
OPENACLNN_TABLE float kLog1pTaylor[] = {-1.0f / 6, 1.0f / 5, -1.0f / 4, 1.0f / 3, -1.0f / 2};

// fp64 constants of the exact-to-fp32 formulas (Loss64, GradSelf64, GradTarget64).
// exp(r) = 1 + r + r^2 * P(r) on |r| <= ln2/2, P of degree 8 fitted near-minimax (Chebyshev, in
// mpmath): relative error below 2^-49 before rounding.
inline constexpr double kLog2E64 = 1.4426950408889634;
inline constexpr double kRoundMagic64 = 6755399441055744.0;  // 1.5 * 2^52
inline constexpr double kLn2Hi64 = 0x1.62e42fefa39efp-1;     // ln 2 rounded to fp64
inline constexpr double kLn2Lo64 = 0x1.abc9e3b39803fp-56;    // ln 2 - kLn2Hi64
OPENACLNN_TABLE double kExpPoly64[] = {
    0x1.28803926c8ea8p-22, 0x1.72c720b2e07bfp-19, 0x1.a019c9ab213aap-16,
    0x1.a019adabfb6abp-13, 0x1.6c16c1738ecf7p-10, 0x1.1111111c45d5bp-7,
    0x1.5555555554cb8p-5,  0x1.5555555553b7dp-3,  0x1.0000000000000p-1};
// log(v) = 2s + 2s * z * Q(z) with s = (v-1)/(v+1), z = s^2 <= (3 - 2*sqrt(2))^2 for v in
// [sqrt(2)/2, sqrt(2)], Q of degree 5 fitted near-minimax: error below 2^-50 of log(v).
OPENACLNN_TABLE double kAtanhPoly64[] = {0x1.546a3155bacbfp-4, 0x1.7382dbfa1ce75p-4,
                                          0x1.c71fccd953895p-4, 0x1.2492462af84abp-3,
                                          0x1.9999999b8677ap-3, 0x1.55555555553b8p-2};
inline constexpr double kSqrt2 = 1.4142135623730951;
// exp(-a) is formed for a <= kExpArgMax64 (2^-1010 < e^-700 stays normal); beyond, e^-a is taken
// as e^-700, which changes no fp32 result (every factor it meets is below 2^256).
inline constexpr double kExpArgMax64 = 700.0;
// Relative error bound of the fp64 estimates, used to decide whether their fp32 rounding is
// certain: exp and log1p(exp) measure below 2^-49 against binary128 (3M arguments over [0, 700]);
// the fits and the few roundings around them bound them near 2^-48; 2^-44 leaves a margin of 16.
inline constexpr double kEstimateError64 = 0x1p-44;

// The formulas (Relu ... ReferenceGradTarget) live in math_formulas.inc so that each Highway
// target can compile its own copy of them (see the note there).
#include "kernels/math_formulas.inc"

// The policy for one element at a time (host loops, tails of SIMD loops, CUDA threads), in fp32
// (ScalarOps) or fp64 (ScalarOps64, for the exact-to-fp32 formulas).
template <class T>
struct ScalarOpsOf {
  using V = T;
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static constexpr int kMantissaBits = sizeof(T) == 4 ? 23 : 52;
  static constexpr int64_t kExponentBias = sizeof(T) == 4 ? 127 : 1023;

  OPENACLNN_HOST_DEVICE static V Set(T c) { return c; }
  OPENACLNN_HOST_DEVICE static V Neg(V a) { return -a; }
  OPENACLNN_HOST_DEVICE static V Abs(V a) { return std::fabs(a); }
  OPENACLNN_HOST_DEVICE static V MulAdd(V a, V b, V c) { return std::fma(a, b, c); }
  OPENACLNN_HOST_DEVICE static V IfThenElse(bool mask, V yes, V no) { return mask ? yes : no; }
  // The nearest fp32 of a, held as T.
  OPENACLNN_HOST_DEVICE static V RoundTo32(V a) { return static_cast<T>(static_cast<float>(a)); }
  // 2^(i + k) for rounded = kRoundMagic + i (the integer i in its low mantissa bits) and i + k in
  // the normal exponent range. Integer arithmetic on the bits: no float-to-int conversion.
  OPENACLNN_HOST_DEVICE static V Pow2Rounded(V rounded, int k) {
    const Bits magic_bits =
        BitCast<Bits>(static_cast<T>(sizeof(T) == 4 ? kRoundMagic : kRoundMagic64));
    const Bits offset = static_cast<Bits>(kExponentBias + k) - magic_bits;
    return BitCast<T>((BitCast<Bits>(rounded) + offset) << kMantissaBits);
  }
  // table[i] for rounded = kRoundMagic + i, i in [0, 15] (kRoundMagic's low 4 bits are 0).
  OPENACLNN_HOST_DEVICE static V LookupRounded(const T* table, V rounded) {
    return table[BitCast<Bits>(rounded) & 15];
  }
};

using ScalarOps = ScalarOpsOf<float>;
using ScalarOps64 = ScalarOpsOf<double>;

}  // namespace openaclnn::math
