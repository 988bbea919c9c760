// The KL divergence family, one element (KlDivElement): every kind and variant correctly rounded
// into fp32, fp16 and bf16 for every divisor of the list, against the oracle (binary128 with exact
// rational parts; GMP where the result is rational), on random inputs of five distributions, on
// ties of the rational results and their neighbours, on transcendental results built next to a
// midpoint (the divisor chosen to put them there), on the t whose ln t comes closest to the fp32
// grid, and on special values (zeros, subnormals, the largest values, infinities, NaN): every
// result's bits, zero signs and the canonical NaN included. Prints each set's exact-path share.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "kl_div_oracle.h"
#include "kl_div_samples.h"
#include "losses/kl_div/kl_div_family.h"

namespace openaclnn {
namespace {

struct Tally {
  int64_t count = 0, open = 0, wrong = 0;
  std::string first;
};

void Report(const Tally& tally, const std::string& what) {
  std::cout << what << ": " << tally.count << " results, " << tally.open << " to the exact path ("
            << 100.0 * static_cast<double>(tally.open) / static_cast<double>(tally.count)
            << "%), wrong " << tally.wrong << "\n";
  EXPECT_EQ(tally.wrong, 0) << what << ": first wrong " << tally.first;
}

// One element of `kind` for each divisor and type given, against the oracle (its numerator formed
// once), counting the results the estimate leaves to the exact path.
void Check(Tally& tally, LossKind kind, int variant, const ElementInputs& in,
           const std::vector<int64_t>& divisors, const std::vector<FloatType>& types) {
  double special = 0;
  const bool is_special = SpecialResult(kind, variant, in, &special);
  const Numerator numerator = is_special ? Numerator{} : ExactNumerator(kind, variant, in);
  for (const int64_t divisor : divisors) {
    const ElementParameters p = DividedBy(divisor, 0.0, variant);
    const bool exact_scale = (divisor & (divisor - 1)) == 0;
    for (const FloatType type : types) {
      const float got = KlDivFamily::Element(kind, p, in, type);
      const double want = is_special ? special : RoundedQuotientOf(numerator, divisor, type);
      ++tally.count;
      if (!is_special) {
        const ElementEstimate estimate = KlDivEstimate(kind, variant, in, p.scale, exact_scale);
        double settled;
        if (std::fabs(estimate.value) <= math::kKlDivBeyondRange &&
            !SettledIn(estimate, type, &settled)) {
          ++tally.open;
        }
      }
      if (RoundOnce(got, type) != RoundOnce(want, type)) {
        if (tally.wrong++ == 0) {
          char text[300];
          std::snprintf(text, sizeof text, "%s variant %d %s D=%lld x=%a t=%a g=%a: got %a want %a",
                        KindName(kind), variant, TypeName(type), static_cast<long long>(divisor),
                        in.x, in.t, in.g, got, want);
          tally.first = text;
        }
      }
    }
  }
}

const std::vector<int64_t> kAllDivisors(std::begin(kDivisors), std::end(kDivisors));
const std::vector<FloatType> kAllTypes(std::begin(kTypes), std::end(kTypes));

// ---- Random inputs: 2,000 per variant and distribution, each kind, divisor and type.
TEST(KlDivRounding, RandomInputsAreCorrectlyRounded) {
  for (int variant = 0; variant < 2; ++variant) {
    for (const Distribution distribution : kDistributions) {
      Sampler sampler(1000 + 10 * variant + static_cast<int>(distribution));
      Tally tallies[3];
      for (int i = 0; i < 2000; ++i) {
        const ElementInputs in = sampler.Draw(variant, distribution);
        for (int k = 0; k < 3; ++k)
          Check(tallies[k], kKinds[k], variant, in, kAllDivisors, kAllTypes);
      }
      for (int k = 0; k < 3; ++k) {
        Report(tallies[k], std::string(variant ? "log targets, " : "probabilities, ") +
                               KindName(kKinds[k]) + ", " + DistributionName(distribution));
      }
    }
  }
}

// ---- Ties of the rational results. A midpoint M 2^q of `type` (M odd, precision + 1 bits) times
// D = d 2^k (d odd) as a product A B 2^j of two fp32 significands: A = a d and M = a B, a odd.
struct Tie {
  int64_t a_times_d, b, m;
};
bool BuildTie(Sampler& sampler, int precision, int64_t odd_divisor, Tie* tie) {
  const int64_t a_max =
      std::min<int64_t>((int64_t{1} << 24) / odd_divisor, int64_t{1} << precision);
  for (int attempt = 0; attempt < 20 && a_max >= 1; ++attempt) {
    const int64_t a = 2 * (sampler.Int(0, static_cast<int>((a_max - 1) / 2))) + 1;
    int64_t low = ((int64_t{1} << precision) + a - 1) / a,
            high = ((int64_t{1} << (precision + 1)) - 1) / a;
    high = std::min(high, (int64_t{1} << 24) - 1);
    if ((low & 1) == 0) ++low;
    if (low > high) continue;
    const int64_t b = low + 2 * sampler.Int(0, static_cast<int>((high - low) / 2));
    *tie = {a * odd_divisor, b, a * b};
    return true;
  }
  return false;
}

int PrecisionOf(FloatType type) {
  return type == FloatType::kFloat32 ? 24 : type == FloatType::kFloat16 ? 11 : 8;
}

// Exact rational results on a midpoint of the output type, and each with one input one fp32 unit
// away: -g t (every divisor whose odd part leaves room), and at t = 1 (probabilities) or t = 0
// (log targets) the loss -x / D and the target gradient g (1 - x) / D, and the log targets' self
// gradient -g / D (where M d fits one fp32 significand).
TEST(KlDivRounding, RationalTiesRoundToEvenAndTheirNeighboursAsTheyLie) {
  Sampler sampler(2001);
  for (const FloatType type : kTypes) {
    const int precision = PrecisionOf(type);
    // A normal binade of the type not near its ends: [2^e, 2^(e+1)).
    const int e_low = type == FloatType::kFloat16 ? -12 : -100,
              e_high = type == FloatType::kFloat16 ? 13 : 100;
    Tally ties, neighbours;
    for (const int64_t divisor : kDivisors) {
      int64_t odd = divisor;
      int k = 0;
      while ((odd & 1) == 0) odd >>= 1, ++k;
      for (int i = 0; i < 300; ++i) {
        Tie tie;
        if (!BuildTie(sampler, precision, odd, &tie)) break;
        const int q = sampler.Int(e_low, e_high) - precision;  // m = M 2^q
        const float sign = i % 2 ? -1.0f : 1.0f;
        const int j = sampler.Int(-20, 20);
        const std::vector<int64_t> one{divisor};
        const std::vector<FloatType> this_type{type};
        // -g t = -(A 2^j)(B 2^(q + k - j)) sign.
        const float g = std::ldexp(static_cast<float>(tie.a_times_d), j);
        float t = sign * std::ldexp(static_cast<float>(tie.b), q + k - j);
        Check(ties, LossKind::kGradSelf, 0, {0.0f, t, 1, 1, g}, one, this_type);
        t = std::nextafter(t, i % 4 < 2 ? INFINITY : -INFINITY);
        Check(neighbours, LossKind::kGradSelf, 0, {0.0f, t, 1, 1, g}, one, this_type);
        // g (1 - x) = (A 2^j)(B 2^(q + k - j)) with 1 - x an fp32 integer: q + k - j >= 0.
        const int shift = q + k - j;
        if (shift >= 0 && shift < 24 && tie.b << shift < (int64_t{1} << 24)) {
          const float x = 1.0f - sign * static_cast<float>(tie.b << shift);
          for (int variant = 0; variant < 2; ++variant) {
            const float unit = variant == 0 ? 1.0f : 0.0f;
            Check(ties, LossKind::kGradTarget, variant, {x, unit, 1, 1, g}, one, this_type);
            Check(neighbours, LossKind::kGradTarget, variant,
                  {std::nextafter(x, INFINITY), unit, 1, 1, g}, one, this_type);
          }
        }
        // -x / D, -g / D at t = 1 or 0: x (g) = M d 2^(q + k), one significand.
        if (tie.m * odd < (int64_t{1} << 24)) {
          const float v = sign * std::ldexp(static_cast<float>(tie.m * odd), q + k);
          for (int variant = 0; variant < 2; ++variant) {
            const float unit = variant == 0 ? 1.0f : 0.0f;
            Check(ties, LossKind::kLoss, variant, {v, unit, 1, 1, 1}, one, this_type);
            Check(neighbours, LossKind::kLoss, variant, {std::nextafter(v, 0.0f), unit, 1, 1, 1},
                  one, this_type);
          }
          Check(ties, LossKind::kGradSelf, 1, {0.0f, 0.0f, 1, 1, v}, one, this_type);
          Check(neighbours, LossKind::kGradSelf, 1, {0.0f, 0.0f, 1, 1, std::nextafter(v, 0.0f)},
                one, this_type);
        }
      }
    }
    Report(ties, std::string("rational ties, ") + TypeName(type));
    Report(neighbours, std::string("their neighbours, ") + TypeName(type));
    EXPECT_GT(ties.count, 1000);
    // A tie settles only where the divisor is a power of two (the exact estimate rounds it).
    EXPECT_GT(ties.open, ties.count / 3) << "the ties must reach the exact path";
  }
}

// ---- Transcendental results next to a midpoint m of the output type: D = round(N / m) for the
// exact numerator N puts N / D within m / (2 D) of m, D in [2^45, 2^62] (far inside every
// estimate's bound); D - 1 and D + 1 beside it. Midpoints anywhere in each type's range, and at its
// edges: the overflow threshold, half the least subnormal, between the largest subnormal and the
// least normal.
double MidpointNear(double v, FloatType type, Sampler& sampler) {
  const uint32_t bits = RoundOnce(std::fabs(v), type);
  if (bits == 0 || bits >= InfinityBits(type) - 1) return 0;
  const double here = MagnitudeValue(bits, type);
  return sampler.Unit() < 0.5 ? (here + MagnitudeValue(bits + 1, type)) / 2
                              : (MagnitudeValue(bits - 1, type) + here) / 2;
}

// Inputs whose loss is near `target`: t (l - x) with t = target 2^-j / c, x = l - c (c in
// [1, 2^20] or so); e^t (t - x) with x = t - target e^-t, t in [-100, 80].
void AimLoss(int variant, double target, Sampler& sampler, ElementInputs* in) {
  if (variant == 0) {
    const double t = std::ldexp(sampler.Uniform(1, 2), std::ilogb(target) - sampler.Int(0, 20));
    in->t = static_cast<float>(std::min(t, 0x1p127));
    in->x = static_cast<float>(std::log(static_cast<double>(in->t)) - target / in->t);
  } else {
    in->t = static_cast<float>(sampler.Uniform(-100, 80));
    in->x = static_cast<float>(in->t - target * std::exp(-static_cast<double>(in->t)));
  }
}

TEST(KlDivRounding, ResultsNextToAMidpointAreRoundedTheRightWay) {
  const std::pair<FloatType, double> edges[] = {
      {FloatType::kFloat32, 0x1.ffffffp127},  {FloatType::kFloat32, 0x1p-150},
      {FloatType::kFloat32, 0x1.fffffep-127}, {FloatType::kFloat16, 65520.0},
      {FloatType::kFloat16, 0x1p-25},         {FloatType::kFloat16, 0x1.ff8p-15},
      {FloatType::kBFloat16, 0x1.ffp127},     {FloatType::kBFloat16, 0x1p-134},
      {FloatType::kBFloat16, 0x1.fep-127}};
  for (int variant = 0; variant < 2; ++variant) {
    Sampler sampler(3001 + variant);
    for (int k = 0; k < 3; ++k) {
      const LossKind kind = kKinds[k];
      if (kind == LossKind::kGradSelf && variant == 0) continue;  // rational: the ties above
      Tally inside, at_edges;
      for (int i = 0; i < 4000; ++i) {
        const bool edge = i % 4 == 0;
        const auto& [edge_type, edge_m] = edges[(i / 4) % 9];
        const FloatType type = edge ? edge_type : kTypes[i % 3];
        ElementInputs in =
            sampler.Draw(variant, i % 2 ? Distribution::kWide : Distribution::kTypical);
        double m = edge ? edge_m : 0;
        if (kind == LossKind::kLoss && edge)
          AimLoss(variant, m * std::exp2(sampler.Uniform(46, 61)), sampler, &in);
        double special;
        if (SpecialResult(kind, variant, in, &special) || in.t == (variant == 0 ? 1.0f : 0.0f)) {
          continue;
        }
        if (variant == 0 && kind == LossKind::kLoss && in.t == 0.0f) continue;
        Numerator n = ExactNumerator(kind, variant, in);
        const Quad numerator = Abs(Quad(n.pair.hi) + Quad(n.pair.lo));
        if (numerator == 0) continue;
        if (!edge) {
          m = MidpointNear(
              static_cast<double>(numerator / Quad(std::exp2(sampler.Uniform(45, 62)))), type,
              sampler);
        }
        if (m == 0) continue;
        // A gradient's g scaled by a power of two (exactly) to bring N / m into [2^45, 2^62].
        if (kind != LossKind::kLoss) {
          const int shift =
              53 - static_cast<int>(std::log2(static_cast<double>(numerator / Quad(m))));
          const float g = std::ldexp(in.g, shift);
          if (!std::isfinite(g) || g == 0 || std::fabs(g) < 0x1p-149f) continue;
          if (std::ldexp(g, -shift) != in.g) continue;  // lost bits below fp32's range
          in.g = g;
          n = ExactNumerator(kind, variant, in);
        }
        const Quad ratio = Abs(Quad(n.pair.hi) + Quad(n.pair.lo)) / Quad(m);
        if (!(ratio >= Quad(0x1p45) && ratio <= Quad(0x1p62))) continue;
        const auto divisor = static_cast<int64_t>(ratio + Quad(0.5));
        Check(edge ? at_edges : inside, kind, variant, in, {divisor - 1, divisor, divisor + 1},
              {type});
      }
      const std::string name =
          std::string(variant ? "log targets, " : "probabilities, ") + KindName(kind);
      Report(inside, "next to a midpoint, " + name);
      Report(at_edges, "next to a range's edge, " + name);
      EXPECT_GT(inside.count, 1000);
      EXPECT_GT(at_edges.count, 100);
      EXPECT_GT(inside.open, inside.count * 9 / 10) << "the midpoints must reach the exact path";
    }
  }
}

// ---- The t whose ln t, ln t + 1 come closest to an fp32 (scripts/kl-div-log-distance.cc found
// them): x that nearest fp32 and its neighbours, g random and +-0, every divisor and type: the
// deepest cancellations of l - x and l - x + 1 rounded as the exact value, zeros signed by it.
TEST(KlDivRounding, TheDeepestCancellationsAreCorrectlyRounded) {
  const float hardest[] = {0x1.108a5ap-66f, 0x1.2fe614p+117f, 0x1.1ff606p+33f, 0x1.ecf3fep-73f,
                           0x1.78bc74p-2f,  0x1.788bdp-2f,    0x1.656c3p-2f,   0x1.78b55ep-2f,
                           0x1.827a74p-7f,  0x1.007e58p+27f};
  Sampler sampler(4001);
  Tally tally;
  for (const float t : hardest) {
    for (const double offset : {0.0, 1.0}) {
      const float nearest = static_cast<float>(static_cast<double>(LogQ(t)) + offset);
      for (int step = -2; step <= 2; ++step) {
        float x = nearest;
        for (int s = 0; s < std::abs(step); ++s)
          x = std::nextafter(x, step < 0 ? -INFINITY : INFINITY);
        // g random, and +-0: the zero's sign is that of the exact inner factor.
        for (int i = 0; i < 6; ++i) {
          const float g = i == 4   ? 0.0f
                          : i == 5 ? -0.0f
                                   : static_cast<float>(sampler.Uniform(-4, 4));
          Check(tally, offset == 0 ? LossKind::kLoss : LossKind::kGradTarget, 0, {x, t, 1, 1, g},
                kAllDivisors, kAllTypes);
        }
      }
    }
  }
  Report(tally, "deepest cancellations");
}

// ---- Special values: every triple (x, t, g) of a set of zeros, subnormals, large, infinite and
// NaN values, every kind, variant and type, D = 1 and 3: the contract's classes and zero signs
// (the oracle's SpecialResult), and the exact values where they are finite.
TEST(KlDivSpecials, SpecialValuesTakeTheContractsClassesAndSigns) {
  const float max = 0x1.fffffep127f, inf = INFINITY, nan = NAN;
  const float values[] = {0.0f,    -0.0f,    0x1p-149f, -0x1p-149f, 0x1p-126f, 1.0f,    -1.0f,
                          0.5f,    2.0f,     88.75f,    700.0f,     701.0f,    -500.0f, -501.0f,
                          -746.0f, 65504.0f, max,       -max,       inf,       -inf,    nan};
  Tally tally;
  for (int variant = 0; variant < 2; ++variant) {
    for (const float x : values) {
      for (const float t : values) {
        for (const float g : values) {
          for (const LossKind kind : kKinds) {
            Check(tally, kind, variant, {x, t, 1, 1, g}, {1, 3}, kAllTypes);
          }
        }
      }
    }
  }
  Report(tally, "special values");
}

// The documented zero signs and classes, one by one (numerics-kl-div.md §4).
TEST(KlDivSpecials, TheDocumentedCasesGiveTheirValues) {
  const auto bits = [](LossKind kind, int variant, float x, float t, float g) {
    return BitCast<uint32_t>(KlDivFamily::Element(kind, DividedBy(1, 0.0, variant), {x, t, 1, 1, g},
                                                  FloatType::kFloat32));
  };
  const uint32_t plus0 = 0, minus0 = 0x80000000u, nan = 0x7fc00000u, inf = 0x7f800000u;
  const LossKind loss = LossKind::kLoss, self = LossKind::kGradSelf, target = LossKind::kGradTarget;
  // Probabilities: t = 0 gives t (0 - x); t < 0 NaN; the target gradient NaN at t = 0.
  EXPECT_EQ(bits(loss, 0, 2.0f, 0.0f, 1), minus0);
  EXPECT_EQ(bits(loss, 0, -2.0f, 0.0f, 1), plus0);
  EXPECT_EQ(bits(loss, 0, 2.0f, -0.0f, 1), plus0);
  EXPECT_EQ(bits(loss, 0, 0.0f, 0.0f, 1), plus0);
  EXPECT_EQ(bits(loss, 0, -0.0f, -0.0f, 1), minus0);
  EXPECT_EQ(bits(loss, 0, INFINITY, 0.0f, 1), nan);
  EXPECT_EQ(bits(loss, 0, 1.0f, -0x1p-149f, 1), nan);
  EXPECT_EQ(bits(loss, 0, 0.0f, 1.0f, 1), plus0);  // 1 (ln 1 - 0)
  EXPECT_EQ(bits(loss, 0, -INFINITY, 0.5f, 1), inf);
  EXPECT_EQ(bits(target, 0, 1.0f, 0.0f, 1), nan);
  EXPECT_EQ(bits(target, 0, 1.0f, 1.0f, -2), minus0);                 // g (0 - 1 + 1)
  EXPECT_EQ(bits(target, 0, 0.5f, 2.0f, 0), plus0);                   // +0 times ln 2 - 0.5 + 1 > 0
  EXPECT_EQ(bits(target, 0, 5.0f, 2.0f, 0), minus0);                  // +0 times ln 2 - 5 + 1 < 0
  EXPECT_EQ(bits(self, 0, 0.0f, 0.0f, 1), minus0);                    // -(1 * 0)
  EXPECT_EQ(bits(self, 0, 0.0f, -3.0f, 2), BitCast<uint32_t>(6.0f));  // negative t is fine
  // Log targets: e^t (t - x), t = -inf NaN; beyond t = 700 +-inf or an exact 0.
  EXPECT_EQ(bits(loss, 1, 0.0f, -0.0f, 1), minus0);
  EXPECT_EQ(bits(loss, 1, 0.0f, -INFINITY, 1), nan);
  EXPECT_EQ(bits(loss, 1, 1000.0f, 1000.0f, 1), plus0);  // fp32 exp would give inf * 0
  EXPECT_EQ(bits(loss, 1, 0.0f, 1000.0f, 1), inf);
  EXPECT_EQ(bits(self, 1, 0.0f, -INFINITY, 2), minus0);
  EXPECT_EQ(bits(self, 1, 0.0f, -1000.0f, -2), plus0);
  EXPECT_EQ(bits(target, 1, 1001.0f, 1000.0f, -1), minus0);  // g e^t (+0)
  EXPECT_EQ(bits(target, 1, 0.0f, 1000.0f, 1), inf);
  EXPECT_EQ(bits(target, 1, 0.0f, -200.0f, INFINITY), BitCast<uint32_t>(-INFINITY));
}

}  // namespace
}  // namespace openaclnn
