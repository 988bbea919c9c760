// ExactSum and RoundedQuotient against exact GMP rationals: sums of doubles over the whole
// exponent range, with cancellation, and quotients built to lie exactly on, or one unit beside,
// a rounding boundary of each output type (the ties a double-double sum could break either way).
#include "kernels/exact_sum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "rational_oracle.h"

namespace openaclnn {
namespace {

using math::exact::DivisorOf;
using math::exact::ExactSum;
using math::exact::RoundedQuotient;

constexpr FloatType kTypes[] = {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16};

uint32_t Bits(double value, FloatType type) { return RoundOnce(value, type); }

// A random finite double: any exponent (subnormals included), any sign.
double RandomDouble(std::mt19937_64& random, int min_exponent, int max_exponent) {
  std::uniform_int_distribution<int> exponent(min_exponent, max_exponent);
  const double significand = std::uniform_real_distribution<double>(1.0, 2.0)(random);
  const double value = std::ldexp(significand, exponent(random));
  return (random() & 1) ? -value : value;
}

TEST(ExactSum, SumsOfDoublesRoundAsTheirExactValue) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 4000; ++trial) {
    ExactSum sum;
    mpq_class exact = 0;
    const int terms = 1 + static_cast<int>(random() % 40);
    // Narrow exponent windows give cancellation and carries; wide ones the whole range.
    const int low = -1074 + static_cast<int>(random() % 2000);
    const int high = std::min(1000, low + static_cast<int>(random() % 200));
    for (int i = 0; i < terms; ++i) {
      const double term = RandomDouble(random, low, high);
      sum.Add(term);
      exact += Rational(term);
      if (random() % 4 == 0) {  // an exact cancellation now and then
        sum.Add(-term);
        exact -= Rational(term);
      }
    }
    const double rounded = sum.RoundedToOdd();
    for (FloatType type : kTypes) {
      ASSERT_EQ(Bits(rounded, type), Bits(RoundRational(exact, type), type)) << "trial " << trial;
    }
    ASSERT_EQ(sum.Sign(), sgn(exact));
  }
}

TEST(ExactSum, MergedSumsEqualOneSum) {
  std::mt19937_64 random(11);
  ExactSum whole, first, second;
  for (int i = 0; i < 1000; ++i) {
    const double term = RandomDouble(random, -300, 300);
    whole.Add(term);
    (i % 3 == 0 ? first : second).Add(term);
  }
  first.Add(second);
  first.Negate();
  first.Add(whole);
  EXPECT_EQ(first.Sign(), 0);
}

TEST(ExactSum, ManyAdditionsCarryWithoutOverflow) {
  // More additions than a digit takes before its carries are pushed up (2^29), all into the same
  // digits: the largest significand, so each one adds nearly 2^32 to a digit.
  ExactSum sum;
  const double term = 0x1.fffffffffffffp+0;
  const int64_t count = (int64_t{1} << 29) + 12345;
  for (int64_t i = 0; i < count; ++i) sum.Add(term);
  const mpq_class exact = Rational(term) * mpq_class(static_cast<double>(count));
  EXPECT_EQ(Bits(sum.RoundedToOdd(), FloatType::kFloat32),
            Bits(RoundRational(exact, FloatType::kFloat32), FloatType::kFloat32));
}

TEST(ExactSum, ZeroAndSignedResults) {
  ExactSum sum;
  EXPECT_EQ(sum.Sign(), 0);
  EXPECT_EQ(BitCast<uint64_t>(sum.RoundedToOdd()), 0u);  // +0
  sum.Add(0x1p-1074);
  sum.Add(-0x1p-1073);
  EXPECT_EQ(sum.Sign(), -1);
  EXPECT_EQ(sum.RoundedToOdd(), -0x1p-1074);
}

// sum / (denominator * count) for sums built to be exactly a midpoint between two neighbours of
// `type`, or one unit of the sum's last place beside it.
TEST(RoundedQuotient, DecidesTiesAndNearTiesExactly) {
  std::mt19937_64 random(13);
  const int64_t counts[] = {1, 3, 5, 7, 12, 1000003, (int64_t{1} << 40) + 1};
  const double denominators[] = {1.0, 0.75, 0x1.8p-20, 3.0f * 0x1p+10};
  int checked = 0;
  for (FloatType type : kTypes) {
    const Grid grid = type == FloatType::kFloat32 ? Grid{24, -126} : GridOf(type);
    for (int64_t count : counts) {
      for (double denominator : denominators) {
        for (int trial = 0; trial < 60; ++trial) {
          // A midpoint of `type`: (2k + 1) * 2^(e - precision) for a k of precision - 1 bits.
          const int e = static_cast<int>(random() % 40) - 20 + (trial % 2 ? grid.min_exponent : 0);
          const int exponent = std::max(e, grid.min_exponent) - grid.precision;
          const int64_t odd =
              2 * static_cast<int64_t>(random() % (int64_t{1} << (grid.precision - 1))) + 1;
          // sum = midpoint * denominator * count (+ a tiny offset), given as exact doubles.
          ExactSum sum;
          mpq_class exact = 0;
          const double m = std::ldexp(static_cast<double>(odd), exponent);
          const auto divisor = DivisorOf(denominator, count);
          for (int i = 0; i < divisor.count; ++i) {
            const auto product = math::exact::TwoProd(m, divisor.parts[i]);
            sum.Add(product);
            exact += Rational(product.hi) + Rational(product.lo);
          }
          const int offset = static_cast<int>(random() % 3) - 1;
          if (offset != 0) {
            const double nudge = offset * std::ldexp(1.0, exponent - 60);
            sum.Add(nudge);
            exact += Rational(nudge);
          }
          const bool negative = random() & 1;
          if (negative) {
            sum.Negate();
            exact = -exact;
          }
          const mpq_class quotient =
              exact / (Rational(denominator) * mpq_class(static_cast<double>(count)));
          ASSERT_EQ(Bits(RoundedQuotient(sum, divisor, type), type),
                    Bits(RoundRational(quotient, type), type))
              << "count " << count << " denominator " << denominator << " trial " << trial;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 4000);
}

}  // namespace
}  // namespace openaclnn
