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

#include "base/dtype.h"

namespace openaclnn::math {

// Constants for exp(r) on |r| <= ln2/2 (Cephes expf coefficients) and the fdlibm log1pf
// minimax coefficients, both accurate to well under 1 ulp in fp32.
inline constexpr float kLog2E = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693359375f;  // few mantissa bits: n * kLn2Hi is exact
inline constexpr float kLn2Lo = -2.12194440e-4f;
inline constexpr float kLn2 = 0.693147180559945309f;
inline constexpr float kSqrt2 = 1.41421356237309505f;
inline constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23: x + M - M rounds x to integer
// Beyond this, exp(-a) < 2^-150 rounds to 0; clamping keeps the exponent arithmetic small.
inline constexpr float kExpArgMax = 120.0f;
inline constexpr float kExpP[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                  4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
inline constexpr float kLogLg[] = {6.6666668653e-01f, 4.0000000596e-01f, 2.8571429849e-01f,
                                   2.2222198546e-01f};

// max(x, 0) that keeps NaN (x < 0 is false for NaN). Plain Min/Max differ between ISAs on NaN.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V Relu(typename O::V x) {
  return O::IfThenElse(x < O::Set(0.0f), O::Set(0.0f), x);
}

// exp(-a) for a >= 0, +inf or NaN (NaN is treated as +inf: callers propagate NaN elsewhere).
// Result in [0, 1]; subnormal results are correctly rounded.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V ExpNeg(typename O::V a) {
  using V = typename O::V;
  a = O::IfThenElse(a < O::Set(kExpArgMax), a, O::Set(kExpArgMax));
  const V n = (a * O::Set(kLog2E) + O::Set(kRoundMagic)) - O::Set(kRoundMagic);
  // r = n*ln2 - a in [-ln2/2, ln2/2], in two steps (Cody-Waite) so no digits are lost.
  V r = O::MulAdd(n, O::Set(kLn2Hi), O::Neg(a));
  r = O::MulAdd(n, O::Set(kLn2Lo), r);
  V p = O::Set(kExpP[0]);
  for (int i = 1; i < 6; ++i) p = O::MulAdd(p, r, O::Set(kExpP[i]));
  const V q = O::MulAdd(p, r * r, r) + O::Set(1.0f);  // exp(r) in [0.70, 1.42]
  // Scale by 2^-n in two halves so that neither factor underflows; only the last multiply
  // rounds, which makes subnormal results correctly rounded too.
  const V half = (n * O::Set(0.5f) + O::Set(kRoundMagic)) - O::Set(kRoundMagic);
  return (q * O::Pow2(O::Neg(half))) * O::Pow2(half - n);
}

// log(1 + e) for 0 <= e <= 1, the way fdlibm's log1pf does it: u = 1 + e rounded, c the
// rounding error of u, log(u) by the atanh series on the reduced u, plus the correction c/u.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V Log1pUnit(typename O::V e) {
  using V = typename O::V;
  const V one = O::Set(1.0f);
  const V u = one + e;
  const V c = e - (u - one);  // exact, as |e| <= 1
  const auto big = u > O::Set(kSqrt2);
  const V k = O::IfThenElse(big, one, O::Set(0.0f));
  const V m = O::IfThenElse(big, u * O::Set(0.5f), u);
  const V f = m - one;  // exact (Sterbenz)
  const V s = f / (O::Set(2.0f) + f);
  const V z = s * s;
  V r = O::Set(kLogLg[3]);
  r = O::MulAdd(r, z, O::Set(kLogLg[2]));
  r = O::MulAdd(r, z, O::Set(kLogLg[1]));
  r = O::MulAdd(r, z, O::Set(kLogLg[0]));
  r = r * z;
  const V half_f_sq = O::Set(0.5f) * f * f;
  const V log_m = f - (half_f_sq - s * (half_f_sq + r));
  const V correction = O::MulAdd(k, O::Set(kLn2Lo), c / u);
  return O::MulAdd(k, O::Set(kLn2Hi), log_m + correction);
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

