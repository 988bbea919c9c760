// The soft margin family's terms of a mean or sum (SoftMarginLossFamily::Term, AddExactTerm):
// every term within its bound and its bound at least kTermError of its value, on a million random
// inputs per kind; and totals through the exact pass (AddExactTerm into an ExactSum, then
// RoundedQuotient by the count) against the binary128 oracle, on sets of N = 3, 5, 7 terms built
// so that their rational parts' mean or sum lies exactly on a midpoint of the output type or one
// unit of the terms' last place beside it (the losses' transcendental tails, or at x = 0 nothing,
// decide), and on random sets; where the fp64 terms settle a total (SettleReduction with
// kTermError), it is that same total.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "kernels/exact_sum.h"
#include "kernels/reduction.h"
#include "losses/soft_margin_loss/soft_margin_loss_family.h"
#include "soft_margin_loss_oracle.h"

namespace openaclnn::soft_margin_test {
namespace {

using Family = SoftMarginLossFamily;

// A million random inputs over the distributions, both kinds: |term - exact| <= bound and
// bound >= kTermError |term|; the worst error relative to the exact value printed (floored terms,
// whose bound is their value, aside).
TEST(SoftMarginTerm, EveryTermIsWithinItsBound) {
  std::mt19937 rng(59);
  const ElementParameters p = DividedBy(1);
  double worst[2] = {0, 0};
  int64_t floored[2] = {0, 0};
  const int64_t count = 1000000 / kSampleScale;
  for (int64_t i = 0; i < count; ++i) {
    const ElementInputs in = RandomInput(rng, kDistributions[i % std::size(kDistributions)]);
    const OracleTerms terms = Oracle(in);
    for (const LossKind kind : kKinds) {
      const ElementEstimate term = Family::Term(kind, p, in, false, false);
      const Exact exact = kind == LossKind::kLoss ? terms.loss : terms.grad;
      const Quad error = Abs((static_cast<Quad>(term.value) - exact.hi) - exact.lo);
      ASSERT_LE(error, static_cast<Quad>(term.bound))
          << KindName(kind) << std::hexfloat << " x=" << in.x << " t=" << in.t << " g=" << in.g;
      ASSERT_GE(term.bound, Family::kTermError * std::fabs(term.value));
      const int k = kind == LossKind::kLoss ? 0 : 1;
      if (term.bound == std::fabs(term.value) && term.value != 0) {
        ++floored[k];
      } else if (exact.hi != 0) {
        worst[k] = std::max(worst[k], static_cast<double>(error / Abs(exact.hi + exact.lo)));
      }
    }
  }
  std::cout << count << " inputs: worst relative error of the loss's terms 2^"
            << std::log2(worst[0]) << " (" << floored[0] << " floored), of the gradient's 2^"
            << std::log2(worst[1]) << " (" << floored[1] << " floored); bound 2^"
            << std::log2(Family::kTermError) << "\n";
}

// A set of N terms whose rational parts add to T units u = 2^q, T = m N' 2^j + r (N' = N for a
// mean, 1 for a sum; m the odd significand of a midpoint M = m 2^(j + q), normal in `type`; T
// near 2^44, so that one unit is within the fp64 terms' bound of the total): one term L = a b,
// the others multiples of 2^B. For r = -+1, B = 24 and a b = T (mod 2^24), b = T a^-1 mod 2^24;
// for r = 0 (T = m N' 2^j, m N' odd), B = j + 1 and L = 2^j a b' with a b' odd, about 5/8 of
// m N'. kLoss: x t = -(term), every |x t| >= 40, so that the tails (each below e^-40) are far
// below the fp64 terms' bound; kGradSelf: x = +-0, t g = 2 (term), the gradient -(t g)/2.
std::vector<ElementInputs> BuildSet(std::mt19937_64& rng, LossKind kind, FloatType type, int count,
                                    bool mean, int r) {
  const Format format = FormatOf(type);
  const uint64_t half = uint64_t{1} << format.precision;
  const uint64_t m = (half + rng() % half) | 1;
  const uint64_t n = mean ? static_cast<uint64_t>(count) : 1;
  int j = 0;
  while ((m * n) << (j + 1) < (uint64_t{1} << 45)) ++j;
  const uint64_t total = ((m * n) << j) + static_cast<uint64_t>(static_cast<int64_t>(r));
  uint64_t a = 0, b = 0;
  int base = 24;
  if (r != 0) {
    const auto fits = [&] { return a * b >= (uint64_t{1} << 36) && a * b < total; };
    for (int attempt = 0; attempt < 1000 && !fits(); ++attempt) {
      a = ((uint64_t{1} << 20) + rng() % (uint64_t{15} << 20)) | 1;
      b = (total % (uint64_t{1} << 24)) * InverseModulo(a, uint64_t{1} << 24) % (uint64_t{1} << 24);
    }
    if (!fits()) return {};
  } else {
    base = j + 1;
    // a and b' below 2^24: a in [share / 2^23, sqrt(share)].
    const uint64_t share = m * n * 5 / 8, low = (share >> 23) + 1;
    const auto high = std::max(low + 2, static_cast<uint64_t>(std::sqrt(share)));
    a = (low + rng() % (high - low)) | 1;
    b = ((share / a) | 1) << j;
  }
  if (a * b >= total || ((total - a * b) & ((uint64_t{1} << base) - 1)) != 0) return {};
  // The rest in multiples of 2^B, over count - 1 terms: unequal parts, each below 2^24.
  const uint64_t rest = (total - a * b) >> base;
  if (rest < static_cast<uint64_t>(4 * (count - 1))) return {};
  std::vector<uint64_t> parts(static_cast<size_t>(count - 1), rest / (count - 1));
  parts[0] += rest % (count - 1);
  for (size_t i = 1; i < parts.size(); ++i) {
    const uint64_t shift = rng() % (parts[i] / 2);
    parts[i] -= shift, parts[0] += shift;
  }
  if (parts[0] >= (uint64_t{1} << 24)) return {};
  // u = 2^q, with the smallest term at least 64 units of u... in value: q >= log2(64 / smallest).
  uint64_t smallest = a * b;
  for (const uint64_t part : parts) smallest = std::min(smallest, part << base);
  const int lowest =
      std::max(format.min_exponent,
               format.precision + j +
                   static_cast<int>(std::ceil(std::log2(64.0 / static_cast<double>(smallest)))));
  if (lowest > format.max_exponent) return {};
  const int q = lowest +
                static_cast<int>(rng() % static_cast<uint64_t>(format.max_exponent - lowest + 1)) -
                format.precision - j;
  const float sign = rng() % 2 ? 1.0f : -1.0f;
  const auto term = [&](uint64_t first, uint64_t second, int power) {
    // first * second * 2^power as x t (the loss, negative) or as t g / 2 at x = 0; second is a
    // power of two times at most 24 bits.
    const int shift = std::max(0, static_cast<int>(std::ilogb(static_cast<double>(second))) - 23);
    EXPECT_EQ((second >> shift) << shift, second);
    const int split = power / 2;
    const auto f = static_cast<float>(std::ldexp(static_cast<double>(first), split));
    const auto s =
        static_cast<float>(std::ldexp(static_cast<double>(second >> shift), power - split + shift));
    if (kind == LossKind::kLoss) return ElementInputs{-sign * f, sign * s, 1, 1, 1};
    return ElementInputs{rng() % 2 ? 0.0f : -0.0f, sign * f, 1, 1, 2 * s};
  };
  std::vector<ElementInputs> inputs{term(a, b, q)};
  for (const uint64_t part : parts) inputs.push_back(term(part, uint64_t{1} << base, q));
  for (const ElementInputs& in : inputs) {
    const bool finite = std::isfinite(in.x) && std::isfinite(in.t) && std::isfinite(in.g) &&
                        in.t != 0.0f && in.g != 0.0f;
    if (!finite || (kind == LossKind::kLoss && std::fabs(static_cast<double>(in.x) * in.t) < 40)) {
      return {};
    }
  }
  return inputs;
}

struct TotalTally {
  int64_t count = 0, wrong = 0, exact_passes = 0;
};

// A set's totals (each of `means`, each of `types`): the fp64 terms through SettleReduction
// (reduction.h's block and lane order), else the exact pass; the exact pass always, too. Each
// against the oracle.
void CheckTotals(TotalTally& tally, LossKind kind, const std::vector<ElementInputs>& inputs,
                 const std::vector<bool>& means, const std::vector<FloatType>& types) {
  const ElementParameters p = DividedBy(1);
  const auto count = static_cast<int64_t>(inputs.size());
  const int64_t blocks = ReductionBlocks(count);
  std::vector<Partial> partials(static_cast<size_t>(blocks));
  Exact total;
  math::exact::ExactSum sum;
  for (int64_t block = 0; block < blocks; ++block) {
    Partial lanes[kBlockLanes];
    for (int64_t i = block * kReductionBlock; i < std::min(count, (block + 1) * kReductionBlock);
         ++i) {
      const ElementInputs& in = inputs[static_cast<size_t>(i)];
      const ElementEstimate term = Family::Term(kind, p, in, false, false);
      lanes[i % kBlockLanes] = lanes[i % kBlockLanes] + Partial{term.value, term.bound};
      Family::AddExactTerm(kind, p, in, sum);
      total = Plus(total, OracleOf(kind, in));
    }
    partials[static_cast<size_t>(block)] = FoldLanes(lanes);
  }
  for (const bool mean : means) {
    for (const FloatType type : types) {
      const int64_t divisor = mean ? count : 1;
      const auto bits = [&](double v) { return RoundOnce(v, type); };
      const double want = Want(total, divisor, type);
      const double exact = math::exact::RoundedQuotient(
          sum, math::exact::DivisorOf(Family::TermDenominator(p), divisor), type);
      ++tally.count;
      if (bits(exact) != bits(want) && ++tally.wrong <= 5) {
        std::cout << "  wrong exact pass: " << KindName(kind) << " " << TypeName(type)
                  << " N=" << count << (mean ? " mean" : " sum") << std::hexfloat << " got "
                  << exact << " want " << want << std::defaultfloat << "\n";
      }
      double settled = 0;
      if (!SettleReduction(partials.data(), blocks, divisor, type, Family::kTermError, &settled)) {
        ++tally.exact_passes;
      } else if (bits(settled) != bits(want) && ++tally.wrong <= 5) {
        std::cout << "  wrong settled total: " << KindName(kind) << " " << TypeName(type) << "\n";
      }
    }
  }
}

TEST(SoftMarginSums, TotalsOnAndBesideAMidpointAreRoundedTheRightWay) {
  std::mt19937_64 rng(61);
  for (const LossKind kind : kKinds) {
    for (const FloatType type : kTypes) {
      for (const int r : {0, -1, 1}) {
        TotalTally tally;
        for (const int count : {3, 5, 7}) {
          for (const bool mean : {true, false}) {
            for (int i = 0; i < 16; ++i) {
              const std::vector<ElementInputs> set = BuildSet(rng, kind, type, count, mean, r);
              // Only this type's total is on (or beside) its midpoint.
              if (!set.empty()) CheckTotals(tally, kind, set, {mean}, {type});
            }
          }
        }
        const std::string what =
            std::string(kind == LossKind::kLoss ? "losses, x t" : "gradients at x = 0, t g") +
            " adding to a midpoint, r = " + std::to_string(r) + ", " + TypeName(type);
        std::cout << what << ": " << tally.count << " totals, " << tally.exact_passes
                  << " exact passes, wrong " << tally.wrong << "\n";
        EXPECT_EQ(tally.wrong, 0) << what;
        EXPECT_GT(tally.count, 60) << what;
        // On the midpoint, or within 2^-44 of it, the fp64 terms cannot decide.
        EXPECT_EQ(tally.exact_passes, tally.count) << what;
      }
    }
  }
}

TEST(SoftMarginSums, RandomTotalsAreCorrectlyRounded) {
  std::mt19937 rng(67);
  for (const LossKind kind : kKinds) {
    TotalTally tally;
    for (const Distribution distribution : kDistributions) {
      for (const int count : {3, 7, 200, 1000}) {
        std::vector<ElementInputs> inputs;
        for (int i = 0; i < count; ++i) inputs.push_back(RandomInput(rng, distribution));
        CheckTotals(tally, kind, inputs, {true, false}, {std::begin(kTypes), std::end(kTypes)});
      }
    }
    std::cout << "random " << KindName(kind) << " totals: " << tally.count << ", "
              << tally.exact_passes << " exact passes, wrong " << tally.wrong << "\n";
    EXPECT_EQ(tally.wrong, 0);
  }
}

}  // namespace
}  // namespace openaclnn::soft_margin_test
