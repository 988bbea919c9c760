// The MSE family's bounds and fast-path conditions (mse_loss_error_budget.h) against exact GMP
// rationals: every estimate within its bound (element estimates over every divisor, and the terms
// of means and sums), the worst error measured; the exactness test of the difference, in fp64 and
// in fp32; and the conditions under which a value needs no bound (the fp32-lane loss and gradient,
// and an fp64 value that is one rounding of the exact one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>

#include "mse_loss_oracle.h"

namespace openaclnn::mse_test {
namespace {

// Exact integers for the bound checks, which a million samples per kind make many: every value
// here times 2^kScale (GMP integers, no rationals to normalize). Every estimate and bound has its
// last significand bit at or above 2^-464 (values of at least 2^-361, bounds 2^-50 of them), every
// term's exact value at or above 2^-298 (d a multiple of 2^-149).
constexpr int kScale = 470;
struct Scaled {
  mpz_t value;
  Scaled() { mpz_init(value); }
  ~Scaled() { mpz_clear(value); }
  Scaled(const Scaled&) = delete;
  Scaled& operator=(const Scaled&) = delete;
  // v 2^kScale for a double v whose last bit is at or above 2^-kScale.
  void Set(double v) {
    int exponent = 0;
    const double significand = std::frexp(v, &exponent);  // v = significand 2^exponent
    mpz_set_d(value, std::ldexp(significand, 53));        // an integer of 53 bits: exact
    const int shift = exponent - 53 + kScale;
    if (shift >= 0) {
      mpz_mul_2exp(value, value, static_cast<mp_bitcnt_t>(shift));
    } else {
      ASSERT_TRUE(mpz_divisible_2exp_p(value, static_cast<mp_bitcnt_t>(-shift)));
      mpz_tdiv_q_2exp(value, value, static_cast<mp_bitcnt_t>(-shift));
    }
  }
};

// The checks of one sample, in integers: |v D - T| <= b D for an element (its exact value T / D),
// |q - T| <= b for a term; and their relative errors in units of 2^-53.
struct BoundCheck {
  Scaled x, t, g, term, estimate, bound, error, limit;
  // term = T 2^kScale: d 2^kScale squared, or 2 g d, over 2^kScale (exact: d 2^kScale is a
  // multiple of 2^321).
  void SetTerm(LossKind kind, const ElementInputs& in) {
    x.Set(in.x);
    t.Set(in.t);
    mpz_sub(x.value, x.value, t.value);  // d 2^kScale
    if (kind == LossKind::kLoss) {
      mpz_mul(term.value, x.value, x.value);
    } else {
      g.Set(in.g);
      mpz_mul(term.value, x.value, g.value);
      mpz_mul_2exp(term.value, term.value, 1);
    }
    mpz_tdiv_q_2exp(term.value, term.value, kScale);
  }
  // Whether |estimate.value D - T| <= estimate.bound D; *units the error over |T|, in 2^-53.
  bool Within(const ElementEstimate& e, int64_t divisor, double* units) {
    estimate.Set(e.value);
    bound.Set(e.bound);
    mpz_mul_si(error.value, estimate.value, static_cast<long>(divisor));
    mpz_sub(error.value, error.value, term.value);
    mpz_abs(error.value, error.value);
    mpz_mul_si(limit.value, bound.value, static_cast<long>(divisor));
    *units = mpz_sgn(term.value) == 0
                 ? (mpz_sgn(error.value) == 0 ? 0.0 : HUGE_VAL)
                 : mpz_get_d(error.value) / std::fabs(mpz_get_d(term.value)) * 0x1p53;
    return mpz_cmp(error.value, limit.value) <= 0;
  }
};

// Every sample from every distribution, both kinds: the element estimate (its divisor cycling
// through the tested ones) within its bound, which is kMseElementError of its magnitude, and the
// term's within its own, kMseTermError (kTermError) of its magnitude; a million of each per kind.
TEST(MseLossEstimates, EveryEstimateIsWithinItsBound) {
  std::mt19937_64 rng(53);
  BoundCheck check;
  for (const LossKind kind : kKinds) {
    double worst_element = 0, worst_term = 0;
    int64_t failures = 0, samples = 0;
    std::string first;
    for (int64_t i = 0; i < 1000000 / kSampleScale; ++i) {
      const Distribution distribution = kDistributions[i % std::size(kDistributions)];
      const ElementInputs in =
          RandomInputs(rng, distribution, i % 2 ? FloatType::kFloat16 : FloatType::kBFloat16);
      const int64_t divisor = kDivisors[(i / 5) % std::size(kDivisors)];
      const ElementParameters p = DividedBy(divisor);
      const ElementEstimate element = MseLossFamily::Estimate(kind, p, in);
      const ElementEstimate term = MseLossFamily::Term(kind, p, in, false, false);
      check.SetTerm(kind, in);
      double element_units = 0, term_units = 0;
      const bool within = check.Within(element, divisor, &element_units) &&
                          element.bound == std::fabs(element.value) * math::kMseElementError &&
                          check.Within(term, 1, &term_units) &&
                          term.bound == std::fabs(term.value) * MseLossFamily::kTermError;
      ++samples;
      if (!within && failures++ == 0) first = Describe(kind, in, divisor, FloatType::kFloat32);
      worst_element = std::max(worst_element, element_units);
      worst_term = std::max(worst_term, term_units);
    }
    std::cout << KindName(kind) << ": " << samples << " samples; worst error of the element "
              << worst_element << " * 2^-53 (bound 8), of the term " << worst_term
              << " * 2^-53 (bound 4)\n";
    EXPECT_EQ(failures, 0) << first;
    EXPECT_LE(worst_element, kind == LossKind::kLoss ? 6.0001 : 5.0001);
    EXPECT_LE(worst_term, kind == LossKind::kLoss ? 3.0001 : 2.0001);
  }
}

// The Fast2Sum pair test tells exactly whether the difference is exact, in fp64 (fp32 inputs
// whose exponents are at most 28 apart always are) and in fp32.
TEST(MseLossExactness, ThePairTestTellsWhetherTheDifferenceIsExact) {
  std::mt19937_64 rng(59);
  int64_t inexact64 = 0, inexact32 = 0, count = 0;
  for (const Distribution distribution : kDistributions) {
    for (int64_t i = 0; i < 100000 / kSampleScale; ++i) {
      const ElementInputs in = RandomInputs(rng, distribution, FloatType::kBFloat16);
      const mpq_class exact = Rational(in.x) - Rational(in.t);
      const double d64 = static_cast<double>(in.x) - in.t;
      const bool exact64 = Rational(d64) == exact;
      ASSERT_EQ(math::MseDifferenceExact(in.x, in.t, d64), exact64)
          << Describe(LossKind::kLoss, in, 1, FloatType::kFloat32);
      if (in.x != 0 && in.t != 0 && std::abs(std::ilogb(in.x) - std::ilogb(in.t)) <= 28) {
        ASSERT_TRUE(exact64) << Describe(LossKind::kLoss, in, 1, FloatType::kFloat32);
      }
      const float x = in.x, t = in.t, d32 = x - t;
      const bool exact32 = std::isfinite(d32) && Rational(d32) == exact;
      ASSERT_EQ(x - d32 == t && d32 + t == x, exact32)
          << Describe(LossKind::kLoss, in, 1, FloatType::kFloat32);
      ++count;
      inexact64 += exact64 ? 0 : 1;
      inexact32 += exact32 ? 0 : 1;
    }
  }
  std::cout << count << " differences: " << inexact64 << " inexact in fp64, " << inexact32
            << " in fp32\n";
  EXPECT_GT(inexact64, count / 50);  // both verdicts were seen
  EXPECT_GT(inexact32, count / 10);
}

// Whether v is a rounding boundary of `type`: a midpoint of two neighbours (the overflow
// threshold included), in exact double arithmetic.
bool IsBoundary(double v, FloatType type) {
  const Format format = FormatOf(type);
  const int exponent = std::max(std::ilogb(v), format.min_exponent);
  // 2 |v| / (the grid's spacing at v): an odd integer exactly on a midpoint.
  const double halves = std::ldexp(std::fabs(v), format.precision - exponent);
  return v != 0 && halves == std::floor(halves) && std::fmod(halves, 2.0) == 1.0;
}

// (b) and (c) of the error budget's "No bound at all", for the SIMD tiles: where fl32(x - t) is
// exact (the pair test), fl32(d * d) is the correctly rounded fp32 loss and fl32((g + g) d) the
// fp32 gradient (D = 1); rounded once more to fp16 or bf16 they are correct unless the fp32 value
// is a boundary of that type and not exact. Likewise for the fp64 loss fl64(d^2) of an exact fp64
// d, in every type. And how often fl32(x - t) is exact for CANN's ATK values (uniform in [-1, 1]).
TEST(MseLossExactness, OneRoundingOfTheExactValueNeedsNoBound) {
  std::mt19937_64 rng(61);
  int64_t lanes = 0, boundaries32 = 0, boundaries64 = 0;
  for (const Distribution distribution : kDistributions) {
    for (int64_t i = 0; i < 10000 / kSampleScale; ++i) {
      const ElementInputs in =
          RandomInputs(rng, distribution, i % 2 ? FloatType::kFloat16 : FloatType::kBFloat16);
      const std::string what = Describe(LossKind::kLoss, in, 1, FloatType::kFloat32);
      const mpq_class square = ExactTerm(LossKind::kLoss, in);
      const float x = in.x, t = in.t, g = in.g, d = x - t;
      if (x - d == t && d + t == x) {
        ++lanes;
        const float loss = d * d;
        ASSERT_EQ(Bits(loss), Bits(static_cast<float>(RoundRational(square, FloatType::kFloat32))))
            << what;
        const float gradient = (g + g) * d;
        const mpq_class twice_gd = ExactTerm(LossKind::kGradSelf, in);
        const bool negative = NegativeZero(LossKind::kGradSelf, in);
        if (std::isfinite(g + g)) {
          ASSERT_EQ(
              Bits(gradient),
              Bits(static_cast<float>(RoundRational(twice_gd, FloatType::kFloat32, negative))))
              << what;
        }
        for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
          if (IsBoundary(loss, type) && Rational(loss) != square) {
            ++boundaries32;
          } else {
            ASSERT_EQ(Bits(RoundedTo(loss, type)),
                      Bits(static_cast<float>(RoundRational(square, type))))
                << what << " " << TypeName(type);
          }
          if (!std::isfinite(gradient)) continue;  // 2g overflowed: fp32 lanes do not apply
          if (IsBoundary(gradient, type) && Rational(gradient) != twice_gd) {
            ++boundaries32;
          } else {
            ASSERT_EQ(Bits(RoundedTo(gradient, type)),
                      Bits(static_cast<float>(RoundRational(twice_gd, type, negative))))
                << what << " gradient " << TypeName(type);
          }
        }
      }
      const double d64 = static_cast<double>(x) - t;
      if (!math::MseDifferenceExact(x, t, d64)) continue;
      const double loss64 = d64 * d64;
      for (const FloatType type : kTypes) {
        if (IsBoundary(loss64, type) && Rational(loss64) != square) {
          ++boundaries64;
        } else {
          ASSERT_EQ(Bits(RoundedTo(loss64, type)),
                    Bits(static_cast<float>(RoundRational(square, type))))
              << what << " " << TypeName(type);
        }
      }
    }
  }
  std::cout << lanes << " exact fp32 differences; inexact 16-bit boundaries: " << boundaries32
            << " fp32 values, " << boundaries64 << " fp64 losses\n";
  EXPECT_GT(lanes, 10000 / kSampleScale);
  // CANN's ATK values: the share of exact fp32 differences per input type.
  for (const FloatType type : kTypes) {
    int64_t exact = 0;
    const int64_t count = 100000 / kSampleScale;
    for (int64_t i = 0; i < count; ++i) {
      const float x = Narrow(static_cast<float>(Uniform(rng, -1, 1)), type);
      const float t = Narrow(static_cast<float>(Uniform(rng, -1, 1)), type), d = x - t;
      exact += x - d == t && d + t == x ? 1 : 0;
    }
    std::cout << TypeName(type) << " inputs uniform in [-1, 1]: "
              << static_cast<double>(exact) / static_cast<double>(count)
              << " of fp32 differences exact\n";
    if (type != FloatType::kFloat32) {
      EXPECT_GT(exact, count * 999 / 1000) << TypeName(type);
    }
  }
}

}  // namespace
}  // namespace openaclnn::mse_test
