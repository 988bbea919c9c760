// Settles (kernels/class_axis_row.h), the class-axis families' rounding test, against exact
// rationals: where it says an estimate's interval [value - bound, value + bound] settles the
// rounding, every real in it rounds to RoundOnce(value). The hard intervals are those whose end,
// rounded to fp64, falls exactly on a midpoint of the output type from beyond it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/class_axis_row.h"
#include "rational_oracle.h"

namespace openaclnn {
namespace {

constexpr FloatType kTypes[] = {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16};

// Where Settles says yes, both exact ends round as value does (rounding is monotonic, so every
// point between them does too).
void ExpectSettledOnlyWhereExact(double value, double bound, FloatType type) {
  double rounded = 0.0;
  if (!Settles({value, bound}, type, &rounded)) return;
  const double want = RoundRational(Rational(value), type, std::signbit(value));
  EXPECT_EQ(RoundRational(Rational(value) - Rational(bound), type, true), want)
      << value << " +- " << bound;
  EXPECT_EQ(RoundRational(Rational(value) + Rational(bound), type, false), want)
      << value << " +- " << bound;
}

// The midpoint between positive `value` rounded to `type` and the next value of the type.
double MidpointAbove(double value, FloatType type) {
  const double next = ValueOfBits(RoundOnce(value, type) + 1, type);
  return 0.5 * (ValueOfBits(RoundOnce(value, type), type) + next);
}

TEST(Settles, AnEndThatRoundsOntoAMidpointFromBeyondItDoesNotSettle) {
  for (FloatType type : kTypes) {
    for (double start : {1.0, 1.5, 3.0e-3, 7.0e2}) {
      const double midpoint = MidpointAbove(start, type);
      // value + bound lies just past the midpoint, within half an fp64 ulp of it, so that its
      // fp64 sum with a multiplicative widening alone is the midpoint itself.
      for (int gap = 20; gap <= 44; ++gap) {
        const double distance = std::ldexp(midpoint, -gap);
        const double value = midpoint - distance;
        const double bound = distance + std::ldexp(midpoint, -60);
        double rounded = 0.0;
        EXPECT_FALSE(Settles({value, bound}, type, &rounded)) << midpoint << " gap 2^-" << gap;
        EXPECT_FALSE(Settles({-value, bound}, type, &rounded)) << -midpoint << " gap 2^-" << gap;
        ExpectSettledOnlyWhereExact(value, bound, type);
      }
    }
  }
}

TEST(Settles, RandomIntervalsSettleOnlyWhereEveryPointRoundsAlike) {
  std::mt19937_64 random(11);
  for (FloatType type : kTypes) {
    for (int trial = 0; trial < 20000; ++trial) {
      const double start = std::ldexp(std::uniform_real_distribution<double>(1.0, 2.0)(random),
                                      static_cast<int>(random() % 34) - 20);
      const double midpoint = MidpointAbove(start, type);
      const double offset = std::ldexp(std::uniform_real_distribution<double>(-1.0, 1.0)(random),
                                       -static_cast<int>(random() % 50) - 8);
      const double value = midpoint * (1.0 + offset);
      const double bound =
          std::fabs(value) * std::ldexp(1.0, -30 - static_cast<int>(random() % 30));
      ExpectSettledOnlyWhereExact((random() & 1) ? value : -value, bound, type);
    }
  }
}

}  // namespace
}  // namespace openaclnn
