// MseLossFamily::Element: every result correctly rounded into fp32, fp16 and bf16, for both kinds
// and every divisor, against exact GMP rationals (mse_loss_oracle.h): random inputs of several
// distributions, and inputs built on and next to rounding boundaries (exact ties of (x - t)^2 / D
// and of 2 g (x - t) / D, the same one unit beside, and values within the estimate's bound of a
// boundary), the edges of each type's range, zeros' signs and non-finite inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "mse_loss_oracle.h"

namespace openaclnn::mse_test {
namespace {

TEST(MseLossElement, RandomResultsAreCorrectlyRounded) {
  std::mt19937_64 rng(37);
  for (const Distribution distribution : kDistributions) {
    for (const LossKind kind : kKinds) {
      for (const FloatType type : kTypes) {
        Tally tally;
        for (int64_t i = 0; i < 2000 / kSampleScale; ++i) {
          for (const int64_t divisor : kDivisors) {
            // 16-bit inputs: the output's own type or the other 16-bit one.
            const FloatType sixteen = (type == FloatType::kFloat16) == (i % 2 == 0)
                                          ? FloatType::kFloat16
                                          : FloatType::kBFloat16;
            Check(tally, kind, RandomInputs(rng, distribution, sixteen), divisor, type);
          }
        }
        Report(tally, std::string("random ") + DistributionName(distribution) + ", " +
                          KindName(kind) + ", " + TypeName(type));
      }
    }
  }
}

int BitLength(uint64_t v) { return 64 - __builtin_clzll(v); }

// A random odd integer in [low, high] (low <= high), or 0 where there is none.
int64_t OddIn(std::mt19937_64& rng, int64_t low, int64_t high) {
  if (low % 2 == 0) ++low;
  if (high % 2 == 0) --high;
  if (low > high) return 0;
  return low + 2 * static_cast<int64_t>(rng() % static_cast<uint64_t>((high - low) / 2 + 1));
}

// Whether n 2^j (n > 0, at most 48 bits) can be x - t of fp32 x, t: its last bit at or above
// fp32's least subnormal, its magnitude below 2^127.
bool Splittable(int64_t n, int j) { return j >= -149 && BitLength(n) + j <= 127; }

// fp32 x and t with x - t = +-n 2^j exactly (Splittable): x = n 2^j, t = 0; or both on the grid
// of 2^j, t random; or, for n over 24 bits, x its leading 24 bits and t minus the rest.
ElementInputs WithDifference(std::mt19937_64& rng, int64_t n, int j) {
  const auto scaled = [j](int64_t v) { return static_cast<float>(std::ldexp(v, j)); };
  ElementInputs in;
  const int bits = BitLength(n);
  if (bits > 24) {
    const int64_t top = n >> (bits - 24) << (bits - 24);
    in.x = scaled(top), in.t = -scaled(n - top);
  } else if (bits <= 23 && Coin(rng) && j + 24 <= 127) {
    const int64_t t = static_cast<int64_t>(rng() % (int64_t{1} << 23)) - (int64_t{1} << 22);
    in.x = scaled(t + n), in.t = scaled(t);
  } else {
    in.x = scaled(n), in.t = 0.0f;
  }
  if (Coin(rng)) in.x = -in.x, in.t = -in.t;
  in.g = 1.0f;
  return in;
}

// A random exponent in [low, high] with the parity of `parity`.
int ExponentWithParity(std::mt19937_64& rng, int low, int high, int parity) {
  int e = low + static_cast<int>(rng() % static_cast<uint64_t>(high - low + 1));
  if (((e - parity) & 1) != 0) e += e < high ? 1 : -1;
  return e;
}

// Inputs whose loss (x - t)^2 / D is exactly a midpoint of `type` (a normal one, or one in the
// subnormal range), where one exists: D = 2^a f (f odd and squarefree, as every tested D's odd
// part), d = f s 2^j, d^2 / D = f s^2 2^(2j - a) with f s^2 odd and of precision + 1 bits (below
// the range, any odd f s^2 below 2^precision at the grid's half step).
std::optional<ElementInputs> LossTie(std::mt19937_64& rng, FloatType type, int64_t divisor) {
  const Format format = FormatOf(type);
  const int p = format.precision, a = __builtin_ctzll(static_cast<uint64_t>(divisor));
  const int64_t f = divisor >> a;
  const bool subnormal = rng() % 8 == 0;
  const int quantum = format.min_exponent - (p - 1);  // the least subnormal's exponent
  for (int attempt = 0; attempt < 20; ++attempt) {
    const double low = subnormal ? 1.0 : std::sqrt(std::ldexp(1.0, p) / f);
    const double high = std::sqrt((std::ldexp(1.0, subnormal ? p : p + 1) - 1) / f);
    const int64_t s =
        OddIn(rng, static_cast<int64_t>(std::ceil(low)), static_cast<int64_t>(std::floor(high)));
    if (s == 0) return std::nullopt;
    int twice_j;  // 2j = (the midpoint's exponent) + a
    if (subnormal) {
      if (((quantum - 1 + a) & 1) != 0) return std::nullopt;
      twice_j = quantum - 1 + a;
    } else {
      // f s^2 lies in [2^p, 2^(p+1)): the midpoint's binade is E = p + 2j - a.
      const int e = ExponentWithParity(rng, format.min_exponent, format.max_exponent, p - a);
      twice_j = e - p + a;
    }
    if (Splittable(f * s, twice_j / 2)) return WithDifference(rng, f * s, twice_j / 2);
  }
  return std::nullopt;
}

// Inputs whose gradient 2 g (x - t) / D is exactly a midpoint of `type`: g = G 2^i, d = f c 2^j
// (f the odd part of D = 2^a f, c odd of at most 7 bits), so the gradient is G c 2^(1 + i + j - a)
// with G c odd and of precision + 1 bits (below the range, any odd G c below 2^precision).
std::optional<ElementInputs> GradientTie(std::mt19937_64& rng, FloatType type, int64_t divisor) {
  const Format format = FormatOf(type);
  const int p = format.precision, a = __builtin_ctzll(static_cast<uint64_t>(divisor));
  const int64_t f = divisor >> a;
  const bool subnormal = rng() % 8 == 0;
  const int quantum = format.min_exponent - (p - 1);
  for (int attempt = 0; attempt < 50; ++attempt) {
    const int64_t c = OddIn(rng, 1, int64_t{1} << (1 + rng() % 7));
    const int64_t low = subnormal ? 1 : ((int64_t{1} << p) + c - 1) / c;
    const int64_t high =
        std::min(((int64_t{1} << (subnormal ? p : p + 1)) - 1) / c, (int64_t{1} << 24) - 1);
    const int64_t big_g = OddIn(rng, low, high);
    if (big_g == 0 || BitLength(f * c) > 48) continue;
    // The midpoint's last bit: 2^(e - p) for a normal one in binade e, 2^(quantum - 1) below.
    const int last =
        subnormal ? quantum - 1
                  : format.min_exponent +
                        static_cast<int>(rng() % static_cast<uint64_t>(format.max_exponent -
                                                                       format.min_exponent + 1)) -
                        p;
    // last = 1 + i + j - a; g = G 2^i with i in fp32's range.
    const int i = -149 + static_cast<int>(rng() % 250);
    const int j = last - 1 - i + a;
    if (i + BitLength(big_g) > 127 || !Splittable(f * c, j)) continue;
    ElementInputs in = WithDifference(rng, f * c, j);
    in.g = static_cast<float>(std::ldexp(static_cast<double>(big_g), i));
    if (Coin(rng)) in.g = -in.g;
    return in;
  }
  return std::nullopt;
}

// The same inputs one unit beside: t moved to its neighbour (from 0 to a power of two far below
// x), so that the exact value lies next to the midpoint, by less than fp64 can tell where t is
// tiny.
ElementInputs Beside(std::mt19937_64& rng, ElementInputs in) {
  if (in.t != 0.0f) {
    in.t = std::nextafter(in.t, Coin(rng) ? HUGE_VALF : -HUGE_VALF);
  } else {
    const int top = std::ilogb(in.x);
    const int low = std::max(-149, top - 100), high = std::max(low, top - 25);
    const float tiny = std::ldexp(1.0f, low + static_cast<int>(rng() % (high - low + 1)));
    in.t = Coin(rng) ? tiny : -tiny;
  }
  return in;
}

// Inputs whose exact element lies within about 2^-48 of a midpoint m of `type` (the estimate's
// bound is 2^-50): d is the 48-bit rounding (down or up) of sqrt(m D) for the loss, of m D / (2 g)
// for the gradient (g a random fp32), split into x and t.
std::optional<ElementInputs> NearTie(std::mt19937_64& rng, LossKind kind, FloatType type,
                                     int64_t divisor) {
  const Format format = FormatOf(type);
  const int p = format.precision;
  const int64_t big_m = OddIn(rng, int64_t{1} << p, (int64_t{1} << (p + 1)) - 1);
  const int e = format.min_exponent +
                static_cast<int>(
                    rng() % static_cast<uint64_t>(format.max_exponent - format.min_exponent + 1));
  const mpq_class m = TimesPow2(mpq_class(static_cast<long>(big_m)), e - p);
  const mpq_class target = m * mpq_class(static_cast<long>(divisor));
  ElementInputs in;
  in.g = static_cast<float>(Uniform(rng, 0.5, 4));
  // d = d_int 2^-k with d_int of 48 bits.
  double approximate = 0.0;
  if (kind == LossKind::kLoss) {
    approximate = std::sqrt(target.get_d());
  } else {
    approximate = target.get_d() / (2.0 * in.g);
  }
  const int k = 47 - std::ilogb(approximate);
  if (!Splittable(int64_t{1} << 47, -k)) return std::nullopt;
  mpz_class d_int;
  if (kind == LossKind::kLoss) {
    const mpq_class scaled = TimesPow2(target, 2 * k);  // an integer where 2k >= p - e
    if (scaled.get_den() != 1) return std::nullopt;
    d_int = sqrt(scaled.get_num());  // floor
  } else {
    const mpq_class scaled = TimesPow2(target / (2 * Rational(in.g)), k);
    d_int = scaled.get_num() / scaled.get_den();
  }
  d_int += static_cast<long>(rng() % 2);
  if (mpz_sizeinbase(d_int.get_mpz_t(), 2) > 48) return std::nullopt;
  const ElementInputs split = WithDifference(rng, static_cast<int64_t>(d_int.get_si()), -k);
  in.x = split.x, in.t = split.t;
  return in;
}

TEST(MseLossElement, TiesAndNearTiesAreCorrectlyRounded) {
  std::mt19937_64 rng(1037);
  for (const LossKind kind : kKinds) {
    for (const FloatType type : kTypes) {
      Tally ties, beside, near;
      for (const int64_t divisor : kDivisors) {
        for (int64_t i = 0; i < 300 / kSampleScale; ++i) {
          const std::optional<ElementInputs> tie = kind == LossKind::kLoss
                                                       ? LossTie(rng, type, divisor)
                                                       : GradientTie(rng, type, divisor);
          if (tie.has_value()) {
            Check(ties, kind, *tie, divisor, type);
            Check(beside, kind, Beside(rng, *tie), divisor, type);
          }
          const std::optional<ElementInputs> near_tie = NearTie(rng, kind, type, divisor);
          if (near_tie.has_value()) Check(near, kind, *near_tie, divisor, type);
        }
      }
      const std::string what = std::string(KindName(kind)) + ", " + TypeName(type);
      Report(ties, "ties, " + what);
      Report(beside, "beside ties, " + what);
      Report(near, "within 2^-48 of a midpoint, " + what);
      // The inputs must reach every path, or this test tests less than it says.
      EXPECT_GT(ties.count, 1000 / kSampleScale) << what;
      EXPECT_GT(ties.at_once, ties.count / 10) << what;
      EXPECT_GT(ties.exact, ties.count / 10) << what;
      EXPECT_GT(beside.exact, beside.count / 20) << what;
      EXPECT_GT(near.exact, near.count / 100) << what;
      EXPECT_LT(near.exact + near.at_once, near.count) << what << ": some settle by the estimate";
    }
  }
}

// Results at the edges of each type's range, each exactly on its rounding boundary (ties to even:
// the overflow threshold goes to inf, half the least subnormal to 0) and next to it; the expected
// values written out, and the oracle agreeing.
TEST(MseLossElement, RangeEdgesAndTheirTiesAreRoundedAsIeeeSays) {
  struct Case {
    LossKind kind;
    FloatType type;
    float x, t, g;
    int64_t divisor;
    float expected;
  };
  const float tiny = 0x1p-149f, inf = HUGE_VALF;
  const LossKind loss = LossKind::kLoss, grad = LossKind::kGradSelf;
  const FloatType fp32 = FloatType::kFloat32, fp16 = FloatType::kFloat16,
                  bf16 = FloatType::kBFloat16;
  const Case cases[] = {
      // 2 g d = 2^128 - 2^103, fp32's overflow threshold (18631 * 1801 = 2^25 - 1), and beside.
      {grad, fp32, 1801.0f * 0x1p51f, 0.0f, 18631.0f * 0x1p51f, 1, inf},
      {grad, fp32, 1801.0f * 0x1p51f, tiny, 18631.0f * 0x1p51f, 1, 0x1.fffffep127f},
      {grad, fp32, 0.0f, 1801.0f * 0x1p51f, 18631.0f * 0x1p51f, 1, -inf},
      // The same over D = 3: 2 g d = 3 (2^128 - 2^103).
      {grad, fp32, 1801.0f * 0x1p51f, 0.0f, 3 * 18631.0f * 0x1p51f, 3, inf},
      {grad, fp32, 1801.0f * 0x1p51f, tiny, 3 * 18631.0f * 0x1p51f, 3, 0x1.fffffep127f},
      // d^2 beyond every range: x - t overflows fp32, the loss is inf, the gradient exact.
      {loss, fp32, 0x1.fffffep127f, -0x1.fffffep127f, 1.0f, 1, inf},
      {grad, fp32, 0x1.fffffep127f, -0x1.fffffep127f, 0x1p-120f, 1, 0x1.fffffep9f},
      {grad, fp32, 0x1.fffffep127f, -0x1.fffffep127f, 0.0f, 1, 0.0f},
      // d^2 = 2^-150 (d = 2^-75), half fp32's least subnormal: to 0; beside it: up. d^2 =
      // 3^2 2^-150: between 4 and 5 times the least subnormal, to even (4).
      {loss, fp32, 0x1p-75f, 0.0f, 1.0f, 1, 0.0f},
      {loss, fp32, 0x1p-75f, -tiny, 1.0f, 1, tiny},
      {loss, fp32, 3 * 0x1p-75f, 0.0f, 1.0f, 1, 4 * tiny},
      {loss, fp32, 3 * 0x1p-75f, tiny, 1.0f, 1, 4 * tiny},
      {loss, fp32, 5 * 0x1p-75f, 0.0f, 1.0f, 1, 12 * tiny},  // 12.5: even
      {loss, fp32, 5 * 0x1p-75f, -tiny, 1.0f, 1, 13 * tiny},
      // 2 g d = 2^-150: to 0 with its sign.
      {grad, fp32, 0.25f, 0.0f, tiny, 1, 0.0f},
      {grad, fp32, 0.25f, -tiny, tiny, 1, tiny},
      {grad, fp32, -0.25f, 0.0f, tiny, 1, -0.0f},
      // fp16: 2 g d = 65520, the overflow threshold; 2^-25, half the least subnormal.
      {grad, fp16, 8.0f, 0.0f, 4095.0f, 1, inf},
      {grad, fp16, 8.0f, tiny, 4095.0f, 1, 65504.0f},
      {grad, fp16, 0x1p-13f, 0.0f, 0x1p-13f, 1, 0.0f},
      {grad, fp16, 0x1p-13f, -tiny, 0x1p-13f, 1, 0x1p-24f},
      {grad, fp16, 0x1p-13f, 0.0f, -0x1p-13f, 1, -0.0f},
      // fp16 losses: d^2 = 65536 - 16 is no square; 255.96875^2 = 65520.0009765625: inf. 2^-26:
      // below half the least subnormal; 3 2^-26 above it.
      {loss, fp16, 255.96875f, 0.0f, 1.0f, 1, inf},
      {loss, fp16, 255.9375f, 0.0f, 1.0f, 1, 65504.0f},
      {loss, fp16, 0x1p-13f, 0.0f, 1.0f, 1, 0.0f},
      {loss, fp16, 0x1p-13f, 0x1p-12f, 1.0f, 1, 0.0f},
      // bf16: 2 g d = 2^128 - 2^119, its overflow threshold; d^2 = 2^-134 (d = 2^-67), half its
      // least subnormal.
      {grad, bf16, 0x1p59f, 0.0f, 511.0f * 0x1p59f, 1, inf},
      {grad, bf16, 0x1p59f, tiny, 511.0f * 0x1p59f, 1, 0x1.fep127f},
      {loss, bf16, 0x1p-67f, 0.0f, 1.0f, 1, 0.0f},
      {loss, bf16, 0x1p-67f, -tiny, 1.0f, 1, 0x1p-133f},
  };
  for (const Case& c : cases) {
    const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
    const std::string what = Describe(c.kind, in, c.divisor, c.type);
    EXPECT_EQ(Bits(MseLossFamily::Element(c.kind, DividedBy(c.divisor), in, c.type)),
              Bits(c.expected))
        << what;
    EXPECT_EQ(Bits(Expected(c.kind, in, c.divisor, c.type)), Bits(c.expected)) << "oracle " << what;
  }
}

TEST(MseLossElement, ZerosCarryTheSignOfTheFormula) {
  struct Case {
    LossKind kind;
    float x, t, g;
    bool negative;
  };
  const LossKind loss = LossKind::kLoss, grad = LossKind::kGradSelf;
  const Case cases[] = {
      {loss, 0.3f, 0.3f, 1.0f, false},  {loss, -0.0f, 0.0f, 1.0f, false},
      {loss, 0.0f, -0.0f, 1.0f, false}, {loss, -2.5f, -2.5f, -1.0f, false},
      {grad, 0.3f, 0.3f, 1.0f, false},  {grad, 0.3f, 0.3f, -1.0f, true},
      {grad, -0.0f, 0.0f, 1.0f, true},  {grad, -0.0f, 0.0f, -1.0f, false},
      {grad, 0.0f, -0.0f, 1.0f, false}, {grad, -0.0f, -0.0f, 1.0f, false},
      {grad, 0.2f, 0.7f, 0.0f, true},   {grad, 0.2f, 0.7f, -0.0f, false},
      {grad, 0.7f, 0.2f, -0.0f, true},  {grad, 1e30f, -1e30f, 0.0f, false},
  };
  for (const FloatType type : kTypes) {
    for (const int64_t divisor : kDivisors) {
      for (const Case& c : cases) {
        const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
        const float got = MseLossFamily::Element(c.kind, DividedBy(divisor), in, type);
        const std::string what = Describe(c.kind, in, divisor, type);
        EXPECT_EQ(Bits(got), Bits(c.negative ? -0.0f : 0.0f)) << what;
        EXPECT_EQ(Bits(Expected(c.kind, in, divisor, type)), Bits(got)) << "oracle " << what;
      }
      // Nonzero values that underflow keep their own sign: -2^-172, and 2^-198.
      const ElementInputs gradient{0.5f, 0.5f + 0x1p-24f, 1.0f, 1.0f, 0x1p-149f};
      EXPECT_EQ(
          Bits(MseLossFamily::Element(LossKind::kGradSelf, DividedBy(divisor), gradient, type)),
          Bits(-0.0f));
      const ElementInputs square{0x1p-100f, -0x1p-100f, 1.0f, 1.0f, 1.0f};
      EXPECT_EQ(Bits(MseLossFamily::Element(LossKind::kLoss, DividedBy(divisor), square, type)),
                Bits(0.0f));
    }
  }
}

// The class IEEE arithmetic gives the formula (as CANN and torch): d = x - t is inf - inf = NaN
// for equal infinities, +-inf for one infinite input; d^2 = +inf; 2 g d is 0 * inf = NaN where g
// or d is 0 and the other infinite.
TEST(MseLossElement, NonFiniteInputsTakeTheFormulasClass) {
  const float inf = HUGE_VALF, nan = std::nanf("");
  struct Case {
    float x, t, g, loss, gradient;
  };
  const Case cases[] = {
      {inf, 0.5f, 1.0f, inf, inf},       {-inf, 0.5f, 1.0f, inf, -inf},
      {0.5f, inf, 1.0f, inf, -inf},      {0.5f, -inf, -2.0f, inf, -inf},
      {inf, -inf, 1.0f, inf, inf},       {inf, inf, 1.0f, nan, nan},
      {-inf, -inf, 1.0f, nan, nan},      {nan, 0.5f, 1.0f, nan, nan},
      {0.5f, nan, 1.0f, nan, nan},       {inf, 0.5f, 0.0f, inf, nan},
      {0.7f, 0.2f, inf, 0.25f, inf},     {0.7f, 0.2f, -inf, 0.25f, -inf},
      {0.4f, 0.4f, inf, 0.0f, nan},      {0.7f, 0.2f, nan, 0.25f, nan},
      {0x1p-149f, 0.0f, inf, 0.0f, inf},  // 2 g d / D is inf, whatever D
  };
  for (const FloatType type : kTypes) {
    const float canonical_nan = RoundedTo(kCanonicalNaN, type);
    for (const int64_t divisor : kDivisors) {
      for (const Case& c : cases) {
        const ElementInputs in{c.x, c.t, 1.0f, 1.0f, c.g};
        const ElementParameters p = DividedBy(divisor);
        const float gradient = std::isnan(c.gradient) ? canonical_nan : c.gradient;
        EXPECT_EQ(Bits(MseLossFamily::Element(LossKind::kGradSelf, p, in, type)), Bits(gradient))
            << Describe(LossKind::kGradSelf, in, divisor, type);
        if (std::isfinite(c.loss)) continue;  // the loss reads no g: finite x, t are tested above
        const float loss = std::isnan(c.loss) ? canonical_nan : c.loss;
        EXPECT_EQ(Bits(MseLossFamily::Element(LossKind::kLoss, p, in, type)), Bits(loss))
            << Describe(LossKind::kLoss, in, divisor, type);
      }
    }
  }
}

}  // namespace
}  // namespace openaclnn::mse_test
