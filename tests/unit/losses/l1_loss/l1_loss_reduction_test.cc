// The L1 family's mean and sum terms (L1LossFamily::Term, AddExactTerm, TermDenominator) against
// exact arithmetic: every term's bound on a million samples, and exact sums built to lie exactly
// on a rounding boundary of each type after the mean's division (N = 3, 5, 7) or one unit beside
// it, rounded once by RoundedQuotient; and the int64 loss's two's-complement wrap.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/exact_sum.h"
#include "l1_loss_test_inputs.h"
#include "losses/l1_loss/l1_loss_family.h"

namespace openaclnn {
namespace {

using namespace l1_loss_test;  // NOLINT(build/namespaces): the tests' shared vocabulary

// Term's estimate is within its bound of the exact term, exactly, and the bound is kTermError of
// the value, bit for bit, on a million finite inputs of every spread (the reduction accounts its
// own additions from that fraction); where an input is not finite, the bound is NaN and the value
// has the reference formula's class.
TEST(L1Term, TheBoundHoldsAndIsTheTermErrorOfTheValue) {
  std::mt19937 rng(91);
  const ElementParameters p = DividedBy(7);  // a term is not divided, whatever the divisor
  int64_t failures = 0;
  std::string first;
  for (int i = 0; i < 1000000 / kSampleScale; ++i) {
    const LossKind kind = kKinds[i % 2];
    const ElementInputs in =
        RandomInputs(rng, kSpreads[(i / 2) % std::size(kSpreads)], kTypes[(i / 12) % 3]);
    const ElementEstimate term = L1LossFamily::Term(kind, p, in, false, false);
    const bool exact_fraction = term.bound == L1LossFamily::kTermError * std::fabs(term.value);
    if ((!exact_fraction || !WithinBound(kind, in, 1, term.value, term.bound)) && failures++ == 0) {
      first = Describe(kind, in, 1, FloatType::kFloat32);
    }
  }
  EXPECT_EQ(failures, 0) << first;
  const float inf = HUGE_VALF, nan = std::nanf("");
  const struct {
    LossKind kind;
    ElementInputs in;
    double value;
  } cases[] = {
      {LossKind::kLoss, {inf, 1.0f, 1, 1, 1}, HUGE_VAL},
      {LossKind::kLoss, {inf, inf, 1, 1, 1}, NAN},
      {LossKind::kLoss, {1.0f, nan, 1, 1, 1}, NAN},
      {LossKind::kGradSelf, {inf, 1.0f, 1, 1, -2.5f}, -2.5},
      {LossKind::kGradSelf, {1.0f, 2.0f, 1, 1, inf}, -HUGE_VAL},
      {LossKind::kGradSelf, {inf, inf, 1, 1, 1}, NAN},
  };
  for (const auto& c : cases) {
    const ElementEstimate term = L1LossFamily::Term(c.kind, p, c.in, false, false);
    EXPECT_TRUE(std::isnan(term.bound)) << Describe(c.kind, c.in, 1, FloatType::kFloat32);
    EXPECT_TRUE(std::isnan(c.value) ? std::isnan(term.value) : term.value == c.value)
        << Describe(c.kind, c.in, 1, FloatType::kFloat32);
  }
  EXPECT_EQ(L1LossFamily::TermDenominator(p), 1.0);
  EXPECT_FALSE(L1LossFamily::SumsFp32Terms(FloatType::kFloat16, FloatType::kFloat16, false,
                                           FloatType::kFloat16));
}

// A random multiple of `quantum` in [0, limit), as a double (exact: at most 40 bits).
mpq_class RandomMultiple(std::mt19937& rng, const mpq_class& quantum, const mpq_class& limit) {
  const double units = std::floor(mpq_class(limit / quantum).get_d() * Uniform(rng, 0, 1));
  return quantum * mpq_class(units);
}

// fp32 x, t with x - t = d exactly (x = d rounded to fp32, t the rest), false where d has too many
// bits for that; either order, so that d's sign is random.
bool Difference(std::mt19937& rng, const mpq_class& d, float* x, float* t) {
  *x = static_cast<float>(d.get_d());
  if (!std::isfinite(*x)) return false;
  *t = static_cast<float>(mpq_class(Rational(*x) - d).get_d());
  if (UniformInt(rng, 0, 1) == 0) *x = -*x, *t = -*t;
  return abs(Rational(*x) - Rational(*t)) == abs(d);
}

// N terms of `kind` whose exact sum is `total`: N - 1 (loss) or N - 2 (gradient: fp32, of either
// sign) random multiples of `quantum` below `total` / N, and the rest as one difference (loss) or
// two fp32 g (gradient). False where the rest does not fit.
bool TermsSummingTo(std::mt19937& rng, LossKind kind, int count, const mpq_class& total,
                    const mpq_class& quantum, std::vector<ElementInputs>* terms) {
  terms->assign(static_cast<size_t>(count), ElementInputs{});
  const int free = kind == LossKind::kLoss ? count - 1 : count - 2;
  mpq_class rest = total;
  for (int i = 0; i < free; ++i) {
    ElementInputs& in = (*terms)[static_cast<size_t>(i)];
    mpq_class value = RandomMultiple(rng, quantum, total / count);
    if (kind == LossKind::kLoss) {
      if (!Difference(rng, value, &in.x, &in.t)) return false;
    } else {
      // Rounded to fp32 it is still a multiple of the quantum (its unit is at least that).
      value = Rational(static_cast<float>(value.get_d()));
      if (UniformInt(rng, 0, 1) == 0) value = -value;
      in.g = static_cast<float>(value.get_d());
      in.x = 2.0f, in.t = 1.0f;
    }
    rest -= value;
  }
  ElementInputs& last = terms->back();
  if (kind == LossKind::kLoss) return rest >= 0 && Difference(rng, rest, &last.x, &last.t);
  // The rest as g + h, g = rest rounded to fp32; each with sign(x - t) = +1 or, for a negated g,
  // -1.
  ElementInputs& before = (*terms)[static_cast<size_t>(count - 2)];
  before.g = static_cast<float>(rest.get_d());
  if (!std::isfinite(before.g)) return false;
  last.g = static_cast<float>(mpq_class(rest - Rational(before.g)).get_d());
  if (Rational(before.g) + Rational(last.g) != rest) return false;
  for (ElementInputs* in : {&before, &last}) {
    const bool flip = UniformInt(rng, 0, 1) == 0;
    in->x = flip ? 1.0f : 2.0f, in->t = flip ? 2.0f : 1.0f;
    if (flip) in->g = -in->g;
  }
  return true;
}

// Means (divisor N = 3, 5, 7) and sums (1) of N terms built so that the exact result is a midpoint
// of each type, or, one unit beside, the smallest input of the last term one fp32 step off (d moves
// by its unit, 2^-149 where it was 0): AddExactTerm and RoundedQuotient against the oracle.
TEST(L1ExactSum, MeansAndSumsOnAndNextToMidpointsRoundOnce) {
  std::mt19937 rng(5);
  for (LossKind kind : kKinds) {
    for (FloatType type : kTypes) {
      const Format f = FormatOf(type);
      int64_t checked = 0, wrong = 0;
      std::string first;
      for (int count : {3, 5, 7}) {
        for (bool mean : {true, false}) {
          for (int trial = 0; trial < 600 / kSampleScale; ++trial) {
            // A midpoint m: (2k + 1) 2^(e - p) with a k of p - 1 bits, e within the type's range.
            const int e = UniformInt(rng, f.min_exponent - 1, f.max_exponent - 3);
            const int spacing = std::max(e, f.min_exponent) - (f.precision - 1);
            const int64_t steps = std::uniform_int_distribution<int64_t>(
                0, (int64_t{1} << (f.precision - 1)) - 1)(rng);
            const mpq_class m =
                (e < f.min_exponent ? mpq_class(0) : TimesPow2(1, e)) +
                TimesPow2(mpq_class(static_cast<double>(2 * steps + 1)), spacing - 1);
            const int64_t divisor = mean ? count : 1;
            // The terms' quantum: 2^-10 of m's last bit, so that each term has at most 40 bits,
            // but no finer than fp32's (fp32's subnormal ties are no sums of fp32 values).
            const mpq_class total = m * mpq_class(static_cast<long>(divisor));
            const mpq_class quantum = TimesPow2(1, std::max(spacing - 11, -149));
            std::vector<ElementInputs> terms;
            if (!TermsSummingTo(rng, kind, count, total, quantum, &terms)) continue;
            const bool beside = trial % 2 == 1;
            if (beside) {
              ElementInputs& in = terms.back();
              float& small = std::fabs(in.x) < std::fabs(in.t) ? in.x : in.t;
              if (kind == LossKind::kLoss) {
                small = std::nextafter(small, UniformInt(rng, 0, 1) == 0 ? -HUGE_VALF : HUGE_VALF);
              } else {
                in.g = std::nextafter(in.g, UniformInt(rng, 0, 1) == 0 ? -HUGE_VALF : HUGE_VALF);
              }
            }
            const ElementParameters p = DividedBy(divisor);
            math::exact::ExactSum sum;
            mpq_class exact = 0;
            for (const ElementInputs& in : terms) {
              L1LossFamily::AddExactTerm(kind, p, in, sum);
              exact += ExactTerm(kind, in);
            }
            if (!beside) {
              EXPECT_EQ(exact, total);
            }
            const auto quotient = math::exact::DivisorOf(L1LossFamily::TermDenominator(p), divisor);
            const float got = RoundedTo(math::exact::RoundedQuotient(sum, quotient, type), type);
            const auto expected = static_cast<float>(
                RoundRational(exact / mpq_class(static_cast<long>(divisor)), type));
            ++checked;
            if (Bits(got) != Bits(expected) && wrong++ == 0) {
              first = "N=" + std::to_string(count) + (mean ? " mean" : " sum") +
                      (beside ? " beside" : " tie");
            }
          }
        }
      }
      std::cout << KindName(kind) << ", exact means and sums, " << TypeName(type) << ": " << checked
                << " totals, " << wrong << " wrong\n";
      EXPECT_EQ(wrong, 0) << KindName(kind) << " " << TypeName(type) << ": first " << first;
      EXPECT_GT(checked, 3000 / kSampleScale) << KindName(kind) << " " << TypeName(type);
    }
  }
}

// A term whose input is not finite adds its finite reference value (the gradient's +-g for an
// infinite x or t), or nothing (a loss term of +inf or NaN, whose total never takes the exact
// pass).
TEST(L1ExactSum, NonFiniteInputsAddTheirFiniteReferenceValue) {
  const ElementParameters p = DividedBy(3);
  math::exact::ExactSum sum;
  L1LossFamily::AddExactTerm(LossKind::kGradSelf, p, {HUGE_VALF, 1.0f, 1, 1, 0.75f}, sum);
  L1LossFamily::AddExactTerm(LossKind::kGradSelf, p, {1.0f, HUGE_VALF, 1, 1, 0.25f}, sum);
  L1LossFamily::AddExactTerm(LossKind::kGradSelf, p, {1.0f, 2.0f, 1, 1, HUGE_VALF}, sum);
  L1LossFamily::AddExactTerm(LossKind::kGradSelf, p, {HUGE_VALF, HUGE_VALF, 1, 1, 1}, sum);
  L1LossFamily::AddExactTerm(LossKind::kLoss, p, {HUGE_VALF, 1.0f, 1, 1, 1}, sum);
  L1LossFamily::AddExactTerm(LossKind::kLoss, p, {std::nanf(""), 1.0f, 1, 1, 1}, sum);
  EXPECT_EQ(sum.RoundedToOdd(), 0.5);  // 0.75 - 0.25
}

// The int64 loss (the promoted dtype INT64): |x - t| with the difference wrapped modulo 2^64 and
// |INT64_MIN| = INT64_MIN, as CANN's Sub and Abs and torch, against 128-bit arithmetic, at
// the wrap's edges and on random pairs.
TEST(L1Integer, WrapsAsTwosComplementArithmetic) {
  __extension__ typedef __int128 i128;
  const auto oracle = [](int64_t x, int64_t t) {
    const i128 modulus = static_cast<i128>(1) << 64, half = static_cast<i128>(1) << 63;
    i128 wrapped = (static_cast<i128>(x) - t) % modulus;  // into [-2^63, 2^63)
    if (wrapped >= half) wrapped -= modulus;
    if (wrapped < -half) wrapped += modulus;
    const i128 magnitude = wrapped < 0 ? -wrapped : wrapped;  // 2^63 for INT64_MIN: wraps back
    return static_cast<int64_t>(magnitude >= half ? magnitude - modulus : magnitude);
  };
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const struct {
    int64_t x, t, expected;
  } cases[] = {
      {5, 3, 2},
      {3, 5, 2},
      {-7, 0, 7},
      {0, 0, 0},
      {kMin, 0, kMin},
      {0, kMin, kMin},
      {kMin, 1, kMax},
      {kMin, -1, kMax},
      {kMax, -1, kMin},
      {kMax, kMin, 1},
      {kMin, kMax, 1},
      {-1, kMax, kMin},
      {-2, kMax, kMax},
      {kMax, -2, kMax},
      {kMax, kMax, 0},
      {kMin, kMin, 0},
      {kMax, 0, kMax},
      {-kMax, 0, kMax},
      {kMax, -kMax, 2},
      {kMin + 1, 1, kMin},
      {(int64_t{1} << 62) + 1, -(int64_t{1} << 62), kMax},  // 2^63 + 1 wraps to -(2^63 - 1)
  };
  for (const auto& c : cases) {
    EXPECT_EQ(L1LossFamily::IntegerElement(c.x, c.t), c.expected) << c.x << " - " << c.t;
    EXPECT_EQ(oracle(c.x, c.t), c.expected) << "oracle " << c.x << " - " << c.t;
  }
  std::mt19937_64 rng(13);
  for (int i = 0; i < 100000 / kSampleScale; ++i) {
    const auto x = static_cast<int64_t>(rng()) >> (rng() % 64);
    const auto t = static_cast<int64_t>(rng()) >> (rng() % 64);
    ASSERT_EQ(L1LossFamily::IntegerElement(x, t), oracle(x, t)) << x << " - " << t;
  }
}

}  // namespace
}  // namespace openaclnn