// Per-element forward loss, cancellation-free for t in [0,1] and p, w >= 0:
//   w * (p*t*softplus(-x) + (1-t)*softplus(x)).
// Exact for finite inputs; where an input is not finite the kernels use ReferenceLoss.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V Loss(typename O::V x, typename O::V t, typename O::V w,
                                                typename O::V p) {
  // The weights are combined first: softplus(x) is as large as |x| (up to 3.4e38), and scaling
  // it last could overflow where the true loss does not.
  const Softplus<O> sp = SoftplusPair<O>(x);
  const typename O::V neg_scale = w * (O::Set(1.0f) - t);
  return O::MulAdd(w * (p * t), sp.neg, neg_scale * sp.pos);
}

// The formula CANN and PyTorch evaluate, ((1-t)*x - (1+(p-1)*t) * log_sigmoid(x)) * w, which
// decides the class (NaN, +inf, -inf) of the result when an input is not finite.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V ReferenceLoss(typename O::V x, typename O::V t,
                                                         typename O::V w, typename O::V p) {
  using V = typename O::V;
  const V one = O::Set(1.0f);
  const V log_sigmoid = O::Neg(SoftplusPair<O>(x).neg);
  return ((one - t) * x - ((p - one) * t + one) * log_sigmoid) * w;
}

// sigmoid(x) = 1 / (1 + exp(-x)), as e/(1+e) for x < 0 so nothing overflows; NaN stays NaN.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V Sigmoid(typename O::V x) {
  using V = typename O::V;
  const V e = ExpNeg<O>(O::Abs(x));
  const V positive = O::Set(1.0f) / (O::Set(1.0f) + e);
  const V sigmoid = O::IfThenElse(x < O::Set(0.0f), e * positive, positive);
  return O::IfThenElse(x == x, sigmoid, x);
}

// d loss / d x = g * w * ((1 + (p-1)*t) * sigmoid(x) - p*t), the form PyTorch's autograd uses,
// so special values come out as theirs do.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V GradSelf(typename O::V x, typename O::V t,
                                                    typename O::V w, typename O::V p,
                                                    typename O::V g) {
  using V = typename O::V;
  const V one = O::Set(1.0f);
  const V pos_scale = (p - one) * t + one;
  return g * w * O::MulAdd(pos_scale, Sigmoid<O>(x), O::Neg(p * t));
}

// d loss / d t = g * w * (p*softplus(-x) - softplus(x)) = g * w * ((p-1)*softplus(-x) - x),
// the second form being exact (-x) for p = 1.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V GradTarget(typename O::V x, typename O::V w,
                                                      typename O::V p, typename O::V g) {
  const typename O::V one = O::Set(1.0f);
  return g * w * O::MulAdd(p - one, SoftplusPair<O>(x).neg, O::Neg(x));
}

// The PyTorch form g * w * (log_sigmoid(-x) - p*log_sigmoid(x)), for the class of the result
// when an input is not finite.
template <class O>
OPENACLNN_HOST_DEVICE inline typename O::V ReferenceGradTarget(typename O::V x, typename O::V w,
                                                               typename O::V p, typename O::V g) {
  const Softplus<O> sp = SoftplusPair<O>(x);
  return g * w * (p * sp.neg - sp.pos);
}

// The policy for one element at a time: host loops, tails of SIMD loops, CUDA threads.
struct ScalarOps {
  using V = float;
  OPENACLNN_HOST_DEVICE static V Set(float c) { return c; }
  OPENACLNN_HOST_DEVICE static V Neg(V a) { return -a; }
  OPENACLNN_HOST_DEVICE static V Abs(V a) { return std::fabs(a); }
  OPENACLNN_HOST_DEVICE static V MulAdd(V a, V b, V c) { return std::fma(a, b, c); }
  OPENACLNN_HOST_DEVICE static V IfThenElse(bool mask, V yes, V no) { return mask ? yes : no; }
  // 2^n for an integer-valued n in [-126, 127].
  OPENACLNN_HOST_DEVICE static V Pow2(V n) {
    return BitCast<float>(static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23);
  }
};

}  // namespace openaclnn::math
