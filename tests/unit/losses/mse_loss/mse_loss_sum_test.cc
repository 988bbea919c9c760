// The MSE family's means and sums: AddExactTerm's terms summed exactly (ExactSum) and rounded once
// by RoundedQuotient equal the exact mean or sum rounded once (GMP), on totals built to lie
// exactly on a midpoint of the output type (N = 3, 5, 7) and one unit beside it, and on random
// sets; the fp64 route (Term's estimates and bounds through SettleReduction) settles only totals it
// rounds correctly, and never an exact midpoint.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/reduction.h"
#include "mse_loss_oracle.h"

namespace openaclnn::mse_test {
namespace {

struct Outcome {
  int64_t count = 0, wrong = 0, fp64_settled = 0, fp64_wrong = 0;
  std::string first_wrong;
};

// The elements' total (mean: divided by their count) rounded to `type` both ways: the exact pass
// (AddExactTerm, RoundedQuotient over TermDenominator * count) against the oracle, and the fp64
// pass (Term's values and bounds in one block, SettleReduction), which must settle only to the
// same result.
void CheckTotal(Outcome& outcome, LossKind kind, const std::vector<ElementInputs>& elements,
                bool mean, FloatType type) {
  const auto count = static_cast<int64_t>(elements.size());
  const ElementParameters p = DividedBy(1);
  math::exact::ExactSum sum;
  mpq_class exact = 0;
  Partial partial;
  for (const ElementInputs& in : elements) {
    MseLossFamily::AddExactTerm(kind, p, in, sum);
    exact += ExactTerm(kind, in);
    const ElementEstimate term = MseLossFamily::Term(kind, p, in, false, false);
    partial = partial + Partial{term.value, term.bound};
  }
  if (mean) exact /= mpq_class(static_cast<long>(count));
  const uint32_t expected = RoundOnce(RoundRational(exact, type), type);
  const double rounded = math::exact::RoundedQuotient(
      sum, math::exact::DivisorOf(MseLossFamily::TermDenominator(p), mean ? count : 1), type);
  ++outcome.count;
  if (RoundOnce(rounded, type) != expected && outcome.wrong++ == 0) {
    outcome.first_wrong = std::string(KindName(kind)) + " " + TypeName(type) + " first element " +
                          Describe(kind, elements[0], count, type);
  }
  double value = 0.0;
  if (SettleReduction(&partial, 1, mean ? count : 1, type, MseLossFamily::kTermError, &value)) {
    ++outcome.fp64_settled;
    outcome.fp64_wrong += RoundOnce(value, type) != expected ? 1 : 0;
  }
}

int BitLength(uint64_t v) { return 64 - __builtin_clzll(v); }

// A random odd integer of exactly `bits` bits (bits >= 2).
int64_t OddOf(std::mt19937_64& rng, int bits) {
  return (int64_t{1} << (bits - 1)) + 2 * static_cast<int64_t>(rng() % (int64_t{1} << (bits - 2))) +
         1;
}

// N elements whose terms are integers times 2^scale: the loss's a_i^2 (d_i = a_i 2^j, scale = 2j),
// the gradient's 2 G_i a_i (g_i = G_i 2^k, d_i = a_i 2^j, scale = 1 + k + j), whose integer total
// S (the gradient's without its 2) is, over N for a mean, an odd integer of precision + 1 bits: a
// midpoint of `type` times 2^scale. The loss's a_i are drawn at random but the last, which is
// searched for next to them until S says so; the gradient's last term (G = 1, a of either sign)
// makes S a random such total. Each x_i = a_i 2^j + t_i on the grid of 2^j, t_i random but the
// first one's, 0 (a d over 24 bits: x its leading bits, t minus the rest). With `beside`, that
// first t moves to a power of two far below its x: the total lies next to the midpoint, by less
// than fp64 can tell.
std::vector<ElementInputs> MidpointSet(std::mt19937_64& rng, LossKind kind, FloatType type,
                                       int count, bool mean, bool beside) {
  const Format format = FormatOf(type);
  const int p = format.precision;
  const bool loss = kind == LossKind::kLoss;
  const int64_t divisor = mean ? count : 1;
  // Terms of about 1.5 2^p / N (a sum) or 1.5 2^p (a mean), so that the total is of p + 1 bits
  // when it is a loss's: a_i uniform in [A/2, 3A/2) (a square's mean, 1.08 A^2), G_i in [1, A].
  const auto center =
      static_cast<int64_t>(std::sqrt(1.4 * std::ldexp(1.0, p) / (mean ? 1 : count)));
  const auto random_a = [&] {
    return center / 2 + static_cast<int64_t>(rng() % static_cast<uint64_t>(center));
  };
  std::vector<int64_t> a(count), big_g(count, 1);
  for (bool found = false; !found;) {
    int64_t partial = 0;
    for (int i = 0; i + 1 < count; ++i) {
      a[i] = random_a();
      if (!loss) {
        big_g[i] = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(center));
        if (Coin(rng)) big_g[i] = -big_g[i];  // gradients of either sign: cancellation
      }
      partial += loss ? a[i] * a[i] : big_g[i] * a[i];
    }
    if (!loss) {
      const int64_t odd = OddOf(rng, p + 1);
      a.back() = (Coin(rng) ? odd : -odd) * divisor - partial;
      break;
    }
    for (int64_t last = random_a(), end = last + 8 * count; last < end && !found; ++last) {
      const int64_t total = partial + last * last;
      found = total % divisor == 0 && (total / divisor) % 2 == 1 &&
              BitLength(static_cast<uint64_t>(total / divisor)) == p + 1;
      a.back() = last;
    }
  }
  // The midpoint's binade e = p + scale, within the type's normal range; j and k split the
  // gradient's scale.
  const int e =
      format.min_exponent +
      static_cast<int>(rng() % static_cast<uint64_t>(format.max_exponent - format.min_exponent));
  int j = 0, k = 0;
  if (loss) {
    j = (e - p) / 2;
  } else {
    j = std::max(-120, std::min(100, (e - p - 1) / 2));
    k = e - p - 1 - j;
  }
  const auto scaled = [](int64_t v, int exponent) {
    return static_cast<float>(std::ldexp(static_cast<double>(v), exponent));
  };
  std::vector<ElementInputs> elements(count);
  for (int i = 0; i < count; ++i) {
    ElementInputs& in = elements[i];
    const int64_t magnitude = a[i] < 0 ? -a[i] : a[i];
    const int bits = BitLength(static_cast<uint64_t>(magnitude) | 1);
    if (bits > 24) {
      const int64_t top = a[i] / (int64_t{1} << (bits - 24)) * (int64_t{1} << (bits - 24));
      in.x = scaled(top, j), in.t = scaled(top - a[i], j);
    } else {
      const int64_t t = i > 0 ? static_cast<int64_t>(rng() % 4096) - 2048 : 0;
      in.x = scaled(a[i] + t, j), in.t = scaled(t, j);
    }
    in.g = scaled(big_g[i], k);
  }
  if (beside) {
    const int low = std::max(-149, j - 100), high = std::max(low, j - 60);
    const float tiny = std::ldexp(1.0f, low + static_cast<int>(rng() % (high - low + 1)));
    elements.front().t = Coin(rng) ? tiny : -tiny;
  }
  return elements;
}

TEST(MseLossSums, TotalsOnAndBesideMidpointsRoundExactly) {
  std::mt19937_64 rng(71);
  for (const LossKind kind : kKinds) {
    for (const FloatType type : kTypes) {
      for (const bool beside : {false, true}) {
        Outcome outcome;
        for (const int count : {3, 5, 7}) {
          for (const bool mean : {true, false}) {
            for (int trial = 0; trial < 200 / kSampleScale; ++trial) {
              CheckTotal(outcome, kind, MidpointSet(rng, kind, type, count, mean, beside), mean,
                         type);
            }
          }
        }
        const std::string what = std::string(beside ? "beside midpoints, " : "midpoints, ") +
                                 KindName(kind) + ", " + TypeName(type);
        std::cout << what << ": " << outcome.count << " totals, " << outcome.fp64_settled
                  << " settled by the fp64 pass, " << outcome.wrong << " wrong\n";
        EXPECT_EQ(outcome.wrong, 0) << what << ": first " << outcome.first_wrong;
        EXPECT_EQ(outcome.fp64_wrong, 0) << what;
        // An exact midpoint never settles; one beside it, closer than fp64 can tell, neither.
        EXPECT_EQ(outcome.fp64_settled, 0) << what;
      }
    }
  }
}

// A sum whose every part counts: x = a, t = 2^-61 (a difference fp64 cannot hold: a - 2^-61 =
// hi + lo with lo = -2^-61), whose square is a^2 - 2 a 2^-61 + 2^-122, with elements whose squares
// add up to 2 a 2^-61 (a = u^2 + v^2: d = u 2^-30 and v 2^-30), so the total is a^2 + 2^-122, next
// to the midpoint a^2 (a^2 of precision + 1 odd bits) by lo^2 alone; rounded up, where the tie
// would go down to even (an odd square is 1 mod 8).
TEST(MseLossSums, TheSquareOfTheDifferencesRestCounts) {
  struct Case {
    FloatType type;
    int64_t a, u, v;
    double expected;
  };
  const Case cases[] = {
      {FloatType::kFloat32, 4225, 65, 0, 17850626.0},  // 4225^2 = 17850625
      {FloatType::kFloat16, 49, 7, 0, 2402.0},         // 49^2 = 2401
      {FloatType::kBFloat16, 17, 4, 1, 290.0},         // 17^2 = 289
  };
  for (const Case& c : cases) {
    std::vector<ElementInputs> elements(3);
    elements[0].x = static_cast<float>(c.a), elements[0].t = 0x1p-61f;
    elements[1].x = static_cast<float>(std::ldexp(static_cast<double>(c.u), -30));
    elements[2].x = static_cast<float>(std::ldexp(static_cast<double>(c.v), -30));
    Outcome outcome;
    CheckTotal(outcome, LossKind::kLoss, elements, false, c.type);
    EXPECT_EQ(outcome.wrong, 0) << TypeName(c.type);
    EXPECT_EQ(outcome.fp64_settled, 0) << TypeName(c.type);
    math::exact::ExactSum sum;
    for (const ElementInputs& in : elements) {
      MseLossFamily::AddExactTerm(LossKind::kLoss, DividedBy(1), in, sum);
    }
    EXPECT_EQ(RoundOnce(sum.RoundedToOdd(), c.type), RoundOnce(c.expected, c.type))
        << TypeName(c.type);
  }
}

// Random sets of 1 to 40 elements from every distribution (sums of either sign for the gradient,
// inexact fp64 differences, results beyond the type's range), mean and sum.
TEST(MseLossSums, RandomTotalsRoundExactly) {
  std::mt19937_64 rng(73);
  for (const LossKind kind : kKinds) {
    for (const FloatType type : kTypes) {
      Outcome outcome;
      for (int trial = 0; trial < 3000 / kSampleScale; ++trial) {
        const Distribution distribution = kDistributions[trial % std::size(kDistributions)];
        std::vector<ElementInputs> elements(1 + rng() % 40);
        for (ElementInputs& in : elements)
          in = RandomInputs(rng, distribution, FloatType::kFloat16);
        CheckTotal(outcome, kind, elements, trial % 2 == 0, type);
      }
      const std::string what =
          std::string("random totals, ") + KindName(kind) + ", " + TypeName(type);
      std::cout << what << ": " << outcome.count << " totals, " << outcome.fp64_settled
                << " settled by the fp64 pass, " << outcome.wrong << " wrong\n";
      EXPECT_EQ(outcome.wrong, 0) << what << ": first " << outcome.first_wrong;
      EXPECT_EQ(outcome.fp64_wrong, 0) << what;
      EXPECT_GT(outcome.fp64_settled, outcome.count * 9 / 10) << what;
    }
  }
}

}  // namespace
}  // namespace openaclnn::mse_test
