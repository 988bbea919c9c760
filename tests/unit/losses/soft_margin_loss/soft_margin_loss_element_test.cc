// One element of the soft margin family (SoftMarginLossFamily::Element), the loss and the
// gradient, against the binary128 oracle (soft_margin_loss_oracle.h) and, where the value is
// rational, exact GMP rationals: every kind, output type and divisor on random inputs of several
// distributions, every estimate within its bound, results built on and one unit beside a
// midpoint (the rational part exactly on it and the transcendental rest deciding; the gradient
// at z = 0, rational, exactly on it), results at the edges of each type's range, zeros and their
// signs, subnormal, largest, infinite and NaN inputs; and the rounding test settling only what the
// bound decides.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "kernels/rounded_element.h"
#include "losses/soft_margin_loss/soft_margin_loss_family.h"
#include "soft_margin_loss_oracle.h"

namespace openaclnn::soft_margin_test {
namespace {

using Family = SoftMarginLossFamily;

struct Tally {
  int64_t count = 0, wrong = 0, open = 0;
  double worst_ulp = 0;
};

uint32_t Bits(float v) { return BitCast<uint32_t>(v); }

std::string Describe(LossKind kind, const ElementInputs& in, int64_t d, FloatType type) {
  char text[200];
  std::snprintf(text, sizeof text, "%s %s d=%lld x=%a t=%a g=%a", KindName(kind), TypeName(type),
                static_cast<long long>(d), in.x, in.t, in.g);
  return text;
}

// One element against `want` (a double whose rounding to `type` is the answer), counting those
// the estimate leaves open (the exact path). `quotient`: the oracle's term / d.
void Check(Tally& tally, LossKind kind, const ElementInputs& in, int64_t d, FloatType type,
           double want, Exact quotient) {
  const ElementParameters p = DividedBy(d);
  const float got = Family::Element(kind, p, in, type);
  double settled = 0;
  if (!SettledIn(SoftMarginEstimate(kind, p.scale, in), type, &settled)) ++tally.open;
  ++tally.count;
  if (Bits(got) != Bits(RoundedTo(want, type))) {
    ++tally.wrong;
    tally.worst_ulp = std::max(tally.worst_ulp, UlpError(got, quotient, type));
    if (tally.wrong <= 5) {
      std::cout << "  wrong: " << Describe(kind, in, d, type) << " got " << std::hexfloat << got
                << " want " << RoundedTo(want, type) << std::defaultfloat << "\n";
    }
  }
}

// The oracle's term / d and its rounding to `type`: the answer Check compares with.
void CheckAgainst(Tally& tally, LossKind kind, const ElementInputs& in, int64_t d, FloatType type,
                  Exact exact) {
  Check(tally, kind, in, d, type, Want(exact, d, type), QuotientWithRemainder(exact, d));
}

void Report(const Tally& tally, const std::string& what) {
  std::cout << what << ": " << tally.count << " results, " << tally.open << " to the exact path ("
            << 100.0 * static_cast<double>(tally.open) / static_cast<double>(tally.count)
            << "%), wrong " << tally.wrong << " (worst " << tally.worst_ulp << " ulp)\n";
  EXPECT_EQ(tally.wrong, 0) << what;
}

// Every kind, divisor and type of one input with finite values: each result against the oracle,
// and each estimate (divided by d) within its bound.
void CheckEverywhere(Tally& tally, const ElementInputs& in) {
  const OracleTerms terms = Oracle(in);
  for (const LossKind kind : kKinds) {
    const Exact exact = kind == LossKind::kLoss ? terms.loss : terms.grad;
    for (const int64_t d : kDivisors) {
      const ElementEstimate estimate = SoftMarginEstimate(kind, DividedBy(d).scale, in);
      const Exact quotient = QuotientWithRemainder(exact, d);
      const Quad error = Abs((static_cast<Quad>(estimate.value) - quotient.hi) - quotient.lo);
      ASSERT_LE(error, static_cast<Quad>(estimate.bound)) << Describe(kind, in, d, kTypes[0]);
      ASSERT_GE(estimate.bound, math::kSoftMarginError64 * std::fabs(estimate.value));
      const bool zero = exact.hi == 0 && exact.lo == 0;
      for (const FloatType type : kTypes) {
        Check(tally, kind, in, d, type,
              zero ? static_cast<double>(exact.hi) : RoundedOnce(quotient, type), quotient);
      }
    }
  }
}

// ---- Random inputs.

TEST(SoftMarginElement, RandomInputsAreCorrectlyRounded) {
  std::mt19937 rng(20261207);
  for (const Distribution distribution : kDistributions) {
    Tally tally;
    for (int64_t i = 0; i < 5000 / kSampleScale; ++i) {
      CheckEverywhere(tally, RandomInput(rng, distribution));
      if (HasFatalFailure()) return;
    }
    Report(tally, std::string("random, ") + DistributionName(distribution));
  }
}

// ---- Built on and next to a midpoint.

// Inputs whose rational part, divided by d, is a midpoint M = m 2^q of `type` (r = 0) or one unit
// of the product below or above it (r = -1, +1), M normal or (subnormal) on the subnormal grid:
//   loss       x t = -(a b) 2^K, |z| >= 40: l / d = M + r 2^K / d + log1p(e^-|z|) / d;
//   gradient   t g = a b 2^K with z = x t <= -40: |g'| = M + r 2^K / d - (t g / d) sigmoid(z);
//   gradient   x = +-0: g' = -(t g) / (2 d), rational (a tie when r = 0).
// `which` selects the case (0, 1, 2 as listed). Returns false where nothing fits.
bool BuildInput(std::mt19937_64& rng, FloatType type, int64_t d, int r, int which, bool subnormal,
                ElementInputs* in) {
  const Format format = FormatOf(type);
  const int precision = format.precision;
  const uint64_t m_low = subnormal ? 1 : uint64_t{1} << precision;
  const uint64_t m_high = subnormal ? uint64_t{1} << precision : uint64_t{1} << (precision + 1);
  const Product product = ProductNearMidpoint(rng, OddPart(d), r, m_low, m_high);
  if (!product.found) return false;
  // M = m 2^q: in [2^E, 2^(E+1)) for a normal E, or on the subnormal grid (spacing 2^(q + 1)).
  int q = format.min_exponent - precision;
  if (!subnormal) {
    int lowest = format.min_exponent;
    if (which == 0) {  // |z| = M d >= 40
      lowest =
          std::max(lowest, static_cast<int>(std::ceil(std::log2(40.0 / static_cast<double>(d)))));
    }
    if (lowest > format.max_exponent) return false;
    q = lowest + static_cast<int>(rng() % static_cast<uint64_t>(format.max_exponent - lowest + 1)) -
        precision;
  }
  // a b 2^K / d = (m D 2^s + r) 2^K / (D 2^e2): K = q - s + e2 (and one more at x = 0).
  const int K = q - product.s + TwoPower(d) + (which == 2 ? 1 : 0);
  const int first = K / 2, second = K - first;
  const auto a = static_cast<float>(std::ldexp(static_cast<double>(product.a), first));
  const auto b = static_cast<float>(std::ldexp(static_cast<double>(product.b), second));
  if (!(std::fabs(a) >= 0x1p-126f && std::fabs(b) >= 0x1p-126f && std::isfinite(a) &&
        std::isfinite(b))) {
    return false;
  }
  const float sign_a = rng() % 2 ? -1.0f : 1.0f, sign_b = rng() % 2 ? -1.0f : 1.0f;
  switch (which) {
    case 0: {  // x t = -(a b) 2^K
      const bool swap = rng() % 2;
      *in = {swap ? -sign_a * b : sign_a * a, swap ? sign_a * a : -sign_a * b, 1, 1, 1};
      if (std::fabs(static_cast<double>(in->x) * in->t) < 40) return false;
      return true;
    }
    case 1: {  // t g = +-(a b) 2^K, |z| in [40, 1000]
      const double magnitude = 40 + static_cast<double>(rng() % 960);
      const auto x = static_cast<float>(-static_cast<double>(sign_a) * magnitude / std::fabs(a));
      if (!std::isfinite(x) || x == 0.0f) return false;
      *in = {x, sign_a * a, 1, 1, sign_b * b};
      return static_cast<double>(in->x) * in->t <= -40;
    }
    default:
      *in = {rng() % 2 ? 0.0f : -0.0f, sign_a * a, 1, 1, sign_b * b};
      return true;
  }
}

// The gradient at x = 0 as an exact rational: -(t g) / (2 d), rounded by GMP.
double RationalGradientAtZero(const ElementInputs& in, int64_t d, FloatType type) {
  const mpq_class value =
      -Rational(in.t) * Rational(in.g) / (mpq_class(2) * mpq_class(static_cast<double>(d)));
  return RoundRational(value, type);
}

TEST(SoftMarginElement, ResultsOnAndBesideAMidpointAreRoundedTheRightWay) {
  std::mt19937_64 rng(41);
  const char* names[] = {"loss, x t on M d", "gradient, t g on M d", "gradient at x = 0"};
  for (const FloatType type : kTypes) {
    for (int which = 0; which < 3; ++which) {
      for (const int r : {0, -1, 1}) {
        Tally tally;
        int64_t rational_checked = 0;
        for (const int64_t d : kDivisors) {
          for (int i = 0; i < 60 / static_cast<int>(std::min<int64_t>(kSampleScale, 3)); ++i) {
            ElementInputs in;
            if (!BuildInput(rng, type, d, r, which, i % 4 == 3, &in)) continue;
            const LossKind kind = which == 0 ? LossKind::kLoss : LossKind::kGradSelf;
            const Exact exact = OracleOf(kind, in);
            const double want = Want(exact, d, type);
            Check(tally, kind, in, d, type, want, QuotientWithRemainder(exact, d));
            if (which == 2) {
              ASSERT_EQ(Bits(RoundedTo(want, type)),
                        Bits(RoundedTo(RationalGradientAtZero(in, d, type), type)))
                  << Describe(kind, in, d, type);
              ++rational_checked;
            }
          }
        }
        const std::string what =
            std::string(names[which]) + ", r = " + std::to_string(r) + ", " + TypeName(type);
        Report(tally, what);
        EXPECT_GT(tally.count, 100) << what;
        if (which == 2) {
          EXPECT_EQ(rational_checked, tally.count);
        }
        // On the midpoint no estimate can decide: the exact path must.
        if (r == 0) {
          EXPECT_GT(tally.open, tally.count * 9 / 10) << what;
        }
      }
    }
  }
}

// ---- Edges of the types' ranges: results near the largest finite value and the overflow
// threshold, the least normal, the least subnormal and half of it. The loss: for a large term
// (l / d there, d l >= 40) z = -l, else z = -ln(expm1(l)) > 0; the gradient: t g = -+ l d with
// z = -64, or 2 l d at x = 0; x or g nudged by a unit either way.
TEST(SoftMarginElement, ResultsAtTheEdgesOfTheRangesAreCorrectlyRounded) {
  std::mt19937 rng(43);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::pair<FloatType, double> edges[] = {
      {FloatType::kFloat32, 0x1.fffffep127}, {FloatType::kFloat32, 0x1.ffffffp127},
      {FloatType::kFloat32, 0x1p-126},       {FloatType::kFloat32, 0x1p-149},
      {FloatType::kFloat32, 0x1p-150},       {FloatType::kFloat16, 65504.0},
      {FloatType::kFloat16, 65520.0},        {FloatType::kFloat16, 0x1p-14},
      {FloatType::kFloat16, 0x1p-24},        {FloatType::kFloat16, 0x1p-25},
      {FloatType::kBFloat16, 0x1.fep127},    {FloatType::kBFloat16, 0x1.ffp127},
      {FloatType::kBFloat16, 0x1p-133},      {FloatType::kBFloat16, 0x1p-134}};
  Tally tally;
  for (const auto& [type, edge] : edges) {
    for (const int64_t d : kDivisors) {
      for (int i = 0; i < 24; ++i) {
        const double term = edge * (1 + (unit(rng) - 0.5) * 0x1p-20) * static_cast<double>(d);
        const float t = std::ldexp(1.0f, static_cast<int>(rng() % 40) - 20) * (i % 2 ? 1 : -1);
        const float away = rng() % 2 ? INFINITY : 0.0f;
        const double z = term >= 40 ? -term : -std::log(std::expm1(term));
        const ElementInputs loss{std::nextafter(static_cast<float>(z / t), away), t, 1, 1, 1};
        const bool at_zero = i % 4 >= 2;
        const ElementInputs gradient{
            at_zero ? 0.0f : -64.0f / t, t, 1, 1,
            std::nextafter(static_cast<float>((i % 3 ? 1 : -1) * term * (at_zero ? 2 : 1) / t),
                           away)};
        for (const auto& [kind, in] :
             {std::pair{LossKind::kLoss, loss}, std::pair{LossKind::kGradSelf, gradient}}) {
          if (!std::isfinite(in.x) || !std::isfinite(in.g) || in.g == 0.0f) continue;
          const Exact exact = OracleOf(kind, in);
          CheckAgainst(tally, kind, in, d, type, exact);
        }
      }
    }
  }
  Report(tally, "edges of the ranges");
  EXPECT_GT(tally.count, 4000);
}

// ---- Special values: every combination of zeros, subnormals, normals, the largest finite
// values, infinities and NaN for x, t and g.

// The class the contract gives an element with an input that is not finite, from z = x t and
// t g in binary128 (inf * 0 is NaN): the loss NaN, +0 (z = +inf) or +inf (z = -inf); the gradient
// -(t g) sigmoid(-z) with sigmoid 0 at z = +inf, 1 at z = -inf, positive elsewhere.
bool Infinite(Quad v) { return v == v && v != 0 && v == v * 2; }
double ExpectedClass(LossKind kind, const ElementInputs& in, int64_t d, FloatType type) {
  const Quad z = static_cast<Quad>(in.x) * in.t;
  const Quad coef = -(static_cast<Quad>(in.t) * in.g);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (z != z) return nan;
  if (kind == LossKind::kLoss) return z < 0 ? HUGE_VAL : 0.0;
  if (z > 0 && Infinite(z))
    return Infinite(coef) || coef != coef ? nan : static_cast<double>(coef * 0);
  if (coef != coef) return nan;
  if (Infinite(coef)) return coef > 0 ? HUGE_VAL : -HUGE_VAL;
  return Want({coef, 0}, d, type);  // z = -inf with finite t g: -(t g) / d
}

TEST(SoftMarginElement, SpecialValuesTakeTheirClasses) {
  const float inf = INFINITY, nan = NAN, big = 0x1.fffffep127f;
  const float specials[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, 0x1p-126f, -0.5f,
                            1.0f, -3.0f, 88.75f,    -104.0f,    1000.0f,          big,       -big,
                            inf,  -inf,  nan};
  Tally finite;
  int64_t classes = 0;
  for (const float x : specials) {
    for (const float t : specials) {
      for (const float g : specials) {
        const ElementInputs in{x, t, 1, 1, g};
        for (const LossKind kind : kKinds) {
          if (kind == LossKind::kLoss && g != 1.0f) continue;  // the loss reads no g
          const ElementInputs used = kind == LossKind::kLoss ? ElementInputs{x, t, 1, 1, 1} : in;
          const bool finite_inputs =
              std::isfinite(x) && std::isfinite(t) && (kind == LossKind::kLoss || std::isfinite(g));
          const Exact exact = finite_inputs ? OracleOf(kind, used) : Exact{};
          for (const int64_t d : kDivisors) {
            for (const FloatType type : kTypes) {
              if (finite_inputs) {
                CheckAgainst(finite, kind, used, d, type, exact);
                continue;
              }
              const float got = Family::Element(kind, DividedBy(d), used, type);
              const double want = ExpectedClass(kind, used, d, type);
              ++classes;
              ASSERT_EQ(RoundOnce(got, type), RoundOnce(want, type))
                  << Describe(kind, used, d, type) << " got " << got << " want " << want;
              const ElementEstimate term = Family::Term(kind, DividedBy(d), used, false, false);
              ASSERT_TRUE(std::isnan(term.bound));
            }
          }
        }
      }
    }
  }
  Report(finite, "special finite inputs");
  std::cout << classes << " results of inputs not all finite, each of its class\n";
}

// Zeros and their signs, and the facts the contract states.
TEST(SoftMarginElement, ZerosHaveTheirSignsAndTheDocumentedValuesHold) {
  const auto element = [](LossKind kind, ElementInputs in, FloatType type = FloatType::kFloat32,
                          int64_t d = 1) { return Family::Element(kind, DividedBy(d), in, type); };
  const auto is = [](float v, float want) { return Bits(v) == Bits(want); };
  for (const FloatType type : kTypes) {
    // The gradient's exact zeros: the sign of -(t g).
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {1.0f, 0.0f, 1, 1, 1.0f}, type), -0.0f));
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {1.0f, -0.0f, 1, 1, 1.0f}, type), 0.0f));
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {1.0f, 0.0f, 1, 1, -1.0f}, type), 0.0f));
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {1.0f, 2.0f, 1, 1, 0.0f}, type), -0.0f));
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {1.0f, 2.0f, 1, 1, -0.0f}, type), 0.0f));
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {-0.0f, 0.0f, 1, 1, 3.0f}, type), -0.0f));
    // A nonzero gradient that rounds to zero keeps its sign; a loss that does is +0.
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {200.0f, 1.0f, 1, 1, 1.0f}, type), -0.0f));
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {200.0f, -1.0f, 1, 1, 1.0f}, type), 1.0f));
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {-200.0f, -1.0f, 1, 1, 1.0f}, type), 0.0f));
    EXPECT_TRUE(is(element(LossKind::kLoss, {200.0f, 1.0f, 1, 1, 1}, type), 0.0f));
    EXPECT_TRUE(
        is(element(LossKind::kLoss, {0x1.fffffep127f, 0x1.fffffep127f, 1, 1, 1}, type), 0.0f));
    // D7: x = -100, t = 1 is 100 (torch 1.13 gives inf); the gradient there and far beyond
    // CANN's exp overflow (z < -88.7) is -1, not NaN.
    EXPECT_EQ(element(LossKind::kLoss, {-100.0f, 1.0f, 1, 1, 1}, type), 100.0f);
    EXPECT_EQ(element(LossKind::kGradSelf, {-100.0f, 1.0f, 1, 1, 1.0f}, type), -1.0f);
    EXPECT_EQ(element(LossKind::kGradSelf, {-1e30f, 1.0f, 1, 1, 1.0f}, type), -1.0f);
    // t = 0: log 2 and -0 * g / 2.
    EXPECT_EQ(element(LossKind::kLoss, {5.0f, 0.0f, 1, 1, 1}, type),
              RoundedTo(0.6931471805599453, type));
    // z = -inf: the loss +inf, the gradient -(t g) / d; z = +inf: +0 and the zero of -(t g).
    EXPECT_EQ(element(LossKind::kLoss, {-INFINITY, 2.0f, 1, 1, 1}, type), INFINITY);
    EXPECT_TRUE(is(element(LossKind::kLoss, {INFINITY, 2.0f, 1, 1, 1}, type), 0.0f));
    EXPECT_EQ(element(LossKind::kGradSelf, {-INFINITY, 2.0f, 1, 1, 3.0f}, type, 3), -2.0f);
    EXPECT_TRUE(is(element(LossKind::kGradSelf, {INFINITY, 2.0f, 1, 1, 3.0f}, type), -0.0f));
    EXPECT_TRUE(std::isnan(element(LossKind::kGradSelf, {1.0f, INFINITY, 1, 1, 3.0f}, type)));
    EXPECT_EQ(element(LossKind::kGradSelf, {-1.0f, INFINITY, 1, 1, 3.0f}, type), -INFINITY);
  }
}

