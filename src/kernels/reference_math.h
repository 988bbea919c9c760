// The fp32 element math of the reference formulas, the ones CANN and PyTorch evaluate: exp(-a),
// log1p(e), softplus and sigmoid in fp32, defined for every input, infinities and NaN included.
// The reference formulas decide the class (NaN, +inf, -inf) of a result where an input is not
// finite (docs/contract/numerics.md §4); finite inputs take the correctly rounded formulas. Scalar
// code only (math::ScalarOps), the same on every backend.
#pragma once

#include "kernels/scalar_ops.h"

namespace openaclnn::math {

// Constants for exp(r) on |r| <= ln2/2 (Cephes expf coefficients, accurate to under 1 ulp in
// fp32) and the argument reduction around it.
inline constexpr float kLog2E = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693359375f;  // few mantissa bits: n * kLn2Hi is exact
inline constexpr float kLn2Lo = -2.12194440e-4f;
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

// max(x, 0) that keeps NaN (x < 0 is false for NaN). Plain Min/Max differ between ISAs on NaN.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V Relu(typename O::V x) {
  return O::IfThenElse(x < O::Set(0.0f), O::Set(0.0f), x);
}

// exp(-a) * 2^kShift for 0 <= a <= 87 + 0.69 * kShift, where the result is at least 2^-126 and
// keeps all its digits: exp(-a) = 2^m * exp(r), m the integer nearest -a*log2(e) and
// r = -a - m*ln2 in [-ln2/2, ln2/2], computed in two steps (Cody-Waite) so no digits are lost.
template <class O, int kShift>
OPENACLNN_HOST_DEVICE inline typename O::V ExpNegScaled(typename O::V a) {
  using Vec = typename O::V;
  const Vec rounded = O::MulAdd(a, O::Set(-math::kLog2E), O::Set(math::kRoundMagic));
  const Vec m = rounded - O::Set(math::kRoundMagic);
  Vec r = O::MulAdd(m, O::Set(-math::kLn2Hi), O::Neg(a));
  r = O::MulAdd(m, O::Set(-math::kLn2Lo), r);
  Vec p = O::Set(math::kExpP[0]);
  for (int i = 1; i < 6; ++i) p = O::MulAdd(p, r, O::Set(math::kExpP[i]));
  const Vec q = O::MulAdd(p, r * r, r) + O::Set(1.0f);  // exp(r) in [0.70, 1.42]
  return q * O::Pow2Rounded(rounded, kShift);
}

// a where exp(-a) matters and kExpArgMax beyond it; NaN, which callers propagate elsewhere, is
// taken as +inf.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V ClampExpArg(typename O::V a) {
  return O::IfThenElse(a < O::Set(math::kExpArgMax), a, O::Set(math::kExpArgMax));
}

// exp(-a) for a >= 0, +inf or NaN (as +inf); results below 2^-126 are rounded once, correctly,
// to the subnormal grid: past kExpNearMax the value is formed scaled by 2^64.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V ExpNeg(typename O::V a) {
  const typename O::V far = ExpNegScaled<O, 64>(ClampExpArg<O>(a)) * O::Set(0x1p-64f);
  return O::IfThenElse(a <= O::Set(math::kExpNearMax), ExpNegScaled<O, 0>(a), far);
}

// log(1 + e) for 0 <= e <= 1, without division: 1 + e is taken to the nearest table point
// 1 + i/8 by y = (1 + e)*r_i - 1 = e*r_i + (r_i - 1), one rounding, |y| <= 1/16, so
// log(1 + e) = -log(r_i) + log1p(y) with a short series. For e < 1/16, r = 1 and y = e.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V Log1pUnit(typename O::V e) {
  using Vec = typename O::V;
  const Vec index = O::MulAdd(e, O::Set(8.0f), O::Set(math::kRoundMagic));
  const Vec y = O::MulAdd(e, O::LookupRounded(math::kLogReciprocal, index),
                          O::LookupRounded(math::kLogReciprocalMinusOne, index));
  Vec poly = O::Set(math::kLog1pTaylor[0]);
  for (int i = 1; i < 5; ++i) poly = O::MulAdd(poly, y, O::Set(math::kLog1pTaylor[i]));
  const Vec log1p_y = O::MulAdd(y * y, poly, y);
  return O::LookupRounded(math::kLogCenterHi, index) +
         (O::LookupRounded(math::kLogCenterLo, index) + log1p_y);
}

// softplus(x) = log(1 + exp(x)) and softplus(-x), sharing their one exp and one log1p:
// softplus(+-x) = max(+-x, 0) + log1p(exp(-|x|)). Infinities give their limits, NaN gives NaN.
template <class O>
struct Softplus {
  typename O::V pos, neg;
};

template <class O>
OPENACLNN_HOST_DEVICE inline Softplus<O> SoftplusPair(typename O::V x) {
  const typename O::V log_term = Log1pUnit<O>(ExpNeg<O>(O::Abs(x)));
  return {Relu<O>(x) + log_term, Relu<O>(O::Neg(x)) + log_term};
}

// sigmoid(x) = 1 / (1 + exp(-x)), as e/(1+e) for x < 0 so nothing overflows; NaN stays NaN.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V Sigmoid(typename O::V x) {
  using Vec = typename O::V;
  const Vec e = ExpNeg<O>(O::Abs(x));
  const Vec positive = O::Set(1.0f) / (O::Set(1.0f) + e);
  const Vec sigmoid = O::IfThenElse(x < O::Set(0.0f), e * positive, positive);
  return O::IfThenElse(x == x, sigmoid, x);
}

}  // namespace openaclnn::math
