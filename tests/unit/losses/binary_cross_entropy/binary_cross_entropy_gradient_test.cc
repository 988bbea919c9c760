// The binary cross entropy gradient (binary_cross_entropy_gradient.h): every result correctly
// rounded into fp32, fp16 and bf16, against an exact rational oracle (GMP, rational_oracle.h), on
// random inputs and on inputs built on and next to rounding boundaries (ties, the floor, the edges
// of each type's range, zeros), and the estimate's bound on every sample.
#include "losses/binary_cross_entropy/binary_cross_entropy_gradient.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "../../kernels/rational_oracle.h"
#include "../../kernels/rounding_harness.h"
#include "base/dtype.h"

namespace openaclnn {
namespace {

constexpr FloatType kTypes[] = {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16};
const double kFloor = static_cast<double>(1e-12f);
// 1 (none, sum) and fl64(1/N) for a few N (mean), one of them a power of two.
const int64_t kDivisors[] = {1, 3, 7, 1000, 1048577, 1024};

// v rounded to `type` (as a tensor of that dtype holds it) and widened back; beyond fp16's range
// its largest value, so that random inputs stay finite.
float Narrow(float v, FloatType type) {
  if (type == FloatType::kFloat32) return v;
  if (type == FloatType::kFloat16)
    return Float16ToFloat(FloatToFloat16(std::fmax(std::fmin(v, 65504.0f), -65504.0f)));
  return BFloat16ToFloat(FloatToBFloat16(v));
}
ElementInputs Narrow(ElementInputs in, FloatType type) {
  return {Narrow(in.x, type), Narrow(in.t, type), Narrow(in.w, type), 1.0f, Narrow(in.g, type)};
}

// The exact gradient: g w (x - t) / max(x (1 - x), fl32(1e-12)) / N, from the inputs' exact
// values.
mpq_class ExactGradient(const ElementInputs& in, int64_t divisor) {
  const mpq_class x = Rational(in.x), t = Rational(in.t);
  const mpq_class product = x * (1 - x), floor = Rational(kFloor);
  return Rational(in.g) * Rational(in.w) * (x - t) /
         ((product > floor ? product : floor) * mpq_class(static_cast<double>(divisor)));
}

// The sign IEEE arithmetic gives the formula's exact zero: the product of its factors' signs, x - t
// being -0 only for (-0) - (+0).
bool NegativeZero(const ElementInputs& in) {
  const bool difference =
      in.x < in.t || (in.x == in.t && std::signbit(in.x) && !std::signbit(in.t));
  return (std::signbit(in.g) != std::signbit(in.w)) != difference;
}

float Expected(const ElementInputs& in, int64_t divisor, FloatType type) {
  return static_cast<float>(RoundRational(ExactGradient(in, divisor), type, NegativeZero(in)));
}

float Gradient(const ElementInputs& in, int64_t divisor, FloatType type) {
  return BinaryCrossEntropyGradient(in, DividedBy(divisor), type);
}

uint32_t Bits(float v) { return BitCast<uint32_t>(v); }

std::string Describe(const ElementInputs& in, int64_t divisor) {
  char text[200];
  std::snprintf(text, sizeof text, "x=%a t=%a w=%a g=%a divisor=%lld", in.x, in.t, in.w, in.g,
                static_cast<long long>(divisor));
  return text;
}

// Results compared with the oracle, and how many took the exact path.
struct Tally {
  int64_t count = 0, open = 0, wrong = 0;
  std::string first_wrong;
};

void Check(Tally& tally, const ElementInputs& in, int64_t divisor, FloatType type) {
  const float got = Gradient(in, divisor, type);
  const float expected = Expected(in, divisor, type);
  ++tally.count;
  double settled = 0.0;
  const double scale = DividedBy(divisor).scale;
  if (!SettledIn(BinaryCrossEntropyGradientEstimate(in, scale), type, &settled)) ++tally.open;
  if (Bits(got) != Bits(expected)) {
    if (tally.wrong++ == 0) {
      tally.first_wrong = Describe(in, divisor) + ": got " + std::to_string(got) + " (" +
                          std::to_string(Bits(got)) + "), expected " + std::to_string(expected) +
                          " (" + std::to_string(Bits(expected)) + ")";
    }
  }
}

void ExpectEveryResultRounded(const Tally& tally, const std::string& what) {
  std::cout << what << ": " << tally.count << " results, " << tally.open << " on the exact path, "
            << tally.wrong << " wrong\n";
  EXPECT_EQ(tally.wrong, 0) << what << ": first " << tally.first_wrong;
}

double Uniform(std::mt19937& rng, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(rng);
}
// +-2^e, e uniform in [low, high], with a random fp32 significand.
float LogUniform(std::mt19937& rng, double low, double high) {
  const double magnitude = std::exp2(Uniform(rng, low, high));
  return static_cast<float>(Uniform(rng, 0, 1) < 0.5 ? -magnitude : magnitude);
}

// x mostly in [0, 1] (uniform, near 0 down to fp32's subnormals, near 1, at 0, 1/2 and 1), one in
// 16 outside; t in [0, 1] (a third hard labels), one in 16 outside; w and g of either sign,
// mostly in [-4, 4], one in 8 of any magnitude from 2^-149 to 2^127 (results at both ends of each
// type's range).
ElementInputs RandomInputs(std::mt19937& rng) {
  ElementInputs in;
  const double kind = Uniform(rng, 0, 1);
  if (kind < 0.5) {
    in.x = static_cast<float>(Uniform(rng, 0, 1));
  } else if (kind < 0.65) {
    in.x = std::fabs(LogUniform(rng, -149, 0));
  } else if (kind < 0.8) {
    in.x = 1.0f - std::fabs(LogUniform(rng, -24, -1));
  } else if (kind < 0.88) {
    in.x = std::fabs(LogUniform(rng, -41, -38));  // about the floor
  } else if (kind < 0.94) {
    const float special[] = {0.0f, 0.5f, 1.0f, 0.25f, -0.0f};
    in.x = special[std::uniform_int_distribution<int>(0, 4)(rng)];
  } else {
    in.x = static_cast<float>(Uniform(rng, 0, 1) < 0.5 ? Uniform(rng, -3, 0) : Uniform(rng, 1, 4));
  }
  const double label = Uniform(rng, 0, 1);
  in.t = label < 1.0 / 6     ? 0.0f
         : label < 1.0 / 3   ? 1.0f
         : label < 15.0 / 16 ? static_cast<float>(Uniform(rng, 0, 1))
                             : static_cast<float>(Uniform(rng, -2, 3));
  const bool wide = Uniform(rng, 0, 1) < 1.0 / 8;
  in.w = wide ? LogUniform(rng, -149, 127) : static_cast<float>(Uniform(rng, -4, 4));
  in.g = wide ? LogUniform(rng, -149, 127) : static_cast<float>(Uniform(rng, -2, 2));
  return in;
}

TEST(BinaryCrossEntropyGradient, RandomResultsAreCorrectlyRounded) {
  std::mt19937 rng(32);
  for (FloatType type : kTypes) {
    Tally tally;
    for (int i = 0; i < 240000 / kSampleScale; ++i) {
      ElementInputs in = RandomInputs(rng);
      // 16-bit outputs: half of them of 16-bit inputs, half of fp32 ones (promotion).
      if (type != FloatType::kFloat32 && i % 2 == 0) in = Narrow(in, type);
      Check(tally, in, kDivisors[i % std::size(kDivisors)], type);
    }
    ExpectEveryResultRounded(tally, std::string("random, ") + TypeName(type));
  }
}

// A random significand of `bits` bits (the top one set) times 2^exponent, of either sign.
float Short(std::mt19937& rng, int bits, int exponent) {
  const int top = 1 << (bits - 1);
  const int significand = std::uniform_int_distribution<int>(top, 2 * top - 1)(rng);
  const float v = std::ldexp(static_cast<float>(significand), exponent - (bits - 1));
  return Uniform(rng, 0, 1) < 0.5 ? -v : v;
}

// Inputs whose gradient is exact and short: g and w of about half the output's precision plus
// one, so that g*w often lands on a midpoint, times a power of two by x and t: x = 1/2 (with
// t = 0, 1, 1/4 or 3/4), t = 1 and x = 2^-k (-g w 2^k), t = 0 and x = 1 - 2^-k (g w 2^k),
// x = 1/4 and t = 1/4 - 3 * 2^-k (g w 2^(4-k)), x at 0 or 1 with g a multiple of the floor, and
// t = 1 with x of 10 bits in [2^-39, 2^-33), whose x (1 - x) is inexact in fp64, and g a multiple
// of x (-g w / x). With `near`, x = 1/2 and t = +-2^-k for k up to 149: next to
// such a value, not on it.
ElementInputs ShortExactInputs(std::mt19937& rng, FloatType type, bool near) {
  const int precision = FormatOf(type).precision, bits = precision / 2 + 2;
  ElementInputs in;
  in.g = Short(rng, bits, std::uniform_int_distribution<int>(-4, 4)(rng));
  in.w = Short(rng, bits, std::uniform_int_distribution<int>(-4, 4)(rng));
  const int k = std::uniform_int_distribution<int>(1, 20)(rng);
  if (near) {
    in.x = 0.5f;
    const float tiny = std::ldexp(1.0f, -std::uniform_int_distribution<int>(26, 149)(rng));
    in.t = Uniform(rng, 0, 1) < 0.5 ? tiny : -tiny;
    return in;
  }
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0: {
      const float labels[] = {0.0f, 1.0f, 0.25f, 0.75f};
      in.x = 0.5f, in.t = labels[std::uniform_int_distribution<int>(0, 3)(rng)];
      break;
    }
    case 1:
      in.x = std::ldexp(1.0f, -k), in.t = 1.0f;
      break;
    case 2:
      in.x = 1.0f - std::ldexp(1.0f, -k), in.t = 0.0f;
      break;
    case 3:
      in.x = 0.25f, in.t = 0.25f - 3 * std::ldexp(1.0f, -k - 2);
      break;
    case 4:
      in.x = std::fabs(Short(rng, 10, -std::uniform_int_distribution<int>(34, 39)(rng)));
      in.t = 1.0f, in.g *= in.x;
      break;
    default:
      in.x = Uniform(rng, 0, 1) < 0.5 ? 0.0f : 1.0f;
      in.t = Short(rng, 3, -1);
      in.g = static_cast<float>(1e-12f * std::ldexp(1.0f, k));
      break;
  }
  return in;
}

TEST(BinaryCrossEntropyGradient, ExactResultsOnAndNextToMidpointsAreCorrectlyRounded) {
  std::mt19937 rng(1032);
  for (FloatType type : kTypes) {
    for (bool near : {false, true}) {
      Tally tally;
      for (int i = 0; i < 40000 / kSampleScale; ++i) {
        // Divisors 1 and 2^10 keep the value exact; 3 takes it off the grid. Next to a midpoint:
        // x = 1/2 with a tiny t, or divisors 5, 7 and 1000003.
        const int64_t divisors[] = {1, 1024, 3, 5, 7, 1000003};
        const int64_t divisor = divisors[i % (near ? 6 : 3)];
        Check(tally, ShortExactInputs(rng, type, near && i % 6 < 3), divisor, type);
      }
      ExpectEveryResultRounded(
          tally, std::string(near ? "next to midpoints, " : "ties, ") + TypeName(type));
      // The inputs must reach the exact path, or this test tests nothing.
      EXPECT_GT(tally.open, tally.count / 20) << TypeName(type);
    }
  }
}

// Results at the edges of each type's range, each exactly on its rounding boundary (ties to even:
// the overflow threshold goes to inf, half the smallest subnormal to 0) and next to it; the
// expected values written out, and the oracle agreeing.
TEST(BinaryCrossEntropyGradient, RangeEdgesAndTheirTiesAreRoundedAsIeeeSays) {
  struct Case {
    FloatType type;
    float g, w, t;  // x = 1/2: the gradient is 2 g w (1 - 2t)
    float expected;
  };
  const float tiny = 0x1p-149f;
  const Case cases[] = {
      // fp32: 2 g w = 2^128 - 2^103 (18631 * 1801 = 2^25 - 1), the overflow threshold.
      {FloatType::kFloat32, 18631.0f * 0x1p51f, 1801.0f * 0x1p51f, 0.0f, HUGE_VALF},
      {FloatType::kFloat32, 18631.0f * 0x1p51f, 1801.0f * 0x1p51f, tiny, 0x1.fffffep127f},
      {FloatType::kFloat32, -18631.0f * 0x1p51f, 1801.0f * 0x1p51f, 0.0f, -HUGE_VALF},
      // fp32: 2 g w = 2^-150, half the smallest subnormal.
      {FloatType::kFloat32, 0x1p-149f, 0.25f, 0.0f, 0.0f},
      {FloatType::kFloat32, 0x1p-149f, 0.25f, -tiny, 0x1p-149f},
      {FloatType::kFloat32, -0x1p-149f, 0.25f, 0.0f, -0.0f},
      // fp16: 2 g w = 65520 (4095 * 16), the overflow threshold; 2^-25.
      {FloatType::kFloat16, 4095.0f, 8.0f, 0.0f, HUGE_VALF},
      {FloatType::kFloat16, 4095.0f, 8.0f, tiny, 65504.0f},
      {FloatType::kFloat16, 0x1p-13f, 0x1p-13f, 0.0f, 0.0f},
      {FloatType::kFloat16, 0x1p-13f, 0x1p-13f, -tiny, 0x1p-24f},
      {FloatType::kFloat16, 0x1p-13f, -0x1p-13f, 0.0f, -0.0f},
      // bf16: 2 g w = 2^128 - 2^119 (511 * 2^119); 2^-134.
      {FloatType::kBFloat16, 511.0f * 0x1p59f, 0x1p59f, 0.0f, HUGE_VALF},
      {FloatType::kBFloat16, 511.0f * 0x1p59f, 0x1p59f, tiny, 0x1.fep127f},
      {FloatType::kBFloat16, 0x1p-67f, 0x1p-68f, 0.0f, 0.0f},
      {FloatType::kBFloat16, 0x1p-67f, 0x1p-68f, -tiny, 0x1p-133f},
  };
  for (const Case& c : cases) {
    const ElementInputs in{0.5f, c.t, c.w, 1.0f, c.g};
    EXPECT_EQ(Bits(Gradient(in, 1, c.type)), Bits(c.expected))
        << TypeName(c.type) << " " << Describe(in, 1.0);
    EXPECT_EQ(Bits(Expected(in, 1.0, c.type)), Bits(c.expected)) << "oracle " << TypeName(c.type);
  }
}

TEST(BinaryCrossEntropyGradient, ZerosCarryTheSignOfTheFormulasFactors) {
  struct Case {
    float x, t, w, g;
    bool negative;
  };
  const Case cases[] = {
      {0.3f, 0.3f, 1.0f, 1.0f, false},   {0.3f, 0.3f, 1.0f, -1.0f, true},
      {0.3f, 0.3f, -1.0f, -1.0f, false}, {-0.0f, 0.0f, 1.0f, 1.0f, true},
      {0.0f, -0.0f, 1.0f, 1.0f, false},  {-0.0f, -0.0f, 1.0f, 1.0f, false},
      {1.0f, 1.0f, 2.0f, -3.0f, true},   {0.2f, 0.7f, 1.0f, -0.0f, false},
      {0.2f, 0.7f, 1.0f, 0.0f, true},    {0.7f, 0.2f, -0.0f, 5.0f, true},
      {2.0f, 2.0f, 1.0f, -1.0f, true},  // outside [0, 1]: floored, x - t = +0
  };
  for (FloatType type : kTypes) {
    for (int64_t divisor : {1, 3}) {
      for (const Case& c : cases) {
        const ElementInputs in{c.x, c.t, c.w, 1.0f, c.g};
        const float got = Gradient(in, divisor, type);
        EXPECT_EQ(Bits(got), Bits(c.negative ? -0.0f : 0.0f)) << Describe(in, divisor);
        EXPECT_EQ(Bits(Expected(in, divisor, type)), Bits(got))
            << "oracle " << Describe(in, divisor);
      }
    }
    // A nonzero gradient that underflows keeps its own sign: -2^-200 / 1/4.
    const ElementInputs underflow{0.5f, 0.5f + 0x1p-24f, 0x1p-100f, 1.0f, 0x1p-100f};
    EXPECT_EQ(Bits(Gradient(underflow, 1, type)), Bits(-0.0f));
  }
}

TEST(BinaryCrossEntropyGradient, NonFiniteInputsTakeTheFormulasClass) {
  const float inf = HUGE_VALF, nan = std::nanf("");
  struct Case {
    float x, t, w, g, expected;
  };
  const Case cases[] = {
      {inf, 0.5f, 1.0f, 1.0f, inf},    // (inf - t) / floor
      {-inf, 0.5f, 1.0f, 1.0f, -inf},  // x (1 - x) = -inf: floored
      {0.5f, inf, 1.0f, 1.0f, -inf},  {0.5f, -inf, 2.0f, 1.0f, inf}, {0.5f, inf, -1.0f, 1.0f, inf},
      {0.7f, 0.2f, 2.0f, -inf, -inf}, {0.7f, 0.2f, 0.0f, inf, nan},  // 0 * inf
      {0.4f, 0.4f, 1.0f, inf, nan},                                  // x - t = 0
      {inf, inf, 1.0f, 1.0f, nan},    {nan, 0.5f, 1.0f, 1.0f, nan},  {0.5f, 0.1f, nan, 1.0f, nan},
      {0.5f, nan, 1.0f, 1.0f, nan},   {0.5f, 0.1f, 1.0f, -nan, nan},
  };
  for (FloatType type : kTypes) {
    const float canonical_nan = RoundedTo(kCanonicalNaN, type);
    for (const Case& c : cases) {
      const ElementInputs in{c.x, c.t, c.w, 1.0f, c.g};
      const float got = Gradient(in, 3, type);
      const float expected = std::isnan(c.expected) ? canonical_nan : c.expected;
      EXPECT_EQ(Bits(got), Bits(expected)) << TypeName(type) << " " << Describe(in, 3);
    }
  }
}

// The floor decision, max(x (1 - x), fl32(1e-12)), for every fp32 x in [2^-41, 2^-38) (the only
// binades where x (1 - x) comes near the floor), against exact integer arithmetic in units of
// 2^-128: x = M 2^-64, x^2 = M^2 2^-128, the floor E 2^-63.
TEST(BinaryCrossEntropyGradient, TheFloorDecisionIsExactForEveryX) {
  __extension__ typedef unsigned __int128 u128;
  const uint64_t floor_units = static_cast<uint64_t>(std::ldexp(kFloor, 63));  // E, exact
  ASSERT_EQ(std::ldexp(static_cast<double>(floor_units), -63), kFloor);
  int64_t floored = 0;
  for (uint32_t bits = Bits(0x1p-41f); bits < Bits(0x1p-38f); ++bits) {
    const float x = BitCast<float>(bits);
    const uint64_t m = static_cast<uint64_t>(std::ldexp(static_cast<double>(x), 64));
    const bool above = (u128{m} << 64) - u128{m} * m > (u128{floor_units} << 65);
    const double denominator = math::GradientDenominator64<math::ScalarOps64>(x);
    ASSERT_EQ(denominator != kFloor, above) << std::hexfloat << x;
    ASSERT_EQ(
        denominator != kFloor,
        math::exact::ExactGradientQuotient({x, 0.0f, 1.0f, 1.0f, 1.0f}).denominator.hi != kFloor);
    floored += above ? 0 : 1;
  }
  EXPECT_GT(floored, 1 << 20);  // both sides of the floor were seen
  EXPECT_LT(floored, 3 << 23);
  // And the gradients around it, in every type.
  std::mt19937 rng(7);
  for (FloatType type : kTypes) {
    Tally tally;
    for (int k = -3000; k <= 3000; ++k) {
      const float x = BitCast<float>(static_cast<uint32_t>(Bits(1e-12f) + k));
      const ElementInputs in{x, static_cast<float>(Uniform(rng, 0, 1)), 1.0f, 1.0f,
                             static_cast<float>(Uniform(rng, -2, 2))};
      Check(tally, in, kDivisors[(k + 3000) % std::size(kDivisors)], type);
    }
    ExpectEveryResultRounded(tally, std::string("about the floor, ") + TypeName(type));
  }
}

// |estimate - exact| <= bound, exactly, on two million random inputs (fp32 and 16-bit), and the
// worst error seen, relative to the exact value, in units of 2^-53 (the bound is 8).
TEST(BinaryCrossEntropyGradient, TheEstimatesBoundHoldsOnEverySample) {
  std::mt19937 rng(64);
  double worst = 0;
  int64_t failures = 0;
  std::string first;
  for (int i = 0; i < 2000000 / kSampleScale; ++i) {
    ElementInputs in = RandomInputs(rng);
    if (i % 3 != 0) in = Narrow(in, kTypes[i % 3]);
    const int64_t divisor = kDivisors[i % std::size(kDivisors)];
    const ElementEstimate estimate =
        BinaryCrossEntropyGradientEstimate(in, DividedBy(divisor).scale);
    const mpq_class exact = ExactGradient(in, divisor);
    const mpq_class error = abs(Rational(estimate.value) - exact);
    if (error > Rational(estimate.bound) && failures++ == 0) first = Describe(in, divisor);
    if (exact != 0) worst = std::max(worst, mpq_class(error / abs(exact)).get_d() * 0x1p53);
  }
  std::cout << "estimate: worst relative error " << worst << " * 2^-53\n";
  EXPECT_EQ(failures, 0) << first;
  EXPECT_LE(worst, 6.02);
}

TEST(SignOfSum, IsExactWhereFp64SumsAreNot) {
  EXPECT_EQ(math::exact::SignOfSum({1.0, 0x1p-1074, -1.0}), 1);
  EXPECT_EQ(math::exact::SignOfSum({0x1p900, -0x1p-1074, -0x1p900}), -1);
  EXPECT_EQ(math::exact::SignOfSum({0x1p-1074, 1.0, -0x1p-1074, -1.0}), 0);
  EXPECT_EQ(math::exact::SignOfSum({1.0, 0x1p-53, 0x1p-53, -1.0, -0x1p-52}), 0);
  EXPECT_EQ(math::exact::SignOfSum({1.0, 0x1p-53, 0x1p-106, -1.0, -0x1p-53}), 1);
}

}  // namespace
}  // namespace openaclnn
