// The smooth L1 family's estimates against the exact GMP oracle: every element estimate and every
// term estimate within its bound (kSmoothL1Error64 of its value, the worst error measured), a
// numerator's rest of 0 only where the numerator is exact (and the estimate, where the scale is
// exactly 1 / divisor), and the bit test a SIMD tile may use (the value
// farther than kSmoothL1Reach fp64 ulps from every rounding boundary) settling only what the
// interval test of that bound settles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <random>
#include <string>

#include "../../kernels/binary128_oracle.h"
#include "smooth_l1_loss_oracle.h"

namespace openaclnn {
namespace {

using O64 = math::ScalarOps64;

// The estimate of `kind` with constants k (gradOutput of the kind), its numerator and the rest.
ElementEstimate EstimateOf(LossKind kind, const math::SmoothL1Constants& k,
                           const ElementInputs& in) {
  if (kind == LossKind::kLoss) return math::SmoothL1Loss64<O64>(in.x, in.t, k);
  return math::SmoothL1Gradient64<O64>(in.x, in.t, KindG(kind, in.g), k);
}
double NumeratorOf(LossKind kind, const math::SmoothL1Constants& k, const ElementInputs& in) {
  if (kind == LossKind::kLoss) return math::SmoothL1LossParts64<O64>(in.x, in.t, k).numerator;
  return math::SmoothL1GradientParts64<O64>(in.x, in.t, KindG(kind, in.g), k).numerator;
}
double RestOf(LossKind kind, const math::SmoothL1Constants& k, const ElementInputs& in) {
  if (kind == LossKind::kLoss) return math::SmoothL1LossRest64<O64>(in.x, in.t, k);
  return math::SmoothL1GradientRest64<O64>(in.x, in.t, KindG(kind, in.g), k);
}
// Whether the branch's scale is exactly 1 / its divisor.
bool ScaleExact(const math::SmoothL1Constants& k, const ElementInputs& in) {
  const bool quadratic = std::fabs(static_cast<double>(in.x) - in.t) < k.threshold;
  return quadratic ? k.quadratic_exact : k.linear_exact;
}

// The term (not divided) in binary128, within 2^-110 of itself: d = x - t rounded once (2^-113),
// then at most four roundings, d's error at most doubled by |d| - b/2 (|d| >= b on that branch);
// a branch taken on the rounded d differs from the exact one by 2^-226 of the value. Exact where
// the fp64 estimate is (every step below is then exact in binary128's 113 bits).
Quad QuadTerm(LossKind kind, const Attribute& a, float x, float t, float g) {
  const Quad d = static_cast<Quad>(x) - static_cast<Quad>(t), magnitude = Abs(d);
  const Quad kind_g = KindG(kind, g), sign = d > 0 ? 1 : d < 0 ? -1 : 0;
  const bool huber = a.variant == kHuberVariant, loss = kind == LossKind::kLoss;
  if (std::isinf(a.parameter)) return huber ? (loss ? d * d / 2 : kind_g * d) : 0;
  const Quad b = a.parameter;
  const bool quadratic = magnitude < b;
  if (huber && loss) return quadratic ? d * d / 2 : b * (magnitude - b / 2);
  if (huber) return quadratic ? kind_g * d : kind_g * b * sign;
  if (loss) return quadratic ? d * d / (2 * b) : magnitude - b / 2;
  return quadratic ? kind_g * d / b : kind_g * sign;
}

// The numerator in binary128 (d^2, (|d| - b/2) times 1 or delta, g d, g sign(d) times 1 or delta),
// branch by branch on the exact d: exact wherever the fp64 one is (53-bit factors).
Quad QuadNumerator(LossKind kind, const Attribute& a, float x, float t, float g) {
  const Quad d = static_cast<Quad>(x) - static_cast<Quad>(t), magnitude = Abs(d);
  const Quad kind_g = KindG(kind, g), sign = d > 0 ? 1 : d < 0 ? -1 : 0;
  const bool huber = a.variant == kHuberVariant;
  const Quad b = a.parameter, factor = huber ? b : 1;
  const bool quadratic = a.parameter == 0 ? d == 0 : magnitude < b;
  if (kind == LossKind::kLoss) return quadratic ? d * d : (magnitude - b / 2) * factor;
  return quadratic ? kind_g * d : kind_g * sign * factor;
}

// |estimate - exact| <= bound for the element estimates (divided by N through fl64(1/N)) and the
// terms (not divided) of a million random inputs per kind, over every attribute outside Huber's
// tiny range (whose Term is 0 within kHuberTinyTermBound, checked too): against binary128 (its
// 2^-110 taken off the bound), and one sample in 64 against the exact GMP rationals; the worst
// error relative to the value, in units of 2^-53 (the budget's worst case is 7.001); every term's
// bound at least kTermError of its value; wherever the numerator's rest is 0, the numerator exact,
// and the estimate too where the branch's scale is exactly 1 / divisor.
TEST(SmoothL1Estimate, TheBoundHoldsOnEverySample) {
  std::mt19937 rng(64);
  const Quad kOracleError = static_cast<Quad>(0x1p-110);
  for (LossKind kind : kKinds) {
    double worst = 0;
    int64_t failures = 0, exact_numerators = 0, exact_estimates = 0, samples = 0, rational = 0;
    std::string first;
    for (int i = 0; i < 1000000 / kScale; ++i) {
      const Attribute& a = kAttributes[i % std::size(kAttributes)];
      const int64_t divisor = kDivisors[(i / 7) % std::size(kDivisors)];
      const ElementParameters p = DividedBy(divisor, a.parameter, a.variant);
      const ElementInputs in = RandomInputs(rng, a, kTypes[i % 3], i / 3);
      const Quad term = QuadTerm(kind, a, in.x, in.t, in.g);
      // Within bound of the binary128 value, short of its own error.
      const auto within = [&](const ElementEstimate& estimate, Quad exact) {
        return Abs(static_cast<Quad>(estimate.value) - exact) <=
               static_cast<Quad>(estimate.bound) - kOracleError * Abs(exact);
      };
      const ElementEstimate estimated_term = SmoothL1LossFamily::Term(kind, p, in, false, false);
      bool fails = !within(estimated_term, term);
      if (i % 64 == 0) {  // the same against the exact rationals
        const mpq_class exact = ExactTerm(kind, a, in.x, in.t, in.g);
        fails =
            fails || abs(Rational(estimated_term.value) - exact) > Rational(estimated_term.bound);
        ++rational;
      }
      if (!InHuberTinyRange(p)) {
        fails = fails || estimated_term.bound <
                             SmoothL1LossFamily::kTermError * std::fabs(estimated_term.value);
        const math::SmoothL1Constants k = SmoothL1ElementConstants(p);
        const ElementEstimate estimate = EstimateOf(kind, k, in);
        const Quad exact = term / static_cast<Quad>(divisor);
        fails = fails || !within(estimate, exact);
        const Quad error = Abs(static_cast<Quad>(estimate.value) - exact);
        if (exact != 0) worst = std::max(worst, static_cast<double>(error / Abs(exact)) * 0x1p53);
        if (RestOf(kind, k, in) == 0.0 && !std::isinf(a.parameter)) {
          ++exact_numerators;
          fails = fails || static_cast<Quad>(NumeratorOf(kind, k, in)) !=
                               QuadNumerator(kind, a, in.x, in.t, in.g);
          if (ScaleExact(k, in)) {
            ++exact_estimates;
            fails = fails || error != 0;
          }
        }
        ++samples;
      }
      if (fails && failures++ == 0) {
        first = Describe(a) + " N=" + std::to_string(divisor) + " " + Describe(in);
      }
    }
    std::cout << Name(kind) << ": " << samples << " element estimates (" << rational
              << " terms against GMP too), worst relative error " << worst << " * 2^-53, "
              << exact_numerators << " exact numerators by their rest, " << exact_estimates
              << " exact estimates\n";
    EXPECT_EQ(failures, 0) << Name(kind) << ": first " << first;
    EXPECT_LE(worst, 7.001) << Name(kind);
    EXPECT_GT(exact_numerators, samples / 4) << Name(kind);
    EXPECT_GT(exact_estimates, samples / 10) << Name(kind);
  }
}

// Each rounding of a numerator, alone, makes its rest nonzero: x - t (t far below x, which also
// decides the branch), the linear branch's difference, the square, the product with a 53-bit Huber
// delta, g d, g delta; a scale that is not exactly 1 / divisor (beta = 3, N = 3) is flagged; exact
// inputs give 0.
TEST(SmoothL1Estimate, EachRoundingIsSeenByTheRestOrTheFlags) {
  struct Case {
    Attribute a;
    LossKind kind;
    int64_t divisor;
    float x, t, g;
    bool exact_numerator, exact_scale;
  };
  const Attribute half{kSmoothL1Variant, 0.5}, four{kSmoothL1Variant, 4.0};
  const Attribute three{kSmoothL1Variant, 3.0}, odd_beta{kSmoothL1Variant, 3 * 0x1p-30};
  const Attribute tenth{kHuberVariant, 0.1}, one{kHuberVariant, 1.0};
  const LossKind loss = LossKind::kLoss, gradient = LossKind::kGradSelf;
  const Case cases[] = {
      {half, loss, 1, 1.0f, 0x1p-60f, 1.0f, false, true},                            // x - t
      {half, gradient, 1, 0.5f, 0x1p-60f, 1.0f, false, true},                        // the branch
      {odd_beta, loss, 1, 0x1p30f, -0x1p-20f, 1.0f, false, true},                    // |d| - beta/2
      {four, loss, 1, 1.0f + 0x1p-23f, -0x1p-30f, 1.0f, false, true},                // d^2
      {tenth, loss, 1, 5.0f + 0x1p-20f, 0.0f, 1.0f, false, true},                    // (...) delta
      {one, gradient, 1, 0.5f + 0x1p-22f, -0x1p-40f, 1.0f + 0x1p-23f, false, true},  // g d
      {tenth, gradient, 1, 5.0f, 0.0f, 1.0f + 0x1p-23f, false, true},                // g delta
      {three, loss, 1, 1.0f, 0.0f, 1.0f, true, false},                               // 1/(2 beta)
      {three, gradient, 1, 1.0f, 0.0f, 1.0f, true, false},                           // 1/beta
      {one, loss, 3, 5.25f, 0.0f, 1.0f, true, false},                                // 1/N
      {half, loss, 4, 3.0f, 0.5f, 1.0f, true, true},
      {four, loss, 2, 3.0f, 0.5f, 1.0f, true, true},
      {four, gradient, 1, 3.0f, 0.5f, -3.0f, true, true},
      {one, gradient, 1, 3.0f, 0.5f, 1.5f, true, true},
  };
  for (const Case& c : cases) {
    const ElementParameters p = DividedBy(c.divisor, c.a.parameter, c.a.variant);
    const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
    const math::SmoothL1Constants k = SmoothL1ElementConstants(p);
    const std::string what = Describe(c.a) + " " + Name(c.kind) + " " + Describe(in);
    EXPECT_EQ(
        static_cast<Quad>(NumeratorOf(c.kind, k, in)) == QuadNumerator(c.kind, c.a, c.x, c.t, c.g),
        c.exact_numerator)
        << what;
    EXPECT_EQ(RestOf(c.kind, k, in) == 0.0, c.exact_numerator) << what;
    EXPECT_EQ(ScaleExact(k, in), c.exact_scale) << what;
    EXPECT_TRUE(k.divisors_exact) << what;
  }
  // The divisors: beta N is a double where it has at most 53 bits (0.1f's 24 bits times 2^40 + 1's
  // 41 are too many); N itself up to 2^53; Huber's are N.
  const auto divisors_exact = [](int64_t divisor, const Attribute& a) {
    return SmoothL1ElementConstants(DividedBy(divisor, a.parameter, a.variant)).divisors_exact;
  };
  const int64_t large = (int64_t{1} << 40) + 1;
  EXPECT_FALSE(divisors_exact(large, {kSmoothL1Variant, double(0.1f)}));
  EXPECT_TRUE(divisors_exact(1000003, {kSmoothL1Variant, double(0.1f)}));
  EXPECT_TRUE(divisors_exact(large, {kSmoothL1Variant, 3.0}));
  EXPECT_TRUE(divisors_exact(large, tenth));
  EXPECT_FALSE(divisors_exact((int64_t{1} << 53) + 1, one));
}

// The bit test of a SIMD tile in scalar form: |v| farther than kSmoothL1Reach fp64 ulps from every
// rounding boundary of its binade in a format of `precision` bits, and its rounding normal.
bool FarFromBoundaries(double v, int precision) {
  const int low = 53 - precision;
  const uint64_t boundary = uint64_t{1} << (low - 1), low_bits = (uint64_t{1} << low) - 1;
  const uint64_t bits = BitCast<uint64_t>(std::fabs(v));
  return ((bits + math::kSmoothL1Reach - boundary) & low_bits) > 2 * math::kSmoothL1Reach;
}
bool BitTestSettles(double v, FloatType type) {
  const Format f = FormatOf(type);
  const double magnitude = std::fabs(v);
  return std::isfinite(v) && magnitude >= std::ldexp(1.0, f.min_exponent) &&
         magnitude < std::ldexp(1.0, f.max_exponent) && FarFromBoundaries(v, f.precision);
}

// At the edge: values at every distance up to 40 fp64 ulps either side of midpoints of every type
// (random binades), with the bound the estimates carry (kSmoothL1Error64 of the value): where the
// bit test settles, so does the interval test, to the same value. And on estimates near midpoints
// (random inputs whose estimate lies within 64 ulps of one), every value the bit test settles is
// the oracle's.
TEST(SmoothL1Estimate, TheBitTestSettlesOnlyWhatTheBoundDecides) {
  std::mt19937 rng(5);
  int64_t bit_settled = 0, checked = 0;
  for (FloatType type : kTypes) {
    const Format f = FormatOf(type);
    for (int trial = 0; trial < 200; ++trial) {
      const int e = Integer(rng, f.min_exponent, f.max_exponent - 1);
      const int64_t odd = 2 * static_cast<int64_t>(Integer(rng, 0, (1 << (f.precision - 1)) - 1)) +
                          1 + (int64_t{1} << f.precision);
      const double m = std::ldexp(static_cast<double>(odd), e - f.precision);
      for (int64_t k = -40; k <= 40; ++k) {
        const double v = BitCast<double>(BitCast<uint64_t>(m) + k) * (trial % 2 ? -1 : 1);
        const ElementEstimate estimate{v, std::fabs(v) * math::kSmoothL1Error64};
        double settled = 0;
        const bool interval = SettledIn(estimate, type, &settled);
        if (BitTestSettles(v, type)) {
          ++bit_settled;
          EXPECT_GT(std::abs(k), static_cast<int64_t>(math::kSmoothL1Reach));
          EXPECT_TRUE(interval) << Name(type) << " " << v;
          EXPECT_EQ(Bits(RoundedTo(v, type)), Bits(RoundedTo(settled, type)));
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(bit_settled, checked / 3);
  // Estimates near midpoints: inputs one fp32 unit beside a tie (OnMidpoint, Beside), whose
  // estimates mostly lie tens of fp64 ulps from it.
  Tally tally;
  int64_t near = 0;
  for (int i = 0; i < 200000 / kScale; ++i) {
    const Attribute& a = kAttributes[i % std::size(kAttributes)];
    const int64_t divisor = kDivisors[(i / 3) % std::size(kDivisors)];
    const FloatType type = kTypes[i % 3];
    const LossKind kind = kKinds[(i / 5) % 3];
    const std::optional<ElementInputs> tie = OnMidpoint(rng, kind, a, divisor, type);
    const ElementParameters p = DividedBy(divisor, a.parameter, a.variant);
    if (!tie || InHuberTinyRange(p)) continue;
    const ElementInputs in = Beside(rng, kind, *tie);
    const double v = EstimateOf(kind, SmoothL1ElementConstants(p), in).value;
    if (!BitTestSettles(v, type)) continue;
    ++near;
    ++tally.count;
    if (Bits(RoundedTo(v, type)) != Bits(Expected(kind, p, in, type)) && tally.wrong++ == 0) {
      tally.first_wrong = Describe(a) + " " + Describe(in);
    }
  }
  std::cout << "bit test beside midpoints: " << near << " settled, " << tally.wrong << " wrong\n";
  EXPECT_GT(near, 1000 / kScale);
  EXPECT_EQ(tally.wrong, 0) << tally.first_wrong;
}

}  // namespace
}  // namespace openaclnn
