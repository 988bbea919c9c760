// The L1 family's elements (l1_loss_math.h, L1LossFamily::Element): every result correctly rounded
// into fp32, fp16 and bf16 for every divisor, against an exact rational oracle (GMP), on random
// inputs of several spreads and on inputs built on and next to rounding boundaries (ties of |x - t|
// and of g / N, the double rounding fl64(x - t) would make, the edges of each type's range, zeros,
// non-finite inputs); the fp64 estimates' bound on a million samples per kind; and the rounding
// test at the edge of that bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <iterator>
#include <random>
#include <string>

#include "l1_loss_test_inputs.h"
#include "losses/l1_loss/l1_loss_family.h"

namespace openaclnn {
namespace {

using namespace l1_loss_test;  // NOLINT(build/namespaces): the tests' shared vocabulary

TEST(L1Element, RandomResultsAreCorrectlyRounded) {
  std::mt19937 rng(37);
  for (LossKind kind : kKinds) {
    for (Spread spread : kSpreads) {
      Tally tally;
      for (FloatType type : kTypes) {
        for (int64_t divisor : kDivisors) {
          for (int i = 0; i < 400 / kSampleScale; ++i) {
            Check(tally, kind, divisor, RandomInputs(rng, spread, type), type);
          }
        }
      }
      ExpectEveryResultRounded(tally,
                               std::string(KindName(kind)) + ", random " + SpreadName(spread));
    }
  }
}

// The midpoint above the `steps`-th value of `type` in the binade 2^binade (binade below the least
// normal exponent: the subnormals), positive; the last one of the greatest binade is the overflow
// threshold.
mpq_class Midpoint(FloatType type, int binade, int64_t steps) {
  const Format f = FormatOf(type);
  const int spacing = std::max(binade, f.min_exponent) - (f.precision - 1);
  const mpq_class start = binade < f.min_exponent ? mpq_class(0) : TimesPow2(1, binade);
  return start + TimesPow2(mpq_class(static_cast<double>(2 * steps + 1)), spacing - 1);
}
mpq_class RandomMidpoint(std::mt19937& rng, FloatType type) {
  const Format f = FormatOf(type);
  const int64_t last = (int64_t{1} << (f.precision - 1)) - 1;
  return Midpoint(type, UniformInt(rng, f.min_exponent - 1, f.max_exponent),
                  std::uniform_int_distribution<int64_t>(0, last)(rng));
}

// fp32 x, t with x - t = d or near it: x = d rounded to fp32, t the rest rounded to fp32, in either
// order (so that d's sign is random). Returns whether x - t == d exactly; false, with nothing set,
// where d is beyond fp32's range.
bool SplitDifference(std::mt19937& rng, const mpq_class& d, ElementInputs* in) {
  const auto x = static_cast<float>(d.get_d());
  if (!std::isfinite(x)) return false;
  const auto t = static_cast<float>(mpq_class(Rational(x) - d).get_d());
  if (UniformInt(rng, 0, 1) == 0) {
    in->x = x, in->t = t;
  } else {
    in->x = -x, in->t = -t;  // -d: the same |d|, the opposite sign
  }
  return Rational(x) - Rational(t) == d;
}

// Inputs whose exact result is a midpoint m of `type` (a tie), or, with `beside`, next to one: the
// loss |x - t| = m D, then the smaller input one fp32 step up or down (d moves by that input's
// unit, 2^-149 where it was 0), or for D = 1 x on the midpoint and t far below its last fp64 bit
// (fl64(x - t) would round onto the midpoint); the gradient g = +-m D with a random sign(x - t),
// then g one step up or down. Beside, also the fp32 inputs nearest such a tie where it has too
// many bits for fp32. Returns false where none were found for this midpoint.
bool BoundaryInputs(std::mt19937& rng, LossKind kind, FloatType type, int64_t divisor, bool beside,
                    ElementInputs* in) {
  const mpq_class target = RandomMidpoint(rng, type) * mpq_class(static_cast<long>(divisor));
  const auto either = [&](float v) {
    return std::nextafter(v, UniformInt(rng, 0, 1) == 0 ? -HUGE_VALF : HUGE_VALF);
  };
  *in = {};
  if (kind == LossKind::kLoss) {
    if (!std::isfinite(static_cast<float>(target.get_d()))) return false;
    const bool exact = SplitDifference(rng, target, in);
    if (!beside) return exact;
    if (!exact) return true;
    if (divisor == 1 && in->t == 0.0f && UniformInt(rng, 0, 1) == 0) {
      const int below = std::ilogb(in->x) - UniformInt(rng, 55, 120);
      if (below < -149) return false;
      in->t = std::ldexp(UniformInt(rng, 0, 1) == 0 ? 1.0f : -1.0f, below);
      return true;
    }
    float& small = std::fabs(in->x) < std::fabs(in->t) ? in->x : in->t;
    small = either(small);
    return true;
  }
  in->g = static_cast<float>(target.get_d());
  if (!std::isfinite(in->g)) return false;
  const bool exact = Rational(in->g) == target;
  if (UniformInt(rng, 0, 1) == 0) in->g = -in->g;
  in->x = static_cast<float>(Uniform(rng, -4, 4));
  in->t = UniformInt(rng, 0, 9) == 0 ? in->x : static_cast<float>(Uniform(rng, -4, 4));
  if (!beside) return exact;
  if (exact) in->g = either(in->g);
  return true;
}

// Every divisor, and two more whose fl64 reciprocals err by nearly 2^-53, 123 and 1997: those of 3,
// 5 and 7 err so little that an estimate |d| fl64(1/N) or g fl64(1/N) lands exactly on its tie,
// which would round right even where the exact path were skipped.
constexpr int64_t kTieDivisors[] = {1,   2,   4096, 3, 5, 7, 1000003, (int64_t{1} << 40) + 1,
                                    123, 1997};
static_assert(std::size(kTieDivisors) == std::size(kDivisors) + 2);

TEST(L1Element, ResultsOnAndNextToMidpointsAreCorrectlyRounded) {
  std::mt19937 rng(1037);
  for (LossKind kind : kKinds) {
    for (FloatType type : kTypes) {
      for (bool beside : {false, true}) {
        Tally tally;
        for (int64_t divisor : kTieDivisors) {
          int built = 0;
          for (int i = 0; i < 2500 / kSampleScale; ++i) {
            ElementInputs in;
            if (!BoundaryInputs(rng, kind, type, divisor, beside, &in)) continue;
            Check(tally, kind, divisor, in, type);
            ++built;
          }
          // A tie of g / D needs g = m D within fp32's 24 bits: for fp32 only a subnormal m and an
          // even D (m has 25 bits), for 16-bit types only a subnormal m beside D = 1000003, none
          // with 2^40 + 1. A tie of the loss needs m D as the difference of two floats: not for
          // fp32 with D = 2^40 + 1 (66 bits) but for a subnormal m.
          const bool possible = beside || (kind == LossKind::kLoss
                                               ? type != FloatType::kFloat32 || divisor < 1000000000
                                               : type != FloatType::kFloat32 && divisor < 1000000);
          if (possible) {
            EXPECT_GT(built, 200 / kSampleScale) << TypeName(type) << " D=" << divisor;
          }
        }
        ExpectEveryResultRounded(tally, std::string(KindName(kind)) + ", " +
                                            (beside ? "next to midpoints, " : "ties, ") +
                                            TypeName(type));
        // The built inputs must reach the exact path where the estimate cannot decide them (the
        // gradient's ties below its quotient's limit need none: TheGradientsQuotient...).
        if (!beside && kind == LossKind::kLoss) {
          EXPECT_GT(tally.exact, tally.count / 10) << KindName(kind) << " " << TypeName(type);
        }
      }
    }
  }
}

// The gradient's quotient fl64(g / D) rounds correctly with no test up to D = 2^(52 - p)
// (l1_loss_error_budget.h), and not beyond: inputs built just beside a midpoint m of each type
// (M odd, m = M 2^a; D = +-M^-1 mod 2^c, so that M D -+ 1 = G 2^c with G < 2^24 and g = G 2^(a+c)
// gives g / D = m -+ 2^a / D). With D up to the limit (c <= 52 - p) the quotient alone rounds every
// one correctly, and Element takes no exact path; with D beyond it (up to 2^53, the quotient's
// domain) the quotient alone rounds about half of them wrongly (the inputs are as hard as the proof
// says), and Element takes the exact path and rounds every one correctly.
TEST(L1Element, TheGradientsQuotientNeedsATestBeyondItsLimit) {
  std::mt19937_64 rng(77);
  for (FloatType type : kTypes) {
    const Format f = FormatOf(type);
    const int64_t limit = QuotientDivisorLimit(type);
    for (bool beyond : {false, true}) {
      Tally tally;
      int64_t quotient_wrong = 0;
      while (tally.count < 1000 / kSampleScale) {
        const uint64_t top = uint64_t{1} << f.precision;
        const uint64_t m_odd = top + 2 * (rng() % (top / 2)) + 1;  // p + 1 bits, odd
        const int c = beyond ? 53 - static_cast<int>(rng() % static_cast<uint64_t>(f.precision))
                             : 52 - f.precision - static_cast<int>(rng() % 9);
        // M^-1 mod 2^c by Newton's iteration (each step doubles the correct low bits).
        uint64_t inverse = m_odd;
        for (int i = 0; i < 6; ++i) inverse *= 2 - m_odd * inverse;
        const uint64_t mask = (uint64_t{1} << c) - 1;
        const bool below = rng() % 2 == 0;  // g / D = m - 2^a / D, else m + 2^a / D
        const uint64_t divisor = (below ? inverse : 0 - inverse) & mask;
        if ((divisor > static_cast<uint64_t>(limit)) != beyond) continue;
        const mpz_class product = mpz_class(static_cast<unsigned long>(m_odd)) *
                                  mpz_class(static_cast<unsigned long>(divisor));
        const mpz_class g_units = mpz_class(product + (below ? -1 : 1)) >> c;  // G
        if (g_units >= (1 << 24)) continue;
        // a: m = M 2^a normal in the type, g = G 2^(a + c) a normal fp32.
        const int low = std::max(f.min_exponent - f.precision, -126 - c);
        const int high = std::min(f.max_exponent - f.precision, 100 - c);
        if (low > high) continue;
        const int a = low + static_cast<int>(rng() % static_cast<uint64_t>(high - low + 1));
        ElementInputs in;
        in.g = std::ldexp(static_cast<float>(g_units.get_d()), a + c);
        if (rng() % 2 == 0) in.g = -in.g;
        in.x = 2.0f, in.t = 1.0f;
        const auto d = static_cast<int64_t>(divisor);
        Check(tally, LossKind::kGradSelf, d, in, type);
        const float quotient = RoundedTo(static_cast<double>(in.g) / static_cast<double>(d), type);
        if (Bits(quotient) != Bits(Expected(LossKind::kGradSelf, in, d, type))) ++quotient_wrong;
      }
      ExpectEveryResultRounded(tally, std::string("grad, beside midpoints, D ") +
                                          (beyond ? "beyond" : "up to") + " the limit, " +
                                          TypeName(type));
      std::cout << "  the quotient alone: " << quotient_wrong << " wrong\n";
      if (beyond) {
        EXPECT_EQ(tally.exact, tally.count) << TypeName(type);
        EXPECT_GT(quotient_wrong, tally.count / 4) << TypeName(type);
      } else {
        EXPECT_EQ(tally.exact, 0) << TypeName(type);
        EXPECT_EQ(quotient_wrong, 0) << TypeName(type);
      }
    }
  }
}

// Results at the edges of each type's range, exactly on their rounding boundary (ties to even: the
// overflow threshold goes to inf, half the least subnormal to 0) and one fp32 step beside it; the
// expected values written out, the oracle agreeing.
TEST(L1Element, RangeEdgesAndTheirTiesAreRoundedAsIeeeSays) {
  struct Case {
    LossKind kind;
    FloatType type;
    int64_t divisor;
    float x, t, g;
    float expected;
  };
  const float max32 = 0x1.fffffep127f, tiny = 0x1p-149f;
  const LossKind loss = LossKind::kLoss, grad = LossKind::kGradSelf;
  const FloatType f32 = FloatType::kFloat32, f16 = FloatType::kFloat16, b16 = FloatType::kBFloat16;
  const Case cases[] = {
      // fp32: |d| = 2^128 - 2^103, the overflow threshold; 2^-150 = 2^-149 / 2.
      {loss, f32, 1, max32, -0x1p103f, 1, HUGE_VALF},
      {loss, f32, 1, max32, -0x1p103f + 0x1p80f, 1, max32},
      {loss, f32, 3, max32, -0x1p103f, 1, 0x1.555554p126f},
      {loss, f32, 2, tiny, 0.0f, 1, 0.0f},
      {loss, f32, 2, 3 * tiny, 0.0f, 1, 2 * tiny},  // 1.5 units: to the even 2
      {grad, f32, 2, 1.0f, 0.0f, tiny, 0.0f},
      {grad, f32, 2, 1.0f, 0.0f, -3 * tiny, -2 * tiny},
      {grad, f32, 4096, 0.0f, 1.0f, 0x1.8p-137f, -0x1p-148f},  // -1.5 * 2^-149 x 2: -2^-148
      // fp16: 65520, its threshold; 2^-25, half its least subnormal.
      {loss, f16, 1, 65504.0f, -16.0f, 1, HUGE_VALF},
      {loss, f16, 1, 65504.0f, -16.0f + 0x1p-20f, 1, 65504.0f},
      {loss, f16, 1, 0x1p-25f, 0.0f, 1, 0.0f},
      {loss, f16, 1, 0x1p-25f, -tiny, 1, 0x1p-24f},
      {grad, f16, 3, 2.0f, 1.0f, 196560.0f, HUGE_VALF},  // 3 * 65520
      {grad, f16, 3, 2.0f, 1.0f, 196559.984f, 65504.0f},
      {grad, f16, 3, 1.0f, 2.0f, 3 * 0x1p-25f, -0.0f},
      {grad, f16, 3, 1.0f, 2.0f, 3 * 0x1p-25f + 0x1p-46f, -0x1p-24f},
      // bf16: (2 - 2^-8) 2^127, its threshold; 2^-134.
      {loss, b16, 1, 0x1.fep127f, -0x1p119f, 1, HUGE_VALF},
      {loss, b16, 1, 0x1.fep127f, -0x1p119f + 0x1p96f, 1, 0x1.fep127f},
      {loss, b16, 1, 0x1p-134f, 0.0f, 1, 0.0f},
      {loss, b16, 1, 0x1p-134f, -tiny, 1, 0x1p-133f},
      {grad, b16, 5, 1.0f, -1.0f, 5 * 0x1p-134f, 0.0f},
      {grad, b16, 5, 1.0f, -1.0f, 5 * 0x1p-134f + tiny, 0x1p-133f},
  };
  for (const Case& c : cases) {
    const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
    const std::string what = Describe(c.kind, in, c.divisor, c.type);
    EXPECT_EQ(Bits(L1LossFamily::Element(c.kind, DividedBy(c.divisor), in, c.type)),
              Bits(c.expected))
        << what;
    EXPECT_EQ(Bits(Expected(c.kind, in, c.divisor, c.type)), Bits(c.expected)) << "oracle " << what;
  }
}

// The loss's zeros are +0 (|+-0| and an underflow of a positive value); the gradient's carry the
// sign IEEE gives g * sign(d) with sign(+-0) = +0, and an underflow keeps its value's sign.
TEST(L1Element, ZerosCarryTheSignsOfTheFormula) {
  struct Case {
    LossKind kind;
    float x, t, g;
    bool negative;
  };
  const LossKind loss = LossKind::kLoss, grad = LossKind::kGradSelf;
  const Case cases[] = {
      {loss, 0.5f, 0.5f, 1, false},     {loss, -0.0f, 0.0f, 1, false},
      {loss, 0.0f, -0.0f, 1, false},    {loss, -3.0f, -3.0f, 1, false},
      {grad, 0.5f, 0.5f, 1, false},     {grad, 0.5f, 0.5f, -1, true},
      {grad, -0.0f, 0.0f, -2, true},    {grad, 0.0f, -0.0f, 2, false},
      {grad, 1.0f, 2.0f, 0.0f, true},   {grad, 2.0f, 1.0f, -0.0f, true},
      {grad, 1.0f, 2.0f, -0.0f, false}, {grad, 2.0f, 1.0f, 0.0f, false},
  };
  for (FloatType type : kTypes) {
    for (int64_t divisor : kDivisors) {
      for (const Case& c : cases) {
        const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
        const float got = L1LossFamily::Element(c.kind, DividedBy(divisor), in, type);
        EXPECT_EQ(Bits(got), Bits(c.negative ? -0.0f : 0.0f))
            << Describe(c.kind, in, divisor, type);
        EXPECT_EQ(Bits(Expected(c.kind, in, divisor, type)), Bits(got)) << "oracle";
      }
    }
    // Nonzero values that underflow: +-2^-149 / 2^40+1, and the loss 2^-149 / 3.
    const ElementParameters p = DividedBy((int64_t{1} << 40) + 1);
    EXPECT_EQ(Bits(L1LossFamily::Element(grad, p, {1.0f, 2.0f, 1, 1, 0x1p-149f}, type)),
              Bits(-0.0f));
    EXPECT_EQ(Bits(L1LossFamily::Element(grad, p, {2.0f, 1.0f, 1, 1, 0x1p-149f}, type)),
              Bits(0.0f));
    EXPECT_EQ(Bits(L1LossFamily::Element(loss, DividedBy(3), {0x1p-149f, 0.0f, 1, 1, 1}, type)),
              Bits(0.0f));
  }
}

// Non-finite inputs: the class IEEE arithmetic gives the formula, NaN canonical; sign(NaN) = NaN
// (CANN and torch give 0 * g); an infinite x or t with a finite g leaves a finite gradient.
TEST(L1Element, NonFiniteInputsTakeTheFormulasClass) {
  const float inf = HUGE_VALF, nan = std::nanf("");
  struct Case {
    LossKind kind;
    float x, t, g, expected;
  };
  const LossKind loss = LossKind::kLoss, grad = LossKind::kGradSelf;
  const Case cases[] = {
      {loss, inf, 1.0f, 1, inf},     {loss, -inf, 1.0f, 1, inf},      {loss, 1.0f, inf, 1, inf},
      {loss, inf, -inf, 1, inf},     {loss, inf, inf, 1, nan},        {loss, -inf, -inf, 1, nan},
      {loss, nan, 1.0f, 1, nan},     {loss, 1.0f, -nan, 1, nan},      {grad, inf, 1.0f, 3, 1},
      {grad, 1.0f, inf, 3, -1},      {grad, -inf, inf, -3, 1},        {grad, inf, inf, 3, nan},
      {grad, nan, 1.0f, 3, nan},     {grad, 1.0f, nan, 0.0f, nan},    {grad, 2.0f, 1.0f, inf, inf},
      {grad, 1.0f, 2.0f, inf, -inf}, {grad, 1.0f, 1.0f, inf, nan},    {grad, 2.0f, 1.0f, -nan, nan},
      {grad, inf, 1.0f, 0.0f, 0.0f}, {grad, -inf, 1.0f, 0.0f, -0.0f},
  };
  for (FloatType type : kTypes) {
    const float canonical_nan = RoundedTo(kCanonicalNaN, type);
    for (int64_t divisor : {int64_t{1}, int64_t{3}, int64_t{4096}}) {
      for (const Case& c : cases) {
        const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
        // A finite gradient (+-g, 3 here) is divided and rounded as any other.
        const float expected = std::isnan(c.expected)       ? canonical_nan
                               : !std::isfinite(c.expected) ? c.expected
                               : c.kind == grad && c.expected != 0
                                   ? static_cast<float>(RoundRational(
                                         mpq_class(3 * c.expected) / mpq_class(divisor), type))
                                   : c.expected;
        EXPECT_EQ(Bits(L1LossFamily::Element(c.kind, DividedBy(divisor), in, type)), Bits(expected))
            << Describe(c.kind, in, divisor, type);
      }
    }
  }
}

// The cheapest paths a SIMD tile may take without a rounding test, against the oracle: the fp32
// loss without a divisor as the fp32 subtraction (L1Loss32), and the gradient without a divisor
// as g sign(x - t) in fp32 lanes (exact), rounded once to each type.
TEST(L1Element, Fp32LanesGiveTheCorrectlyRoundedResultsWithoutADivisor) {
  std::mt19937 rng(4);
  int64_t checked = 0;
  for (Spread spread : kSpreads) {
    for (int i = 0; i < 6000 / kSampleScale; ++i) {
      const FloatType type = kTypes[i % 3];
      const ElementInputs in = RandomInputs(rng, spread, type);
      if (type == FloatType::kFloat32) {
        const float loss = math::L1Loss32<math::ScalarOps>(in.x, in.t);
        ASSERT_EQ(Bits(loss), Bits(Expected(LossKind::kLoss, in, 1, type)))
            << Describe(LossKind::kLoss, in, 1, type);
      }
      const float numerator = math::L1GradientNumerator<math::ScalarOps>(in.x, in.t, in.g);
      ASSERT_EQ(Bits(RoundedTo(numerator, type)), Bits(Expected(LossKind::kGradSelf, in, 1, type)))
          << Describe(LossKind::kGradSelf, in, 1, type);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 36000 / kSampleScale);
}

// Where x and t are values of the 16-bit output type itself (fp16 tensors in, fp16 out), the fp32
// subtraction's one rounding to the type is the correct one too (L1Loss32): x - t is exact in fp32
// unless t lies 2^13 (fp16; bf16: 2^16) or more below x, and then t is too small to move x - t
// across a midpoint next to x, a value of the type. Every 5th finite x of each type, with t of
// either sign at exponent gaps around that threshold, against the oracle; fp32 x on a midpoint of
// the type with such a t (promoted inputs) round wrongly through fp32, which is why this holds for
// inputs of the output type only.
TEST(L1Element, SixteenBitInputsOfTheOutputTypeNeedOnlyTheFp32Subtraction) {
  std::mt19937 rng(16);
  for (FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    const int precision = FormatOf(type).precision;
    const uint32_t infinity = InfinityBits(type);
    int64_t checked = 0, inexact = 0, wrong = 0, promoted_wrong = 0;
    for (uint32_t bits = 1; bits < infinity; bits += 5) {
      const float x = ValueOfBits(bits, type);
      for (int k = 0; k < 4; ++k) {
        // Gaps from where x - t is still exact in fp32 to well past it.
        const int gap = 24 - precision - 1 + UniformInt(rng, 0, 6);
        const float magnitude =
            Narrow(std::ldexp(static_cast<float>(Uniform(rng, 1, 2)), std::ilogb(x) - gap), type);
        const ElementInputs in{x, UniformInt(rng, 0, 1) == 0 ? magnitude : -magnitude, 1, 1, 1};
        const float got = RoundedTo(math::L1Loss32<math::ScalarOps>(in.x, in.t), type);
        if (Rational(in.x - in.t) != Rational(in.x) - Rational(in.t)) ++inexact;
        if (Bits(got) != Bits(Expected(LossKind::kLoss, in, 1, type)) && wrong++ == 0) {
          ADD_FAILURE() << Describe(LossKind::kLoss, in, 1, type);
        }
        ++checked;
        // The same with x a midpoint of the type (an fp32 value) and t below its last fp32 bit.
        const float midpoint = (x + ValueOfBits(bits + 1, type)) / 2;
        if (std::isfinite(midpoint) && midpoint != x) {
          const ElementInputs promoted{midpoint, std::ldexp(in.t, -12), 1, 1, 1};
          const float through_fp32 =
              RoundedTo(math::L1Loss32<math::ScalarOps>(promoted.x, promoted.t), type);
          if (Bits(through_fp32) != Bits(Expected(LossKind::kLoss, promoted, 1, type))) {
            ++promoted_wrong;
          }
        }
      }
    }
    std::cout << TypeName(type) << ": " << checked << " differences of its values, " << inexact
              << " inexact in fp32, " << wrong << " wrong; promoted midpoints: " << promoted_wrong
              << " wrong through fp32\n";
    EXPECT_GT(inexact, checked / 4) << TypeName(type);
    EXPECT_GT(promoted_wrong, 0) << TypeName(type);
  }
}

// |estimate - exact| <= bound, exactly, on a million inputs per kind (every spread, type grid and
// divisor), and the worst error seen relative to the exact value, in units of 2^-53 (the
// derivation's 4.01 for the loss, 3.01 for the gradient).
TEST(L1Estimate, TheBoundHoldsOnEverySample) {
  std::mt19937 rng(64);
  for (LossKind kind : kKinds) {
    int64_t failures = 0;
    double worst = 0;
    std::string first;
    for (int i = 0; i < 1000000 / kSampleScale; ++i) {
      const int64_t divisor = kDivisors[i % std::size(kDivisors)];
      const ElementInputs in =
          RandomInputs(rng, kSpreads[(i / 8) % std::size(kSpreads)], kTypes[(i / 48) % 3]);
      const double scale = DividedBy(divisor).scale;
      const ElementEstimate estimate =
          kind == LossKind::kLoss ? L1LossEstimate(in, scale) : L1GradientEstimate(in, scale);
      if (!WithinBound(kind, in, divisor, estimate.value, estimate.bound) && failures++ == 0) {
        first = Describe(kind, in, divisor, FloatType::kFloat32);
      }
      if (i % 67 == 0 && estimate.value != 0) {  // the relative error, on every divisor's samples
        const mpq_class exact = ExactTerm(kind, in) / mpq_class(static_cast<long>(divisor));
        const mpq_class error = abs(Rational(estimate.value) - exact) / abs(exact);
        worst = std::max(worst, error.get_d() * 0x1p53);
      }
    }
    std::cout << KindName(kind) << " estimate: worst relative error " << worst << " * 2^-53\n";
    EXPECT_EQ(failures, 0) << first;
    EXPECT_LE(worst, kind == LossKind::kLoss ? 4.01 : 3.01);
  }
}

// The rounding test (SettledIn) with the family's bound (kL1Error64 of the value, formed as
// L1Loss64 forms it) settles a value only where every number the derivation lets the exact value
// be (within the bound less the interval ends' own fp64 rounding, u (1 + 2^-50) of the value: at
// least 6.99u, against the estimates' 4.01u) rounds as the settled result (checked exactly), at
// every distance around the bound from the boundaries of each type's binades, subnormal and
// largest included; and it settles every value farther than 8 fp64 ulps (the bound, 4 to 8 ulps,
// and the ends' rounding) from them: the fast path it is meant to be.
TEST(L1Estimate, TheRoundingTestSettlesOnlyWhatTheBoundDecides) {
  std::mt19937 rng(29);
  for (FloatType type : kTypes) {
    const Format f = FormatOf(type);
    const int64_t last = (int64_t{1} << (f.precision - 1)) - 1;
    int64_t settled_count = 0;
    for (int binade = f.min_exponent - 1; binade <= f.max_exponent; ++binade) {
      for (int64_t steps : {int64_t{0}, int64_t{1}, last / 3, last - 1, last}) {
        const double m = Midpoint(type, binade, steps).get_d();  // exact: at most 25 bits
        const int exponent = std::ilogb(m);
        const double ulp = std::ldexp(1.0, exponent - 52);
        for (int64_t distance : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 17, 18, 24, 32, 64}) {
          for (int sign : {-1, 1}) {
            const double value = m + sign * static_cast<double>(distance) * ulp;
            const ElementEstimate estimate = {
                value, math::ScalarOps64::MulAdd(value, math::kL1Error64, 0.0)};
            double settled = 0.0;
            if (!SettledIn(estimate, type, &settled)) {
              EXPECT_LE(distance, 8)
                  << TypeName(type) << " not settled: " << std::hexfloat << value;
              continue;
            }
            ++settled_count;
            const mpq_class bound =
                abs(Rational(value)) *
                (Rational(math::kL1Error64) - Rational(0x1p-53) * (1 + Rational(math::kL1Error64)));
            const uint32_t result = Bits(RoundedTo(settled, type));
            for (const mpq_class& end :
                 {mpq_class(Rational(value) - bound), mpq_class(Rational(value) + bound)}) {
              EXPECT_EQ(Bits(static_cast<float>(RoundRational(end, type))), result)
                  << TypeName(type) << " " << std::hexfloat << value;
            }
          }
        }
      }
    }
    EXPECT_GT(settled_count, 0) << TypeName(type);
  }
}

}  // namespace
}  // namespace openaclnn
