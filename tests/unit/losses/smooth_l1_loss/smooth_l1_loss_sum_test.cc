// The smooth L1 family's means and sums: the exact pass (AddExactTerm over a set of elements, then
// RoundedQuotient by TermDenominator times the count) against the exact GMP oracle, on sets built
// so that the exact mean or sum lies exactly on a midpoint of each type (N = 3, 5, 7 elements) and
// one unit beside it, and on random sets of every kind and attribute (Huber's tiny deltas
// included); the fp64 pass (Term's estimates and bounds through SettleReduction) settling only
// correct totals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kernels/reduction.h"
#include "smooth_l1_loss_oracle.h"

namespace openaclnn {
namespace {

using math::exact::DivisorOf;
using math::exact::ExactSum;
using math::exact::RoundedQuotient;

// The exact pass's total of `kind` over `inputs`, divided by `divisor`, rounded once to `type`.
float ExactPass(LossKind kind, const ElementParameters& p, const std::vector<ElementInputs>& inputs,
                int64_t divisor, FloatType type) {
  ExactSum sum;
  for (const ElementInputs& in : inputs) SmoothL1LossFamily::AddExactTerm(kind, p, in, sum);
  const double denominator = SmoothL1LossFamily::TermDenominator(p);
  return RoundedTo(RoundedQuotient(sum, DivisorOf(denominator, divisor), type), type);
}

// The oracle's: the exact terms' sum over `divisor`, rounded once (an exact zero total is +0, as
// the exact pass gives it).
mpq_class ExactTotal(LossKind kind, const Attribute& a, const std::vector<ElementInputs>& inputs) {
  mpq_class total = 0;
  for (const ElementInputs& in : inputs) total += ExactTerm(kind, a, in.x, in.t, in.g);
  return total;
}

// The fp64 pass over one block (the terms added in index order) through SettleReduction: where it
// settles, the value it settles on, rounded; nullopt where the exact pass must decide.
std::optional<float> Fp64Pass(LossKind kind, const ElementParameters& p,
                              const std::vector<ElementInputs>& inputs, bool mean, FloatType type) {
  Partial partial;
  for (const ElementInputs& in : inputs) {
    const ElementEstimate term = SmoothL1LossFamily::Term(kind, p, in, false, false);
    partial = partial + Partial{term.value, term.bound};
  }
  double value = 0;
  const int64_t divisor = mean ? static_cast<int64_t>(inputs.size()) : 1;
  if (!SettleReduction(&partial, 1, divisor, type, SmoothL1LossFamily::kTermError, &value)) {
    return std::nullopt;
  }
  return RoundedTo(value, type);
}

// A random input of `kind`'s term with a short dyadic value: linear (|d| >= b, |d| of a few bits)
// or quadratic (|d| < b; smooth L1's d a multiple of beta's odd part, so that d^2 / (2 beta) is
// dyadic), of magnitude about 2^e.
ElementInputs ShortTerm(std::mt19937& rng, const Attribute& a, int e) {
  const double b = a.parameter;
  for (;;) {
    const bool quadratic = b > 0 && Integer(rng, 0, 1) == 0;
    mpq_class d;
    if (quadratic) {
      const int64_t odd = a.variant == kHuberVariant ? 1 : OddPart(b);
      d = TimesPow2(mpq_class(odd * Integer(rng, 1, 7)),
                    std::ilogb(b) - 4 - static_cast<int>(std::log2(odd)));
    } else {
      d = TimesPow2(mpq_class(Integer(rng, 9, 31)), e - 4) + Rational(b);
    }
    if (Integer(rng, 0, 1)) d = -d;
    std::optional<ElementInputs> in = Split(d, static_cast<float>(Integer(rng, 1, 3)));
    if (in && (quadratic ? abs(d) < Rational(b) : abs(d) >= Rational(b))) return *in;
  }
}

// Sets of `count` losses whose exact mean (divisor = count) or sum (divisor 1) is a midpoint of
// `type`: count - 1 short terms, then a linear one solved for d (|d| = r + beta/2, or r / delta +
// delta/2 for a power-of-two delta, r the rest of divisor * m); with `beside`, that last element's
// t one fp32 unit off.
std::optional<std::vector<ElementInputs>> OnMidpointSum(std::mt19937& rng, const Attribute& a,
                                                        int count, int64_t divisor, FloatType type,
                                                        bool beside) {
  const double b = a.parameter;
  const int e = std::clamp(std::ilogb(b > 0 ? b : 1.0) + Integer(rng, 2, 6),
                           FormatOf(type).min_exponent + 2, FormatOf(type).max_exponent - 4);
  const mpq_class target = Rational(Midpoint(rng, type, e)) * mpq_class(double(divisor));
  std::vector<ElementInputs> inputs;
  for (int i = 0; i + 1 < count; ++i) inputs.push_back(ShortTerm(rng, a, e - 3));
  const mpq_class rest = target - ExactTotal(LossKind::kLoss, a, inputs);
  const mpq_class rb = Rational(b);
  const mpq_class d =
      a.variant == kHuberVariant ? mpq_class(rest / rb + rb / 2) : mpq_class(rest + rb / 2);
  if (rest <= 0 || d < rb) return std::nullopt;
  std::optional<ElementInputs> last = Split(Integer(rng, 0, 1) ? d : mpq_class(-d), 1.0f);
  if (!last) return std::nullopt;
  if (beside) {
    last->t = last->t == 0.0f
                  ? (Integer(rng, 0, 1) ? 0x1p-149f : -0x1p-149f)
                  : std::nextafter(last->t, Integer(rng, 0, 1) ? HUGE_VALF : -HUGE_VALF);
  }
  inputs.push_back(*last);
  return inputs;
}

TEST(SmoothL1Sum, MeansAndSumsOnAndBesideMidpointsRoundExactly) {
  // Attributes whose linear terms are dyadic: every beta (an fp32 value), power-of-two deltas.
  const Attribute attributes[] = {{kSmoothL1Variant, 1.0}, {kSmoothL1Variant, 0.5},
                                  {kSmoothL1Variant, 3.0}, {kSmoothL1Variant, double(0.1f)},
                                  {kSmoothL1Variant, 0.0}, {kHuberVariant, 1.0},
                                  {kHuberVariant, 0.125},  {kHuberVariant, 0x1p30}};
  std::mt19937 rng(99);
  for (bool beside : {false, true}) {
    int64_t sets = 0, ties = 0, wrong = 0, fp64_settled = 0;
    std::string first;
    for (FloatType type : kTypes) {
      for (const Attribute& a : attributes) {
        for (int count : {3, 5, 7}) {
          for (bool mean : {true, false}) {
            const int64_t divisor = mean ? count : 1;
            const ElementParameters p = DividedBy(divisor, a.parameter, a.variant);
            for (int trial = 0; trial < 30 / kScale + 1; ++trial) {
              const auto inputs = OnMidpointSum(rng, a, count, divisor, type, beside);
              if (!inputs) continue;
              ++sets;
              const mpq_class exact =
                  ExactTotal(LossKind::kLoss, a, *inputs) / mpq_class(double(divisor));
              ties += IsMidpoint(exact, type) ? 1 : 0;
              const float expected = static_cast<float>(RoundRational(exact, type));
              const float got = ExactPass(LossKind::kLoss, p, *inputs, divisor, type);
              const std::optional<float> fp64 = Fp64Pass(LossKind::kLoss, p, *inputs, mean, type);
              fp64_settled += fp64 ? 1 : 0;
              const bool bad =
                  Bits(got) != Bits(expected) || (fp64 && Bits(*fp64) != Bits(expected));
              if (bad && wrong++ == 0) {
                first = Describe(a) + " " + Name(type) + " N=" + std::to_string(count) +
                        (mean ? " mean" : " sum") + ": last " + Describe(inputs->back());
              }
            }
          }
        }
      }
    }
    std::cout << (beside ? "beside" : "on") << " midpoints: " << sets << " sets (" << ties
              << " exact ties), " << fp64_settled << " settled by the fp64 pass, " << wrong
              << " wrong\n";
    EXPECT_EQ(wrong, 0) << first;
    EXPECT_GT(sets, 1000 / kScale);
    EXPECT_EQ(ties, beside ? 0 : sets);
    // Ties and near ties must be left to the exact pass.
    EXPECT_LT(fp64_settled, sets / 10);
  }
}

// Random sets of 1 to 40 elements, every kind and attribute (Huber's tiny deltas: their totals are
// zeros, the loss's +0, a gradient's of its exact sign), means and sums: the exact pass equals the
// oracle, and where the fp64 pass settles, so does it.
TEST(SmoothL1Sum, RandomMeansAndSumsRoundExactly) {
  std::mt19937 rng(123);
  int64_t sets = 0, wrong = 0;
  std::string first;
  for (int trial = 0; trial < 6000 / kScale; ++trial) {
    const Attribute& a = kAttributes[trial % std::size(kAttributes)];
    const FloatType type = kTypes[(trial / 3) % 3];
    const LossKind kind = kKinds[(trial / 9) % 3];
    const int count = Integer(rng, 1, 40);
    const bool mean = trial % 2 == 0;
    const int64_t divisor = mean ? count : 1;
    const ElementParameters p = DividedBy(divisor, a.parameter, a.variant);
    std::vector<ElementInputs> inputs;
    for (int i = 0; i < count; ++i) inputs.push_back(RandomInputs(rng, a, type, trial + i));
    const mpq_class exact = ExactTotal(kind, a, inputs) / mpq_class(double(divisor));
    const float expected = static_cast<float>(RoundRational(exact, type));
    const float got = ExactPass(kind, p, inputs, divisor, type);
    const std::optional<float> fp64 = Fp64Pass(kind, p, inputs, mean, type);
    ++sets;
    if ((Bits(got) != Bits(expected) || (fp64 && Bits(*fp64) != Bits(expected))) && wrong++ == 0) {
      first = Describe(a) + " " + Name(kind) + " " + Name(type) + " N=" + std::to_string(count);
    }
  }
  std::cout << "random sets: " << sets << ", " << wrong << " wrong\n";
  EXPECT_EQ(wrong, 0) << first;
}

// The common denominators: beta where 0 < beta < inf, 1 for beta = 0 and +inf and for Huber's
// regular range, 2^k (k = min(-ilogb(delta), 800)) for its tiny deltas.
TEST(SmoothL1Sum, TermDenominators) {
  const auto denominator = [](int variant, double parameter) {
    return SmoothL1LossFamily::TermDenominator(DividedBy(7, parameter, variant));
  };
  EXPECT_EQ(denominator(kSmoothL1Variant, 3.0), 3.0);
  EXPECT_EQ(denominator(kSmoothL1Variant, double(0.1f)), double(0.1f));
  EXPECT_EQ(denominator(kSmoothL1Variant, 0x1p-149), 0x1p-149);
  EXPECT_EQ(denominator(kSmoothL1Variant, 0.0), 1.0);
  EXPECT_EQ(denominator(kSmoothL1Variant, HUGE_VAL), 1.0);
  EXPECT_EQ(denominator(kHuberVariant, 0.1), 1.0);
  EXPECT_EQ(denominator(kHuberVariant, 0x1p-450), 1.0);
  EXPECT_EQ(denominator(kHuberVariant, HUGE_VAL), 1.0);
  EXPECT_EQ(denominator(kHuberVariant, 0x1.8p-500), 0x1p500);
  EXPECT_EQ(denominator(kHuberVariant, 0x1p-1074), 0x1p800);
}

}  // namespace
}  // namespace openaclnn
