// The KL divergence family's means and sums, through the steps every backend takes (reduction.h):
// each element's term (KlDivFamily::Term) added in the fixed block order, the total settled by its
// bound (SettleReduction, term error KlDivFamily::kTermError), else the exact pass (every
// element's AddExactTerm into one ExactSum, RoundedQuotient by TermDenominator times the count).
// Totals built to lie exactly on a midpoint of the output type (N = 3, 5, 7 terms, mean and sum,
// with terms of log targets that cancel exactly beside them) and one unit beside it, against GMP;
// random totals against binary128.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "kernels/exact_sum.h"
#include "kernels/reduction.h"
#include "kl_div_oracle.h"
#include "kl_div_samples.h"
#include "losses/kl_div/kl_div_family.h"

namespace openaclnn {
namespace {

using Family = KlDivFamily;

// The loss's mean (divided by `count`) or sum (count 1) of `inputs` as a backend forms it; *exact
// whether the exact pass decided it.
double Total(const std::vector<ElementInputs>& inputs, int variant, int64_t count, FloatType type,
             bool* exact) {
  const ElementParameters p = DividedBy(1, 0.0, variant);
  const auto n = static_cast<int64_t>(inputs.size());
  const int64_t blocks = ReductionBlocks(n);
  std::vector<Partial> partials(static_cast<size_t>(blocks));
  for (int64_t b = 0; b < blocks; ++b) {
    Partial lanes[kBlockLanes];
    for (int64_t i = b * kReductionBlock; i < std::min(n, (b + 1) * kReductionBlock); ++i) {
      const ElementEstimate term =
          Family::Term(LossKind::kLoss, p, inputs[static_cast<size_t>(i)], false, false);
      lanes[i % kBlockLanes] = lanes[i % kBlockLanes] + Partial{term.value, term.bound};
    }
    partials[static_cast<size_t>(b)] = FoldLanes(lanes);
  }
  double value = 0;
  *exact = false;
  // SettleReduction divides by `count`; a sum's count is 1 there.
  if (SettleReduction(partials.data(), blocks, count, type, Family::kTermError, &value)) {
    return value;
  }
  *exact = true;
  math::exact::ExactSum sum;
  for (const ElementInputs& in : inputs) Family::AddExactTerm(LossKind::kLoss, p, in, sum);
  return math::exact::RoundedQuotient(
      sum, math::exact::DivisorOf(Family::TermDenominator(p), count), type);
}

struct Tally {
  int64_t count = 0, exact = 0, wrong = 0;
};

// N loss terms whose exact sum is S = M 2^q (M odd, its type's precision + 1 bits) times the count
// (mean) or 1 (sum): two rational terms -x (t = 1, or t = 0 for log targets) holding S's high and
// low parts, the rest 0 (t = 0, or t = x), and for log targets pairs e^t (t - x), e^t (t - x') with
// x + x' = 2 t, which cancel exactly. `nudge`: the low part one fp32 unit away, so that S lies one
// unit of its last place beside the midpoint.
std::vector<ElementInputs> BuiltSet(Sampler& sampler, int variant, int terms, int64_t count,
                                    FloatType type, int nudge, mpq_class* exact_sum) {
  const int precision = type == FloatType::kFloat32 ? 24 : type == FloatType::kFloat16 ? 11 : 8;
  const int64_t m =
      ((int64_t{1} << precision) + 2 * sampler.Int(0, (1 << (precision - 1)) - 1)) | 1;
  const int binade = type == FloatType::kFloat16 ? sampler.Int(-10, 12) : sampler.Int(-60, 60);
  const double s = std::ldexp(static_cast<double>(m * count), binade - precision);  // exact
  const float high = static_cast<float>(s);
  float low = static_cast<float>(s - high);  // exact: s has at most 28 bits
  if (nudge != 0) low = std::nextafter(low, nudge > 0 ? INFINITY : -INFINITY);
  const float unit = variant == 0 ? 1.0f : 0.0f;
  std::vector<ElementInputs> inputs = {{-high, unit, 1, 1, 1}, {-low, unit, 1, 1, 1}};
  *exact_sum = Rational(high) + Rational(low);
  while (static_cast<int>(inputs.size()) < terms) {
    const float x = static_cast<float>(sampler.Uniform(-8, 2));
    if (variant == 1 && static_cast<int>(inputs.size()) + 2 <= terms) {
      // t in [-8, 2] a multiple of 2^-16, d below 16 one of 2^-12: t - d and t + d are exact.
      const float t = std::ldexp(static_cast<float>(sampler.Int(-8 << 16, 2 << 16)), -16);
      const float d = std::ldexp(static_cast<float>(sampler.Int(1, 255)), -sampler.Int(4, 12));
      inputs.push_back({t - d, t, 1, 1, 1});
      inputs.push_back({t + d, t, 1, 1, 1});
    } else {
      inputs.push_back(variant == 0 ? ElementInputs{x, 0.0f, 1, 1, 1}
                                    : ElementInputs{x, x, 1, 1, 1});
    }
  }
  std::shuffle(inputs.begin(), inputs.end(), sampler.Engine());
  return inputs;
}

TEST(KlDivReduction, TotalsOnAMidpointRoundToEvenAndBesideItAsTheyLie) {
  Sampler sampler(5001);
  for (const FloatType type : kTypes) {
    Tally ties, beside;
    for (int variant = 0; variant < 2; ++variant) {
      for (const int terms : {3, 5, 7}) {
        for (const bool mean : {false, true}) {
          const int64_t count = mean ? terms : 1;
          for (int i = 0; i < 60; ++i) {
            const int nudge = i % 3 - 1;
            mpq_class total;
            const std::vector<ElementInputs> inputs =
                BuiltSet(sampler, variant, terms, count, type, nudge, &total);
            bool exact = false;
            const double got = Total(inputs, variant, count, type, &exact);
            const double want = RoundRational(total / mpq_class(static_cast<double>(count)), type);
            Tally& tally = nudge == 0 ? ties : beside;

            ++tally.count;
            tally.exact += exact;
            if (RoundOnce(got, type) != RoundOnce(want, type)) {
              if (tally.wrong++ == 0) {
                ADD_FAILURE() << TypeName(type) << " variant " << variant << " N=" << terms
                              << (mean ? " mean" : " sum") << " nudge " << nudge << ": got " << got
                              << " want " << want;
              }
            }
          }
        }
      }
    }
    std::cout << TypeName(type) << ": " << ties.count << " totals on a midpoint (" << ties.exact
              << " by the exact pass), " << beside.count << " beside one (" << beside.exact
              << "); wrong " << ties.wrong + beside.wrong << "\n";
    EXPECT_EQ(ties.wrong + beside.wrong, 0);
    EXPECT_EQ(ties.exact, ties.count) << "a tie must reach the exact pass";
  }
}

// Random totals: 64 and 5000 losses of the typical and wide distributions, mean and sum, every
// type, against the sum of binary128 pairs (within 2^-100 of the total for these counts).
TEST(KlDivReduction, RandomTotalsAreCorrectlyRounded) {
  for (int variant = 0; variant < 2; ++variant) {
    Sampler sampler(6001 + variant);
    Tally tally;
    for (int set = 0; set < 24; ++set) {
      const int64_t n = set % 4 == 0 ? 5000 : 64;
      std::vector<ElementInputs> inputs;
      Exact total;
      for (int64_t i = 0; i < n; ++i) {
        ElementInputs in =
            sampler.Draw(variant, set % 2 ? Distribution::kTypical : Distribution::kCancelling);
        if (variant == 0 && in.t < 0) in.t = -in.t;
        if (variant == 1) in.t = std::min(in.t, 80.0f);
        double special;
        if (SpecialResult(LossKind::kLoss, variant, in, &special)) continue;
        const Numerator numerator = ExactNumerator(LossKind::kLoss, variant, in, false);
        total = Plus(total, numerator.pair);
        inputs.push_back(in);
      }
      for (const FloatType type : kTypes) {
        for (const bool mean : {false, true}) {
          const auto count = mean ? static_cast<int64_t>(inputs.size()) : int64_t{1};
          bool exact = false;
          const double got = Total(inputs, variant, count, type, &exact);
          const double want = RoundedOnce(
              {total.hi / static_cast<Quad>(count), total.lo / static_cast<Quad>(count)}, type);
          ++tally.count;
          tally.exact += exact;
          tally.wrong += RoundOnce(got, type) != RoundOnce(want, type);
        }
      }
    }
    std::cout << (variant ? "log targets" : "probabilities") << ": " << tally.count
              << " random totals, " << tally.exact << " by the exact pass, wrong " << tally.wrong
              << "\n";
    EXPECT_EQ(tally.wrong, 0);
  }
}

}  // namespace
}  // namespace openaclnn
