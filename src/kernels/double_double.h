// Double-double arithmetic (about 100 significant bits) and exp, log1p and ln in it, for the rare
// results whose fp64 estimate (estimate.inc) lies too near a rounding boundary of the output type
// to be rounded with certainty. Scalar code only, used by every backend for those results, so that
// the scalar and SIMD paths agree bit for bit. Finite inputs.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/math.h"

namespace openaclnn::math::exact {

// hi + lo with |lo| <= ulp(hi)/2.
struct DD {
  double hi = 0.0, lo = 0.0;
};

OPENACLNN_HOST_DEVICE inline DD TwoSum(double a, double b) {
  const double sum = a + b;
  const double b_part = sum - a;
  return {sum, (a - (sum - b_part)) + (b - b_part)};
}

// |a| >= |b| or a = 0.
OPENACLNN_HOST_DEVICE inline DD FastTwoSum(double a, double b) {
  const double sum = a + b;
  return {sum, b - (sum - a)};
}

OPENACLNN_HOST_DEVICE inline DD Add(DD a, DD b) {
  const DD high = TwoSum(a.hi, b.hi);
  const DD low = TwoSum(a.lo, b.lo);
  DD sum = FastTwoSum(high.hi, high.lo + low.hi);
  return FastTwoSum(sum.hi, sum.lo + low.lo);
}

OPENACLNN_HOST_DEVICE inline DD operator+(DD a, DD b) { return Add(a, b); }

OPENACLNN_HOST_DEVICE inline DD Neg(DD a) { return {-a.hi, -a.lo}; }

// x * y, but never 0 where neither factor is: an underflow to 0 becomes the smallest double of the
// product's sign, so that a rest far below fp64's range (a tiny weight times exp(-700)) still
// tells a result rounded to odd on which side of a rounding boundary the exact value lies.
OPENACLNN_HOST_DEVICE inline double MulKeepingSign(double x, double y) {
  const double product = x * y;
  if (product != 0.0 || x == 0.0 || y == 0.0) return product;
  return (x < 0.0) != (y < 0.0) ? -0x1p-1074 : 0x1p-1074;
}

OPENACLNN_HOST_DEVICE inline DD Mul(DD a, DD b) {
  const double product = MulKeepingSign(a.hi, b.hi);
  // Below 2^-969 the product's rounding error is not representable, and the cross terms, each at
  // most 2^-53 of the product (|lo| <= ulp(hi)/2), are no larger than it: the product alone is
  // kept, with its sign. Added, cross terms that underflow to +-2^-1074 (MulKeepingSign) would
  // cancel a product of one or two such units, or turn its sign (a tiny weight times
  // log1p(exp(-694)): the with-logits loss's log term, whose sign may decide a tie).
  if (std::fabs(product) < 0x1p-969) return {product, 0.0};
  return FastTwoSum(product, std::fma(a.hi, b.hi, -product) +
                                 (MulKeepingSign(a.hi, b.lo) + MulKeepingSign(a.lo, b.hi)));
}

OPENACLNN_HOST_DEVICE inline DD Mul(DD a, double b) { return Mul(a, DD{b, 0.0}); }

// a / b by three quotient digits, each from the remainder left by the ones before.
OPENACLNN_HOST_DEVICE inline DD Div(DD a, DD b) {
  const double q1 = a.hi / b.hi;
  DD rest = Add(a, Neg(Mul(b, q1)));
  const double q2 = rest.hi / b.hi;
  rest = Add(rest, Neg(Mul(b, q2)));
  const double q3 = rest.hi / b.hi;
  return Add(FastTwoSum(q1, q2), DD{q3, 0.0});
}

// exp(r) - 1 for |r| <= 0.75, relative error about 2^-100: the Taylor series on r / 2^10, then
// ten doublings (1 + q)^2 - 1 = 2q + q^2, which keep the relative precision of small results.
OPENACLNN_HOST_DEVICE inline DD ExpM1(DD r) {
  constexpr int kHalvings = 10;
  const DD small{std::ldexp(r.hi, -kHalvings), std::ldexp(r.lo, -kHalvings)};
  // Horner in the form q = r(1 + r/2 (1 + r/3 (1 + ...))), 12 terms: |r| < 2^-10, error 2^-120.
  DD q{1.0, 0.0};
  for (int k = 12; k >= 2; --k) {
    DD step = Mul(small, q);
    const double quotient = step.hi / k;
    const double remainder = std::fma(-quotient, static_cast<double>(k), step.hi) + step.lo;
    step = FastTwoSum(quotient, remainder / k);
    q = Add(DD{1.0, 0.0}, step);
  }
  q = Mul(small, q);
  for (int i = 0; i < kHalvings; ++i) q = Add(Add(q, q), Mul(q, q));
  return q;
}

// exp(-a) for finite a >= 0 (a > kExpArgMax64 as kExpArgMax64, as ExpNeg64): 2^-m * exp(r) with
// r = m*ln2 - a in double-double (ln2 in two parts, m below 2^11).
OPENACLNN_HOST_DEVICE inline DD ExpNeg(double a) {
  a = a < kExpArgMax64 ? a : kExpArgMax64;
  const double m = std::nearbyint(a * kLog2E64);
  const DD m_ln2 = Mul(DD{kLn2Hi64, kLn2Lo64}, m);
  const DD exp_r = Add(DD{1.0, 0.0}, ExpM1(Add(m_ln2, DD{-a, 0.0})));
  const int shift = -static_cast<int>(m);
  return {std::ldexp(exp_r.hi, shift), std::ldexp(exp_r.lo, shift)};
}

// log(1 + e) for e in [0, 1]: one Newton step from the fp64 value y0, y = y0 + (1 + e) *
// exp(-y0) - 1, with (1 + e)(1 + q) - 1 = e + q + e*q (q = expm1(-y0)) summed so that tiny
// results keep their relative precision.
OPENACLNN_HOST_DEVICE inline DD Log1p(DD e) {
  const double y0 = Log1p64<ScalarOps64>(e.hi);
  const DD q = ExpM1(DD{-y0, 0.0});
  const DD step = Add(Add(e, q), Mul(e, q));
  return Add(DD{y0, 0.0}, step);
}

// k*ln2 + log1p(e) for a logarithm's exact split (transcendentals.inc: LogArgument), ln 2 to 106
// bits: about 2^-100 of the result, 2^-99 where k = -1 cancels most of log1p(e) (ln a near
// -1/32). Log1p's Newton step holds for e in [-1/32, 0) as for e >= 0 (y0 within 2^-47 of itself).
OPENACLNN_HOST_DEVICE inline DD Log(const LogArgument<ScalarOps64>& argument) {
  return Add(Mul(DD{kLn2Hi64, kLn2Lo64}, argument.k), Log1p(DD{argument.e, 0.0}));
}

// ln a for a positive normal a (Log64's domain).
OPENACLNN_HOST_DEVICE inline DD Log(double a) { return Log(LogArgumentOf<ScalarOps64>(a)); }

// ln(1 - a) for a in [0, 1) (LogOneMinus64's domain: 1 - a exact where a >= 1/32).
OPENACLNN_HOST_DEVICE inline DD LogOneMinus(double a) {
  return Log(LogOneMinusArgumentOf<ScalarOps64>(a));
}

// hi + lo as one double rounded to odd (hi, its last bit set toward lo where lo is not 0 and that
// bit is clear): 53 bits that keep lo's direction, so its one rounding to fp32, fp16 or bf16
// (RoundOnce) is the correct rounding of hi + lo.
OPENACLNN_HOST_DEVICE inline double RoundToOdd(DD v) {
  uint64_t bits = BitCast<uint64_t>(v.hi);
  if (v.lo != 0.0 && (bits & 1) == 0) {
    const bool away_from_zero = (v.lo > 0.0) == (v.hi > 0.0);
    bits = away_from_zero ? bits + 1 : bits - 1;
  }
  return BitCast<double>(bits);
}

// a * b exactly, as product + error (fused multiply-add): exact where it does not overflow and
// the product of a's and b's lowest set bits is at least 2^-1074 (every bit of the exact product
// is then a double's; callers check their ranges).
OPENACLNN_HOST_DEVICE inline DD TwoProd(double a, double b) {
  const double product = a * b;
  return {product, std::fma(a, b, -product)};
}

// The sign (-1, 0 or 1) of the exact sum of `terms` (finite, their sums far from overflow): they
// are gathered into a nonoverlapping expansion by Shewchuk's Grow-Expansion (each TwoSum exact,
// subnormals included), whose largest nonzero component is larger than all the others together.
template <int kCount>
OPENACLNN_HOST_DEVICE inline int SignOfSum(const double (&terms)[kCount]) {
  double expansion[kCount];
  int length = 0;
  for (double carry : terms) {
    for (int i = 0; i < length; ++i) {
      const DD sum = TwoSum(carry, expansion[i]);
      expansion[i] = sum.lo;
      carry = sum.hi;
    }
    expansion[length++] = carry;
  }
  for (int i = length - 1; i >= 0; --i) {
    if (expansion[i] != 0.0) return expansion[i] > 0.0 ? 1 : -1;
  }
  return 0;
}

}  // namespace openaclnn::math::exact
