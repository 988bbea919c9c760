// The natural logarithm of an fp32 value as three doubles, within 2^-140 of itself: for exact paths
// whose double-double logarithm (double_double.h: Log, within about 2^-99) cannot decide a
// rounding, as where a value's terms cancel to a tiny fraction of ln t. Slow (about thirty
// products of expansions, each summed exactly) and rare: host/device code for every backend's
// exact paths. Its accuracy is measured against MPFR at 300 bits in
// tests/unit/kernels/triple_double_test.cc.
#pragma once

#include <cmath>

#include "kernels/double_double.h"
#include "kernels/exact_sum.h"

namespace openaclnn::math::exact {

// An unevaluated sum of three doubles, largest first.
struct TD {
  double part[3];
};

// The sum's three leading doubles: each its remainder rounded to odd (53 bits, the last one set
// where anything below them is), then taken from it exactly. Within 2^-155 of the sum: each
// remainder is below an ulp of the part it was cut from.
OPENACLNN_HOST_DEVICE inline TD LeadingThree(ExactSum sum) {
  TD result;
  for (double& part : result.part) {
    part = sum.RoundedToOdd();
    sum.Add(-part);
  }
  return result;
}

// a * b + c, each product of parts exact (TwoProd), summed exactly, cut to three doubles. Parts
// of magnitude below 2^-300 (only ever zeros here) add nothing.
OPENACLNN_HOST_DEVICE inline TD MulAdd(const TD& a, const TD& b, const TD& c) {
  ExactSum sum;
  for (double x : a.part) {
    for (double y : b.part) {
      if (x != 0.0 && y != 0.0) sum.AddProduct(x, y);
    }
  }
  for (double z : c.part) sum.Add(z);
  return LeadingThree(sum);
}

// a / b for doubles (b != 0): the quotient q0 and the quotients of its exact remainders
// (a - q0 b is a double, and fma forms it exactly; likewise the next), within 2^-157 of a / b.
OPENACLNN_HOST_DEVICE inline TD Quotient(double a, double b) {
  const double q0 = a / b;
  const double r1 = std::fma(-q0, b, a);
  const double q1 = r1 / b;
  const double r2 = std::fma(-q1, b, r1);
  return {{q0, q1, r2 / b}};
}

// ln t for a positive finite fp32 t (subnormals included): t = m 2^k with m in [1/sqrt 2,
// sqrt 2), ln m = 2 atanh(z), z = (m - 1) / (m + 1) (both exact: m has 24 significant bits), |z|
// <= 0.1716, by its series 2 z (1 + w/3 + w^2/5 + ...), w = z^2 <= 0.0295, to w^30 / 61 (the
// rest below 2^-158 of the sum), in Horner's order; then k ln 2 + ln m. Each of the 33 steps errs
// by 2^-155 of its result, which the sum's terms (all of one sign) keep below 2^-148 of ln m, and
// |k ln 2| >= 2 |ln m| where k != 0: within 2^-147 of ln t (the test measures 2^-157.1 at worst).
OPENACLNN_HOST_DEVICE inline TD LogTriple(float t) {
  int k = 0;
  double m = std::frexp(static_cast<double>(t), &k);  // m in [1/2, 1)
  if (m < 0x1.6a09e667f3bcdp-1) m *= 2.0, k -= 1;     // below 1/sqrt 2
  const TD zero = {{0.0, 0.0, 0.0}};
  const TD ln2 = {
      {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56, 0x1.7b57a079a1934p-111}};  // 163 bits
  const TD k_ln2 = MulAdd(ln2, TD{{static_cast<double>(k), 0.0, 0.0}}, zero);
  if (m == 1.0) return k_ln2;
  const TD z = Quotient(m - 1.0, m + 1.0);
  const TD w = MulAdd(z, z, zero);
  constexpr int kTerms = 30;
  TD series = Quotient(1.0, 2 * kTerms + 1);
  for (int n = kTerms - 1; n >= 0; --n) series = MulAdd(series, w, Quotient(1.0, 2 * n + 1));
  const TD two_z = {{2.0 * z.part[0], 2.0 * z.part[1], 2.0 * z.part[2]}};
  return MulAdd(two_z, series, k_ln2);
}

}  // namespace openaclnn::math::exact