// The shortcut a SIMD tile may take: z >= 104 makes the loss +0 in every type for every divisor
// (l < e^-z <= 2^-150.04, below half of fp32's least subnormal), and just below, with d = 1, it
// is not.
TEST(SoftMarginElement, LossesBeyondZ104RoundToPlusZero) {
  std::mt19937 rng(47);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 2000; ++i) {
    const float t = LogUniform(rng, -4, 4);
    const double z = 104.0 * std::exp2(20 * unit(rng) * unit(rng));
    auto x = static_cast<float>(z / t);
    while (static_cast<double>(x) * t < 104.0) x = std::nextafter(x, t > 0 ? INFINITY : -INFINITY);
    for (const int64_t d : kDivisors) {
      for (const FloatType type : kTypes) {
        ASSERT_EQ(Bits(Family::Element(LossKind::kLoss, DividedBy(d), {x, t, 1, 1, 1}, type)), 0u)
            << Describe(LossKind::kLoss, {x, t, 1, 1, 1}, d, type);
      }
    }
  }
  EXPECT_EQ(
      Family::Element(LossKind::kLoss, DividedBy(1), {103.9f, 1.0f, 1, 1, 1}, FloatType::kFloat32),
      0x1p-149f);
}

// ---- The rounding test: an estimate settles only where every value within its bound (less the
// rounding of the interval's ends, 2^-52 of v, which the budget's margin covers: the estimates'
// errors are below 2^-45) rounds alike (checked in binary128 at both ends), at every distance
// around its reach (2^10 fp64 ulps: kSoftMarginError64 is 2^-43) from midpoints of each type, of
// either sign, in binades from the least normal to the greatest and on fp16's subnormal grid; and
// it settles those beyond twice the reach. A floored estimate (bound = |v|, far below every type's
// least value) settles as the zero of its sign.
TEST(SoftMarginElement, TheRoundingTestSettlesOnlyWhatTheBoundDecides) {
  std::mt19937 rng(53);
  const int64_t reach = int64_t{1} << 10;
  for (const FloatType type : kTypes) {
    const Format format = FormatOf(type);
    std::vector<std::pair<double, bool>> values;  // and whether beyond twice the reach
    for (const int exponent : {format.min_exponent, format.min_exponent + 1, -1, 0, 1,
                               format.max_exponent - 1, format.max_exponent}) {
      for (int k = 0; k < 8; ++k) {
        const uint64_t mantissa = rng() % ((uint64_t{1} << (format.precision - 1)) - 1);
        const double boundary = std::ldexp(
            1.0 + (static_cast<double>(mantissa) + 0.5) * std::ldexp(1.0, 1 - format.precision),
            exponent);
        const double ulp = std::ldexp(1.0, exponent - 52);
        for (const int64_t distance :
             {int64_t{0}, int64_t{1}, reach / 2, reach - 1, reach, reach + 1, 2 * reach - 1,
              2 * reach, 2 * reach + 1, 2 * reach + 2, 3 * reach, 8 * reach}) {
          for (const int sign : {-1, 1}) {
            values.push_back(
                {boundary + sign * static_cast<double>(distance) * ulp, distance > 2 * reach + 1});
          }
        }
      }
    }
    if (type == FloatType::kFloat16) {
      for (int k = 0; k < 16; ++k) {
        const double boundary = (static_cast<double>(rng() % 1023) + 0.5) * 0x1p-24;
        const double ulp = std::ldexp(1.0, std::ilogb(boundary) - 52);
        for (const int64_t distance : {int64_t{0}, reach - 1, reach + 1, 4 * reach}) {
          values.push_back({boundary + static_cast<double>(distance) * ulp, distance > 3 * reach});
        }
      }
    }
    int64_t settled_count = 0;
    for (const auto& [magnitude, beyond] : values) {
      for (const double value : {magnitude, -magnitude}) {
        const ElementEstimate estimate{value, std::fabs(value) * math::kSoftMarginError64};
        double settled = 0;
        if (!SettledIn(estimate, type, &settled)) {
          EXPECT_FALSE(beyond) << TypeName(type) << " " << std::hexfloat << value;
          continue;
        }
        ++settled_count;
        // The interval's ends are rounded in fp64 (2^-53 of v each), which the bound's margin
        // pays for: every value within the bound less that settles alike.
        const Quad bound = Abs(static_cast<Quad>(value)) * (math::kSoftMarginError64 - 0x1p-52);
        for (const Quad end :
             {static_cast<Quad>(value) - bound, static_cast<Quad>(value) + bound}) {
          ASSERT_EQ(Bits(static_cast<float>(RoundedOnce({end, 0}, type))),
                    Bits(RoundedTo(settled, type)))
              << TypeName(type) << " " << std::hexfloat << value;
        }
      }
    }
    EXPECT_GT(settled_count, static_cast<int64_t>(values.size()) / 2) << TypeName(type);
    for (const double floored : {0x1p-700, -0x1p-700, 0x1p-961, -0x1p-400}) {
      double settled = 1;
      ASSERT_TRUE(SettledIn({floored, std::fabs(floored)}, type, &settled));
      EXPECT_EQ(Bits(RoundedTo(settled, type)),
                Bits(std::copysign(0.0f, static_cast<float>(floored))));
    }
  }
}

}  // namespace
}  // namespace openaclnn::soft_margin_test
