// The smooth L1 family's elements (SmoothL1LossFamily::Element): every kind, output type, divisor
// and attribute (smooth L1's beta, Huber's delta) correctly rounded, against the exact GMP oracle
// (smooth_l1_loss_oracle.h), on random inputs, on inputs built on and next to rounding boundaries
// (ties of each branch, |d| at the branch edge), at the edges of each type's range, and the
// contract's zero signs and classes of non-finite inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "smooth_l1_loss_oracle.h"

namespace openaclnn {
namespace {

TEST(SmoothL1Element, RandomResultsAreCorrectlyRounded) {
  std::mt19937 rng(37);
  for (FloatType type : kTypes) {
    Tally total;
    for (const Attribute& a : kAttributes) {
      for (int64_t divisor : kDivisors) {
        const ElementParameters p = DividedBy(divisor, a.parameter, a.variant);
        for (LossKind kind : kKinds) {
          Tally tally;
          for (int i = 0; i < 120 / kScale; ++i) {
            Check(tally, kind, p, RandomInputs(rng, a, type, i), type);
          }
          EXPECT_EQ(tally.wrong, 0) << tally.first_wrong;
          total.Add(tally);
        }
      }
    }
    ExpectEveryResultRounded(total, std::string("random, ") + Name(type));
  }
}

TEST(SmoothL1Element, ResultsOnAndNextToMidpointsAreCorrectlyRounded) {
  std::mt19937 rng(1037);
  for (bool beside : {false, true}) {
    for (FloatType type : kTypes) {
      Tally total;
      int64_t built = 0;
      for (const Attribute& a : kAttributes) {
        for (int64_t divisor : kDivisors) {
          const ElementParameters p = DividedBy(divisor, a.parameter, a.variant);
          for (LossKind kind : kKinds) {
            Tally tally;
            for (int i = 0; i < 40 / kScale; ++i) {
              std::optional<ElementInputs> in = OnMidpoint(rng, kind, a, divisor, type);
              if (!in) continue;
              ++built;
              Check(tally, kind, p, beside ? Beside(rng, kind, *in) : *in, type);
            }
            EXPECT_EQ(tally.wrong, 0) << tally.first_wrong;
            total.Add(tally);
          }
        }
      }
      ExpectEveryResultRounded(
          total, std::string(beside ? "beside midpoints, " : "on midpoints, ") + Name(type));
      EXPECT_GT(built, 2000 / kScale) << Name(type);
      // The built inputs must leave the estimate open, or this tests nothing.
      EXPECT_GT(total.open, total.count / 3) << Name(type);
    }
  }
}

// |d| at the branch edge: exactly the parameter (smooth L1's beta, an fp32 value; Huber's delta
// where it splits into two fp32 values) and the neighbouring differences on either side (x moved by
// a few fp32 ulps, t by one, or t a tiny nonzero): both branches meet there (a loss of beta/2 or
// delta^2/2, a gradient of +-g or +-g delta), and the exact branch decides.
TEST(SmoothL1Element, DifferencesAtTheBranchEdgeAreCorrectlyRounded) {
  std::mt19937 rng(7);
  Tally total;
  for (const Attribute& a : kAttributes) {
    if (!(a.parameter > 0 && a.parameter < 0x1p100)) continue;
    for (int64_t divisor : kDivisors) {
      const ElementParameters p = DividedBy(divisor, a.parameter, a.variant);
      for (int i = 0; i < 24 / kScale + 1; ++i) {
        // x - t = +-b: t random within a few b, x = t + b (or the split of b where t is 0).
        const mpq_class b = Rational(a.parameter);
        const float sign = Integer(rng, 0, 1) ? 1.0f : -1.0f;
        ElementInputs in{static_cast<float>(a.parameter), 0.0f, 1.0f, 1.0f,
                         static_cast<float>(Uniform(rng, -2, 2))};
        if (Rational(in.x) != b) {  // a delta of more than 24 bits: its two-fp32 split
          in.t = static_cast<float>(static_cast<double>(in.x) - a.parameter);
        } else if (i % 2) {
          const float t = static_cast<float>(Uniform(rng, -4, 4) * a.parameter);
          const float x = static_cast<float>(static_cast<double>(t) + a.parameter);
          if (Rational(x) - Rational(t) == b) in.x = x, in.t = t;
        }
        if (sign < 0) std::swap(in.x, in.t);
        for (int step = -3; step <= 3; ++step) {
          ElementInputs edge = in;
          if (step == -3 || step == 3) {
            edge.x = edge.x + (step < 0 ? -1 : 1) * std::fabs(edge.x) * 0x1p-22f;
          } else if (step != 0) {
            edge.t = edge.t == 0.0f ? step * 0x1p-149f
                                    : std::nextafter(edge.t, step < 0 ? -HUGE_VALF : HUGE_VALF);
          }
          for (FloatType type : kTypes) {
            for (LossKind kind : kKinds) Check(total, kind, p, edge, type);
          }
        }
      }
    }
  }
  ExpectEveryResultRounded(total, "at the branch edge");
  EXPECT_GT(total.count, 20000 / kScale);
}

// Where fl(x - t) equals the parameter b but the exact d lies 2^-149 inside it, the exact branch is
// the quadratic one: a gradient g d / b instead of g. With g / N (Huber: g b / N) exactly a
// midpoint of the type, the linear value would be a tie and round to even, the exact one rounds
// down: the branch must be decided on the exact d (SmoothL1DifferenceOf), not on fl(x - t).
TEST(SmoothL1Element, TheBranchIsDecidedOnTheExactDifference) {
  std::mt19937 rng(11);
  Tally total;
  int64_t down = 0;
  for (const Attribute& a : kAttributes) {
    const double b = a.parameter;
    if (!(b >= 0x1p-20 && b <= 0x1p20) || static_cast<double>(static_cast<float>(b)) != b) continue;
    if (a.variant == kHuberVariant && OddPart(b) != 1) continue;
    for (int64_t divisor : {int64_t{1}, int64_t{3}, int64_t{5}, int64_t{7}, int64_t{4096}}) {
      const ElementParameters p = DividedBy(divisor, b, a.variant);
      for (FloatType type : kTypes) {
        for (int i = 0; i < 20; ++i) {
          const double m = Midpoint(rng, type, Integer(rng, -10, 10));
          const double g = m * static_cast<double>(divisor) / (a.variant == kHuberVariant ? b : 1);
          if (static_cast<double>(static_cast<float>(g)) != g) continue;
          const float sign = Integer(rng, 0, 1) ? 1.0f : -1.0f;
          const ElementInputs in{sign * static_cast<float>(b), sign * 0x1p-149f, 1.0f, 1.0f,
                                 sign * static_cast<float>(g)};
          ASSERT_EQ(static_cast<double>(in.x) - in.t, sign * b);  // fl(x - t) = +-b
          for (LossKind kind : kKinds) Check(total, kind, p, in, type);
          const float linear = RoundedTo(m, type);
          const float got = SmoothL1LossFamily::Element(LossKind::kGradSelf, p, in, type);
          EXPECT_LE(std::fabs(got), linear) << Describe(a) << " " << Describe(in);
          down += std::fabs(got) < linear ? 1 : 0;
        }
      }
    }
  }
  ExpectEveryResultRounded(total, "fl(x - t) on the branch edge");
  EXPECT_GT(down, 100 / kScale);  // ties whose even neighbour is the upper one: rounded down
}

// Results at the edges of each type's range, each exactly on its rounding boundary (ties to even:
// the overflow threshold goes to inf, half the least subnormal to 0) and next to it; the expected
// values written out, and the oracle agreeing. Losses of beta = 0 (|d| / N) and of the linear
// branch of beta = 2^104; gradients g / N of the linear branch.
TEST(SmoothL1Element, RangeEdgesAndTheirTiesAreRoundedAsIeeeSays) {
  struct Case {
    FloatType type;
    LossKind kind;
    double beta;
    int64_t divisor;
    float x, t, g, expected;
  };
  const float max = 0x1.fffffep127f, tiny = 0x1p-149f;
  const LossKind loss = LossKind::kLoss, gradient = LossKind::kGradSelf;
  const Case cases[] = {
      // fp32: |d| = 2^128 - 2^103, the overflow threshold; one fp32 ulp of t either side.
      {FloatType::kFloat32, loss, 0.0, 1, max, -0x1p103f, 0, HUGE_VALF},
      {FloatType::kFloat32, loss, 0.0, 1, max, -0x1.fffffep102f, 0, max},
      {FloatType::kFloat32, loss, 0.0, 1, -max, 0x1p103f, 0, HUGE_VALF},
      // beta = 2^104: |d| - 2^103 with d = 2^128.
      {FloatType::kFloat32, loss, 0x1p104, 1, max, -0x1p104f, 0, HUGE_VALF},
      {FloatType::kFloat32, loss, 0x1p104, 1, max, -0x1.fffffep103f, 0, max},
      // fp32: 2^-150 (half the least subnormal) and 3 * 2^-150, over N = 2.
      {FloatType::kFloat32, loss, 0.0, 2, tiny, 0.0f, 0, 0.0f},
      {FloatType::kFloat32, loss, 0.0, 2, 3 * tiny, 0.0f, 0, 2 * tiny},
      {FloatType::kFloat32, gradient, 1.0, 2, 5.0f, 0.0f, tiny, 0.0f},
      {FloatType::kFloat32, gradient, 1.0, 2, -5.0f, 0.0f, tiny, -0.0f},
      {FloatType::kFloat32, gradient, 1.0, 2, 5.0f, 0.0f, 3 * tiny, 2 * tiny},
      // fp16: 65520 (the overflow threshold) and 2^-25 (half its least subnormal).
      {FloatType::kFloat16, loss, 0.0, 1, 65520.0f, 0.0f, 0, HUGE_VALF},
      {FloatType::kFloat16, loss, 0.0, 1, 65520.0f, tiny, 0, 65504.0f},
      {FloatType::kFloat16, loss, 0.0, 2, 0x1p-24f, 0.0f, 0, 0.0f},
      {FloatType::kFloat16, loss, 0.0, 2, 0x1p-24f, -tiny, 0, 0x1p-24f},
      {FloatType::kFloat16, gradient, 0.0, 3, 1.0f, 0.0f, 3 * 65520.0f, HUGE_VALF},
      {FloatType::kFloat16, gradient, 0.0, 3, -1.0f, 0.0f, 3 * 65520.0f, -HUGE_VALF},
      // bf16: 2^128 - 2^119 (its overflow threshold) and 2^-134.
      {FloatType::kBFloat16, loss, 0.0, 1, max, 0x1p119f - 0x1p104f, 0, HUGE_VALF},
      {FloatType::kBFloat16, loss, 0.0, 1, max, 0x1.000002p119f - 0x1p104f, 0, 0x1.fep127f},
      {FloatType::kBFloat16, loss, 0.0, 2, 0x1p-133f, 0.0f, 0, 0.0f},
      {FloatType::kBFloat16, loss, 0.0, 2, 0x1p-133f, -tiny, 0, 0x1p-133f},
  };
  for (const Case& c : cases) {
    const ElementParameters p = DividedBy(c.divisor, c.beta, kSmoothL1Variant);
    const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
    EXPECT_EQ(Bits(SmoothL1LossFamily::Element(c.kind, p, in, c.type)), Bits(c.expected))
        << Name(c.type) << " " << Name(c.kind) << " " << Describe(in);
    EXPECT_EQ(Bits(Expected(c.kind, p, in, c.type)), Bits(c.expected))
        << "oracle " << Name(c.type) << " " << Describe(in);
  }
}

// Zeros: a loss's is +0 (d = 0, beta = +inf, a value that rounds to zero); a gradient's has the
// sign of g times d's (d = -0 only for x = -0, t = +0; beta = 0 at d = 0: g sign(0) = g * +-0),
// the target gradient's the other one; Huber's tiny range the same signs.
TEST(SmoothL1Element, ZerosCarryTheContractsSigns) {
  struct Case {
    float x, t, g;
    bool negative;  // the self gradient's
  };
  const Case cases[] = {
      {0.3f, 0.3f, 1.0f, false},  {0.3f, 0.3f, -1.0f, true},   {-0.0f, 0.0f, 1.0f, true},
      {0.0f, -0.0f, 1.0f, false}, {-0.0f, -0.0f, 1.0f, false}, {-0.0f, 0.0f, -2.0f, false},
      {2.0f, 0.5f, -0.0f, true},  {2.0f, 0.5f, 0.0f, false},   {-2.0f, 0.5f, 0.0f, true},
      {0.25f, 0.5f, 0.0f, true},  {0.75f, 0.5f, -0.0f, true},
  };
  const Attribute attributes[] = {{kSmoothL1Variant, 1.0},      {kSmoothL1Variant, 0.0},
                                  {kSmoothL1Variant, HUGE_VAL}, {kHuberVariant, 1.0},
                                  {kHuberVariant, HUGE_VAL},    {kHuberVariant, 1e-300}};
  for (FloatType type : kTypes) {
    for (const Attribute& a : attributes) {
      for (int64_t divisor : {int64_t{1}, int64_t{3}}) {
        const ElementParameters p = DividedBy(divisor, a.parameter, a.variant);
        for (const Case& c : cases) {
          const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
          const std::string what = Describe(a) + " " + Describe(in) + " " + Name(type);
          const float self = SmoothL1LossFamily::Element(LossKind::kGradSelf, p, in, type);
          const float target = SmoothL1LossFamily::Element(LossKind::kGradTarget, p, in, type);
          const bool zero_gradient = c.g == 0.0f || c.x == c.t || InHuberTinyRange(p) ||
                                     (a.variant == kSmoothL1Variant && std::isinf(a.parameter));
          if (zero_gradient) {
            EXPECT_EQ(Bits(self), Bits(c.negative ? -0.0f : 0.0f)) << what;
            EXPECT_EQ(Bits(target), Bits(c.negative ? 0.0f : -0.0f)) << what;
          }
          EXPECT_EQ(Bits(self), Bits(Expected(LossKind::kGradSelf, p, in, type))) << what;
          EXPECT_EQ(Bits(target), Bits(Expected(LossKind::kGradTarget, p, in, type))) << what;
          const float loss = SmoothL1LossFamily::Element(LossKind::kLoss, p, in, type);
          if (c.x == c.t || InHuberTinyRange(p) ||
              (a.variant == kSmoothL1Variant && std::isinf(a.parameter))) {
            EXPECT_EQ(Bits(loss), 0u) << what;
          }
          EXPECT_EQ(Bits(loss), Bits(Expected(LossKind::kLoss, p, in, type))) << what;
        }
      }
    }
    // Nonzero values that round to zero keep their own sign (a tiny gradient over a large N).
    const ElementParameters p = DividedBy((int64_t{1} << 40) + 1, 1.0, kSmoothL1Variant);
    const ElementInputs in{0.5f, 0.5f + 0x1p-24f, 1.0f, 1.0f, 0x1p-120f};
    EXPECT_EQ(Bits(SmoothL1LossFamily::Element(LossKind::kGradSelf, p, in, type)), Bits(-0.0f));
    EXPECT_EQ(Bits(SmoothL1LossFamily::Element(LossKind::kGradTarget, p, in, type)), Bits(0.0f));
  }
}

// Inputs that are not finite: the class the formula gives (NaN canonical), and where a gradient's
// d is infinite with g finite, its linear branch, finite and correctly rounded.
TEST(SmoothL1Element, NonFiniteInputsTakeTheFormulasClass) {
  const float inf = HUGE_VALF, nan = std::nanf("");
  struct Case {
    Attribute a;
    LossKind kind;
    float x, t, g, expected;  // fp32, divisor 3
  };
  const LossKind loss = LossKind::kLoss, self = LossKind::kGradSelf;
  const LossKind target = LossKind::kGradTarget;
  const float third = 1.0f / 3;  // 2/3 and 1/3 in fp32
  const Attribute beta1{kSmoothL1Variant, 1.0}, beta0{kSmoothL1Variant, 0.0};
  const Attribute beta_inf{kSmoothL1Variant, HUGE_VAL}, delta2{kHuberVariant, 2.0};
  const Attribute delta_inf{kHuberVariant, HUGE_VAL}, delta_tiny{kHuberVariant, 1e-300};
  const Case cases[] = {
      {beta1, loss, inf, 0.5f, 1, inf},
      {beta1, loss, 0.5f, -inf, 1, inf},
      {beta1, loss, inf, inf, 1, nan},
      {beta1, loss, nan, 0.5f, 1, nan},
      {beta0, loss, -inf, 0.5f, 1, inf},
      {beta_inf, loss, inf, 0.5f, 1, nan},  // |d| - beta/2 = inf - inf
      {delta2, loss, inf, 0.5f, 1, inf},
      {delta_inf, loss, -inf, 0.5f, 1, nan},  // delta (inf - inf)
      {delta_tiny, loss, inf, 0.5f, 1, inf},
      {beta1, self, inf, 0.5f, 2.0f, 2 * third},
      {beta1, self, -inf, 0.5f, 2.0f, -2 * third},
      {beta1, target, inf, 0.5f, 2.0f, -2 * third},
      {beta_inf, self, inf, 0.5f, 1.0f, third},  // torch: d >= beta gives g
      {beta0, self, 0.5f, inf, 1.0f, -third},
      {delta2, self, inf, 0.5f, 1.0f, 2 * third},
      {delta2, self, inf, 0.5f, -0.0f, -0.0f},
      {delta_tiny, self, -inf, 0.5f, 1.0f, -0.0f},
      {delta_inf, self, inf, 0.5f, 1.0f, inf},
      {delta_inf, self, inf, 0.5f, 0.0f, nan},  // 0 * inf
      {beta1, self, 0.7f, 0.2f, inf, inf},
      {beta1, self, 0.2f, 0.7f, inf, -inf},
      {beta1, self, 0.2f, 0.2f, inf, nan},  // inf * 0
      {beta0, self, 0.2f, 0.2f, inf, nan},  // inf * sign(0)
      {beta0, self, 0.7f, 0.2f, -inf, -inf},
      {beta_inf, self, 0.7f, 0.2f, inf, nan},  // inf * d / inf
      {delta2, self, 0.7f, 0.2f, inf, inf},
      {delta_inf, self, 0.7f, 0.2f, -inf, -inf},
      {beta1, self, inf, -inf, 1.0f, third},
      {beta1, self, inf, inf, 1.0f, nan},
      {beta1, self, nan, 0.2f, 1.0f, nan},
      {beta1, self, 0.7f, 0.2f, nan, nan},
      {beta0, self, 0.7f, 0.7f, nan, nan},  // sign(NaN)... and NaN g: NaN
      {beta1, target, 0.7f, 0.2f, -nan, nan},
  };
  for (FloatType type : kTypes) {
    const float canonical_nan = RoundedTo(kCanonicalNaN, type);
    for (const Case& c : cases) {
      const ElementParameters p = DividedBy(3, c.a.parameter, c.a.variant);
      const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
      const float got = SmoothL1LossFamily::Element(c.kind, p, in, type);
      const float expected = std::isnan(c.expected) ? canonical_nan : RoundedTo(c.expected, type);
      const std::string what =
          Describe(c.a) + " " + Name(c.kind) + " " + Describe(in) + " " + Name(type);
      if (type == FloatType::kFloat32 || !std::isfinite(c.expected) || c.expected == 0) {
        EXPECT_EQ(Bits(got), Bits(expected)) << what;
      }
      EXPECT_EQ(Bits(got), Bits(Expected(c.kind, p, in, type))) << "oracle " << what;
    }
  }
}

// Huber's deltas at their ends: +inf (every finite d quadratic), 1e300 (a linear gradient of
// infinite d beyond every type's range, and beyond fp64's with a large g), the edge of the tiny
// range, and tiny deltas whose results are zeros.
TEST(SmoothL1Element, HubersExtremeDeltasAreCorrectlyRounded) {
  struct Case {
    double delta;
    LossKind kind;
    float x, t, g, expected;  // fp32, divisor 1
  };
  const float max = 0x1.fffffep127f;
  const Case cases[] = {
      {HUGE_VAL, LossKind::kLoss, max, -max, 1.0f, HUGE_VALF},  // 2^257
      {HUGE_VAL, LossKind::kLoss, 3.0f, 0.0f, 1.0f, 4.5f},
      {HUGE_VAL, LossKind::kGradSelf, max, 0.0f, 0.5f, 0x1.fffffep126f},
      {1e300, LossKind::kGradSelf, HUGE_VALF, 0.0f, 1e-30f, HUGE_VALF},
      {1e300, LossKind::kGradSelf, -HUGE_VALF, 0.0f, max, -HUGE_VALF},
      {1e300, LossKind::kGradSelf, HUGE_VALF, 0.0f, -0.0f, -0.0f},
      {0x1p-450, LossKind::kLoss, 1.0f, 0.0f, 1.0f, 0.0f},
      {0x1p-450, LossKind::kGradSelf, 1.0f, 0.0f, 0x1p127f, 0.0f},
      {0x1p-1074, LossKind::kGradSelf, -1.0f, 0.0f, 0x1p127f, -0.0f},
      {0x1p-1074, LossKind::kLoss, max, -max, 1.0f, 0.0f},
  };
  for (const Case& c : cases) {
    const ElementParameters p = DividedBy(1, c.delta, kHuberVariant);
    const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
    const float got = SmoothL1LossFamily::Element(c.kind, p, in, FloatType::kFloat32);
    EXPECT_EQ(Bits(got), Bits(c.expected)) << c.delta << " " << Describe(in);
    EXPECT_EQ(Bits(got), Bits(Expected(c.kind, p, in, FloatType::kFloat32))) << "oracle";
  }
}

}  // namespace
}  // namespace openaclnn
