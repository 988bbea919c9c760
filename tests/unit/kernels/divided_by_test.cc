// The scale a mean's gradient estimates multiply by (element_inputs.h: DividedBy), against exact
// rationals (GMP): within kScaleError of 1 / N for every N the tests can reach, the error margin
// every family's gradient bound takes, and 1 / N rounded to nearest unless within 2^-100 of a
// midpoint, divisors next to midpoints included; exactly 1 / N, and only then ScaleIsExact, for
// N = 2^k.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include "kernels/element_inputs.h"

namespace openaclnn {
namespace {

// |scale N - 1| for N's scale, exactly.
mpq_class ScaleError(int64_t divisor) {
  const mpq_class product =
      mpq_class(DividedBy(divisor).scale) * mpz_class(static_cast<long>(divisor));
  return abs(product - 1);
}

// 1 / N's distance from the nearest midpoint between two doubles, relative to 1 / N, and whether
// `scale` is 1 / N rounded to nearest (of it and its two neighbours, the nearest), exactly.
struct Rounding {
  mpq_class from_midpoint;
  bool nearest;
};
Rounding RoundingOf(int64_t divisor, double scale) {
  const mpq_class reciprocal(mpz_class(1), mpz_class(static_cast<long>(divisor)));
  const double below = std::nextafter(scale, 0.0), above = std::nextafter(scale, 1.0);
  const mpq_class error = abs(mpq_class(scale) - reciprocal);
  const bool nearest =
      error < abs(mpq_class(below) - reciprocal) && error < abs(mpq_class(above) - reciprocal);
  // The midpoints either side of scale; 1 / N lies within an ulp of it.
  const mpq_class low = (mpq_class(below) + mpq_class(scale)) / 2;
  const mpq_class high = (mpq_class(scale) + mpq_class(above)) / 2;
  const mpq_class distance = std::min(abs(reciprocal - low), abs(reciprocal - high));
  return {distance / reciprocal, nearest};
}

// The divisors above 2^53 whose reciprocals lie next to a midpoint: N = (2^k -+ j) 2^s, whose
// reciprocal is 2^-(k+s) (1 +- j 2^-k + j^2 2^-2k ...), j 2^(52-k) ulps above 2^-(k+s) (minus) or
// j 2^(53-k) below it (plus), a midpoint for j = 2^(k-53) mod 2^(k-52) (minus) or 2^(k-54) mod
// 2^(k-53) (plus), off it by j^2 2^-2k, relative: the cases an error of the Newton step turns
// (the old step's rounded scale * low put 2^54 - 65534 at 2^-53 (1 + 2^-23)). j up to 2^(k-36),
// within 2^-72 of the midpoint, and the split N = high + low at every shift s.
std::vector<int64_t> NextToMidpoints() {
  std::vector<int64_t> divisors;
  for (int k = 54; k <= 62; ++k) {
    for (int s = 0; k + s <= 62; ++s) {
      for (const bool minus : {true, false}) {
        const int64_t first = int64_t{1} << (minus ? k - 53 : k - 54);
        const int64_t step = 2 * first, limit = int64_t{1} << (k - 36);
        const int64_t stride = std::max<int64_t>(1, limit / step / 512);  // ~512 j per k and s
        for (int64_t j = first; j < limit; j += step * stride) {
          const int64_t base = (int64_t{1} << k) + (minus ? -j : j);
          divisors.push_back(base << s);
        }
      }
    }
  }
  return divisors;
}

// Every N up to 2^16; N log-uniform up to 2^63; and the divisors next to midpoints. Each scale
// within kScaleError of 1 / N, and 1 / N rounded to nearest unless 1 / N is within 2^-100 of a
// midpoint (the step's own error, 2^-101, may turn only those).
TEST(DividedBy, TheScaleIsWithinItsErrorOfTheReciprocal) {
  std::vector<int64_t> divisors;
  for (int64_t n = 1; n <= (int64_t{1} << 16); ++n) divisors.push_back(n);
  std::mt19937_64 rng(53);
  for (int i = 0; i < 200000; ++i) {
    const int bits = 17 + static_cast<int>(rng() % 46);  // up to 62: N below 2^63
    divisors.push_back(static_cast<int64_t>((uint64_t{1} << (bits - 1)) | (rng() >> (65 - bits))));
  }
  const std::vector<int64_t> near = NextToMidpoints();
  divisors.insert(divisors.end(), near.begin(), near.end());
  divisors.push_back(std::numeric_limits<int64_t>::max());
  const mpq_class bound(kScaleError), close(0x1p-72), turnable(0x1p-100);
  mpq_class worst = 0;
  int64_t worst_divisor = 0, failures = 0, misrounded = 0, next_to_midpoint = 0;
  for (const int64_t divisor : divisors) {
    const double scale = DividedBy(divisor).scale;
    const mpq_class error = ScaleError(divisor);
    if (error > worst) worst = error, worst_divisor = divisor;
    if (error > bound && failures++ == 0) ADD_FAILURE() << "N = " << divisor;
    const Rounding rounding = RoundingOf(divisor, scale);
    if (rounding.from_midpoint < close) ++next_to_midpoint;
    if (!rounding.nearest && rounding.from_midpoint >= turnable && misrounded++ == 0) {
      ADD_FAILURE() << "not 1 / N rounded to nearest: N = " << divisor;
    }
  }
  std::cout << divisors.size() << " divisors (" << next_to_midpoint
            << " within 2^-72 of a midpoint), worst |scale N - 1| = 2^-53 (1 + "
            << mpq_class(worst * mpq_class(0x1p53) - 1).get_d() << ") at N = " << worst_divisor
            << "\n";
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(misrounded, 0);
  EXPECT_GT(next_to_midpoint, 10000);  // the cases the old step got wrong are among them
}

// N = 2^k: the scale is 2^-k exactly, and ScaleIsExact says so; for no other N, though fl64(1/N)
// is 2^-k too for N = 2^k + 1 above 2^53.
TEST(DividedBy, OnlyAPowerOfTwoHasAnExactScale) {
  for (int k = 0; k <= 62; ++k) {
    const int64_t n = int64_t{1} << k;
    EXPECT_EQ(DividedBy(n).scale, std::ldexp(1.0, -k)) << k;
    EXPECT_TRUE(ScaleIsExact(DividedBy(n))) << k;
    const int64_t triple = k < 62 ? 3 * n : n + 3;  // 3 * 2^62 is beyond int64
    for (const int64_t other : {n + 1, triple, n - 1}) {
      if (other > 2 && (other & (other - 1)) != 0) {
        EXPECT_FALSE(ScaleIsExact(DividedBy(other))) << other;
      }
    }
  }
  EXPECT_EQ(DividedBy((int64_t{1} << 60) + 1).scale, 0x1p-60);  // rounds to a power of two
}

}  // namespace
}  // namespace openaclnn
