// The binary cross entropy loss, one element
// (losses/binary_cross_entropy/binary_cross_entropy_loss.h), against a binary128 oracle written
// here from logq and log1pq alone: the fp64 logarithm within its bound, every estimate within its
// bound, and every result correctly rounded to fp32, fp16 and bf16, on random inputs and on inputs
// built next to rounding boundaries (ties of the rational results, a clamped logarithm whose tiny
// other term decides a tie, x at 0, 1, e^-100 and 1/2, results at the edges of the 16-bit ranges);
// and NaN outside the domain.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "../../kernels/binary128_oracle.h"
#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/math.h"
#include "kernels/reduction.h"
#include "kernels/rounded_element.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_error_budget.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_loss.h"

#if defined(__x86_64__) && !__has_include(<quadmath.h>)
extern "C" __float128 logq(__float128);
#endif

namespace openaclnn {
namespace {

#if defined(__x86_64__)
Quad LogQ(Quad v) { return logq(v); }
#else
Quad LogQ(Quad v) { return logl(v); }
#endif

using O64 = math::ScalarOps64;

// ---- The oracle: l = -w t L1 - w (1 - t) L2 as an Exact pair. Its rational parts are exact in
// binary128 (100 w t: 55 bits; 100 w (1 - t) as 100 w - 100 w t), added to the transcendental
// ones by TwoSum, so that a tiny second term beside a rational first one keeps its sign.
Quad ClampedLogQ(Quad log) { return log < -100 ? Quad(-100) : log; }

// ln(1 - x) = -x + rest: binary128's log1p(-x) would round the rest away beside -x for a tiny x,
// so there it is the series -(x^2/2 + x^3/3 + x^4/4), within 2^-120 of itself for x < 2^-30.
Quad LogOneMinusRest(Quad x) {
  if (x >= Quad(0x1p-30)) return Log1p(-x) + x;
  return -x * x * (Quad(0.5) + x * (Quad(1) / 3 + x / 4));
}

Exact OracleLoss(float x, float t, float w) {
  const Quad qx = x, qt = t, qw = w;
  Exact total;
  if (x == 1.0f) {
    total = TwoSum(100 * qw, -100 * qw * qt);  // L1 = 0, L2 = -100
  } else {
    const Quad l1 = x == 0.0f ? Quad(-100) : ClampedLogQ(LogQ(qx));
    const Quad first = -qw * qt * l1;  // exact where clamped
    if (x < 0x1p-30f) {
      // -w (1 - t) L2 = w x - w x t (each exact) - w (1 - t) rest: L2 is not clamped here.
      total = Plus(Plus(TwoSum(first, qw * qx), Exact{-qw * qx * qt, 0}),
                   Exact{-qw * (1 - qt) * LogOneMinusRest(qx), 0});
    } else {
      total = TwoSum(first, -qw * (1 - qt) * ClampedLogQ(Log1p(-qx)));
    }
  }
  if (total.hi == 0) {
    // An exact zero (w = 0, or t = 0 at x = 0, t = 1 at x = 1) is the zero IEEE arithmetic gives
    // -(w t) L1 - (w (1 - t)) L2 (the contract's rule), with ln 1 = +0.
    const double l1 = x == 1.0f ? 0.0 : x == 0.0f ? -100.0 : static_cast<double>(LogQ(qx));
    const double l2 = x == 1.0f ? -100.0 : x == 0.0f ? 0.0 : static_cast<double>(Log1p(-qx));
    const double a = static_cast<double>(w) * t, b = static_cast<double>(w) * (1.0 - t);
    total = {-(a * l1) - b * l2, 0};
  }
  return total;
}

Quad OracleTerms(float x, float t, float w) {
  const Quad qx = x, qt = t, qw = w;
  const Quad l1 = x == 0.0f ? Quad(-100) : ClampedLogQ(LogQ(qx));
  const Quad l2 = x == 1.0f ? Quad(-100) : ClampedLogQ(Log1p(-qx));
  return Abs(qw * qt * l1) + Abs(qw * (1 - qt) * l2);
}

const char* TypeName(FloatType type) {
  return type == FloatType::kFloat32 ? "fp32" : type == FloatType::kFloat16 ? "fp16" : "bf16";
}

float InType(float v, FloatType type) {
  if (type == FloatType::kFloat32) return v;
  return type == FloatType::kFloat16 ? Float16ToFloat(FloatToFloat16(v))
                                     : BFloat16ToFloat(FloatToBFloat16(v));
}

constexpr FloatType kTypes[] = {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16};

struct Tally {
  int64_t count = 0, wrong = 0, open = 0;
  double worst_ulp = 0;
};

// Checks one element against the oracle, counting those the estimate leaves open (the exact path).
void Check(Tally& tally, const ElementInputs& in, FloatType type) {
  const float got = BinaryCrossEntropyLoss(in, type);
  const Exact exact = OracleLoss(in.x, in.t, in.w);
  const double want = RoundedOnce(exact, type);
  ++tally.count;
  double settled;
  if (!SettledIn(BinaryCrossEntropyEstimate(in), type, &settled)) ++tally.open;
  const bool same = BitCast<uint64_t>(static_cast<double>(got)) == BitCast<uint64_t>(want);
  if (!same) {
    ++tally.wrong;
    tally.worst_ulp = std::max(tally.worst_ulp, UlpError(got, exact, type));
    if (tally.wrong <= 5) {
      std::cout << "  wrong: x=" << std::hexfloat << in.x << " t=" << in.t << " w=" << in.w
                << " got " << got << " want " << want << std::defaultfloat << "\n";
    }
  }
}

void Report(const Tally& tally, const std::string& what) {
  std::cout << what << ": " << tally.count << " results, " << tally.open
            << " to the exact path, wrong " << tally.wrong << " (worst " << tally.worst_ulp
            << " ulp)\n";
  EXPECT_EQ(tally.wrong, 0) << what;
}

// x over [0, 1]: uniform, log-uniform down to fp32's smallest subnormal, 1 minus log-uniform, and
// 0 and 1 exactly; t uniform in [0, 1] with a third hard labels, one in eight in [-2, 3]; w in
// [-4, 4], one in sixteen 0.
ElementInputs RandomInput(std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ElementInputs in;
  const double kind = unit(rng);
  const double tiny = std::exp2(-149.0 * unit(rng));
  in.x = kind < 0.4    ? static_cast<float>(unit(rng))
         : kind < 0.65 ? static_cast<float>(tiny)
         : kind < 0.9  ? static_cast<float>(1.0 - tiny)
         : kind < 0.95 ? 0.0f
                       : 1.0f;
  const double label = unit(rng);
  in.t = label < 1.0 / 6   ? 0.0f
         : label < 1.0 / 3 ? 1.0f
         : label < 0.875   ? static_cast<float>(unit(rng))
                           : static_cast<float>(5 * unit(rng) - 2);
  in.w = unit(rng) < 1.0 / 16 ? 0.0f : static_cast<float>(8 * unit(rng) - 4);
  return in;
}

ElementInputs InTypeInputs(ElementInputs in, FloatType type) {
  return {InType(in.x, type), InType(in.t, type), InType(in.w, type), 1.0f, 1.0f};
}

// ---- The logarithm.

// Relative error of Log64 and LogOneMinus64 over every positive fp16 and bf16 x <= 1 and two
// million fp32 ones (log-uniform, and next to 1 and 1/2), against binary128: below kLogError64
// (the budget's derivation gives 2^-48.05); and the double-double forms within 2^-98.
TEST(BinaryCrossEntropyLog, EveryLogarithmIsWithinItsBound) {
  std::vector<float> xs;
  for (uint32_t bits = 1; bits <= 0x3c00u; ++bits) xs.push_back(Float16ToFloat(bits));
  for (uint32_t bits = 1; bits <= 0x3f80u; ++bits) xs.push_back(BFloat16ToFloat(bits));
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 2000000; ++i) {
    const double tiny = std::exp2(-149.0 * unit(rng));
    xs.push_back(static_cast<float>(i % 4 == 0   ? tiny
                                    : i % 4 == 1 ? 1.0 - tiny
                                    : i % 4 == 2 ? 0.5 + (unit(rng) - 0.5) * tiny
                                                 : unit(rng)));
  }
  double worst = 0, worst_one_minus = 0, worst_exact = 0;
  for (const float x : xs) {
    if (!(x > 0.0f && x <= 1.0f)) continue;
    const Quad log = LogQ(x);
    if (log != 0) {
      worst = std::max(worst, static_cast<double>(Abs((math::Log64<O64>(x) - log) / log)));
      const math::exact::DD dd = math::exact::Log(x);
      worst_exact =
          std::max(worst_exact, static_cast<double>(Abs((Quad(dd.hi) + Quad(dd.lo) - log) / log)));
    }
    if (x == 1.0f) continue;
    const Quad log_one_minus = Log1p(-Quad(x));
    worst_one_minus = std::max(
        worst_one_minus,
        static_cast<double>(Abs((math::LogOneMinus64<O64>(x) - log_one_minus) / log_one_minus)));
    const math::exact::DD dd = math::exact::LogOneMinus(x);
    worst_exact = std::max(
        worst_exact,
        static_cast<double>(Abs((Quad(dd.hi) + Quad(dd.lo) - log_one_minus) / log_one_minus)));
  }
  std::cout << "ln x: worst 2^" << std::log2(worst) << ", ln(1 - x): worst 2^"
            << std::log2(worst_one_minus) << ", double-double: worst 2^" << std::log2(worst_exact)
            << " (" << xs.size() << " x)\n";
  EXPECT_LT(worst, math::kLogError64);
  EXPECT_LT(worst_one_minus, math::kLogError64);
  EXPECT_LT(worst_exact, 0x1p-98);
  // The clamp's threshold: the double just above e^-100, so x < it exactly where ln x < -100.
  EXPECT_GT(LogQ(math::kLogFloorArgument64), Quad(-100));
  EXPECT_LT(LogQ(std::nextafter(math::kLogFloorArgument64, 0.0)), Quad(-100));
  EXPECT_EQ(math::ClampedLog64<O64>(0x1.ap-145), -100.0);  // 26 * 2^-149
  EXPECT_GT(math::ClampedLog64<O64>(0x1.bp-145), -100.0);  // 27 * 2^-149
  EXPECT_EQ(math::Log64<O64>(1.0), 0.0);
  EXPECT_EQ(math::LogOneMinus64<O64>(0.0), 0.0);
}

// ---- The estimate's bound and the exact form's accuracy.

// |estimate - exact| <= bound on three million random inputs (each of the three dtypes' values),
// and the double-double form within 2^-98 of the terms; the worst ratio of error to terms printed
// against kBinaryCrossEntropyLossError64.
TEST(BinaryCrossEntropyLossBound, EveryEstimateIsWithinItsBound) {
  std::mt19937 rng(20261205);
  double worst = 0, worst_exact = 0;
  int64_t count = 0;
  for (const FloatType type : kTypes) {
    for (int i = 0; i < 1000000; ++i) {
      const ElementInputs in = InTypeInputs(RandomInput(rng), type);
      const ElementEstimate estimate = BinaryCrossEntropyLossTerm(in);
      const Exact exact = OracleLoss(in.x, in.t, in.w);
      const Quad error = Abs((Quad(estimate.value) - exact.hi) - exact.lo);
      ASSERT_LE(static_cast<double>(error), estimate.bound)
          << std::hexfloat << in.x << " " << in.t << " " << in.w;
      const Quad terms = OracleTerms(in.x, in.t, in.w);
      if (terms > 0) worst = std::max(worst, static_cast<double>(error / terms));
      const math::exact::DD dd = BinaryCrossEntropyExactLossTerm(in);
      if (terms > 0) {
        worst_exact = std::max(
            worst_exact,
            static_cast<double>(Abs((Quad(dd.hi) - exact.hi) + (Quad(dd.lo) - exact.lo)) / terms));
      }
      ++count;
    }
  }
  std::cout << count << " estimates: worst error 2^" << std::log2(worst)
            << " of the terms (bound 2^" << std::log2(math::kBinaryCrossEntropyLossError64)
            << "); double-double 2^" << std::log2(worst_exact) << "\n";
  EXPECT_LT(worst_exact, 0x1p-98);
}

// ---- Correct rounding.

// Random inputs of each dtype, results of that dtype; and fp32 inputs with 16-bit results.
TEST(BinaryCrossEntropyLossRounding, RandomInputsAreCorrectlyRounded) {
  for (const FloatType type : kTypes) {
    std::mt19937 rng(20261206);
    Tally same_type, fp32_inputs;
    for (int i = 0; i < 300000; ++i) {
      const ElementInputs in = RandomInput(rng);
      Check(same_type, InTypeInputs(in, type), type);
      if (type != FloatType::kFloat32) Check(fp32_inputs, in, type);
    }
    Report(same_type, std::string("random, ") + TypeName(type));
    if (type != FloatType::kFloat32)
      Report(fp32_inputs, std::string("random fp32 inputs, ") + TypeName(type));
  }
}

// The output grid's significant bits and smallest normal exponent.
struct Format {
  int precision, min_exponent;
};
Format FormatOf(FloatType type) {
  return type == FloatType::kFloat32   ? Format{24, -126}
         : type == FloatType::kFloat16 ? Format{11, -14}
                                       : Format{8, -126};
}

// A random midpoint of `type` whose odd significand is a multiple of 25 (the odd part of 100), at
// an exponent between `low` and `high` (in units of the grid's spacing): 100 * w * t can then be
// exactly that midpoint, as 100 * (s * 2^e / 4) with s = significand / 25.
struct Midpoint {
  int64_t s;  // odd
  int exponent;
};
Midpoint RandomMidpoint(std::mt19937& rng, FloatType type, int low, int high) {
  const Format format = FormatOf(type);
  const int64_t lowest = (int64_t{1} << format.precision) / 25 + 1,
                highest = (int64_t{1} << (format.precision + 1)) / 25;
  int64_t s = std::uniform_int_distribution<int64_t>(lowest, highest)(rng) | 1;
  if (25 * s >= (int64_t{1} << (format.precision + 1))) s -= 2;
  return {s, std::uniform_int_distribution<int>(low, high)(rng)};
}

// Exact rational results on a midpoint of the output type (x = 0: 100 w t; x = 1: 100 w (1 - t)),
// both signs, t a power of two or 1 minus one; and the same with x a clamped fp32 subnormal
// (x <= 26 * 2^-149) and 1 - t nonzero, where -w (1 - t) ln(1 - x), near 1e-44 w, decides the tie.
TEST(BinaryCrossEntropyLossRounding, TiesAndTheTinyTermThatDecidesThemAreRoundedRight) {
  for (const FloatType type : kTypes) {
    std::mt19937 rng(11);
    Tally ties, decided;
    const Format format = FormatOf(type);
    for (int i = 0; i < 20000; ++i) {
      // Midpoints within the normal range and away from overflow, in units of the grid spacing
      // 2^(e - precision) of a value in [2^e, 2^(e+1)).
      const int top = type == FloatType::kFloat16 ? 14 : 100;
      const Midpoint m = RandomMidpoint(rng, type, format.min_exponent + 2, top);
      const int u = std::uniform_int_distribution<int>(1, 4)(rng);
      // 100 w t = 25 s 2^(m.exponent - precision): w t = s 2^(m.exponent - precision - 2).
      const float wt = static_cast<float>(
          std::ldexp(static_cast<double>(m.s), m.exponent - format.precision - 2));
      const float sign = i % 2 == 0 ? 1.0f : -1.0f;
      const float w = sign * wt * std::ldexp(1.0f, u);
      const float half = std::ldexp(1.0f, -u);
      Check(ties, {0.0f, half, w, 1.0f, 1.0f}, type);         // 100 w t
      Check(ties, {1.0f, 1.0f - half, w, 1.0f, 1.0f}, type);  // 100 w (1 - t)
      Check(ties, {0.0f, 1.0f, sign * wt, 1.0f, 1.0f}, type);
      // A clamped x: the other term, w (1 - t) x (1 + x/2 ...), tiny and of w's sign.
      const float x = std::ldexp(static_cast<float>(1 + i % 26), -149);
      Check(decided, {x, half, w, 1.0f, 1.0f}, type);
    }
    Report(ties, std::string("rational ties, ") + TypeName(type));
    Report(decided, std::string("ties decided by a tiny term, ") + TypeName(type));
    EXPECT_GT(ties.open, ties.count / 2) << "the ties must reach the exact path";
    EXPECT_GT(decided.open, decided.count / 2);
  }
}

// x at and around the clamp (fp32 multiples of 2^-149 from 1 to 60, e^-100 at 26.5), 0, 1, the
// neighbours of 1/2 and 1 in each dtype, fp32's smallest normals; random t and w.
TEST(BinaryCrossEntropyLossRounding, BoundaryArgumentsAreCorrectlyRounded) {
  std::vector<float> xs = {0.0f, 1.0f, 0x1p-126f, 0x1.000002p-126f, 0x1.fffffep-127f};
  for (int k = 1; k <= 60; ++k) xs.push_back(std::ldexp(static_cast<float>(k), -149));
  for (int j = 0; j < 64; ++j) {
    xs.push_back(std::nextafter(0.5f, j % 2 ? 1.0f : 0.0f) + (j / 2) * 0x1p-25f);
    xs.push_back(1.0f - static_cast<float>(1 + j) * 0x1p-24f);
    xs.push_back(0.5f + static_cast<float>(j - 32) * 0x1p-11f);  // fp16 neighbours
    xs.push_back(0.5f + static_cast<float>(j - 32) * 0x1p-8f);   // bf16 neighbours
    xs.push_back(1.0f - static_cast<float>(1 + j) * 0x1p-11f);
  }
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const FloatType type : kTypes) {
    Tally tally;
    for (const float x : xs) {
      for (int i = 0; i < 200; ++i) {
        const float t = i % 4 == 0 ? 0.0f : i % 4 == 1 ? 1.0f : static_cast<float>(unit(rng));
        const float w = static_cast<float>(8 * unit(rng) - 4);
        Check(tally, {x, InType(t, type), InType(w, type), 1.0f, 1.0f}, type);
      }
    }
    Report(tally, std::string("boundary x, ") + TypeName(type));
  }
}

// Results next to the edges of the 16-bit ranges: near fp16's largest (65504, overflow from
// 65520) and bf16's, and around fp16's and bf16's smallest subnormals (2^-24, 2^-133) and half of
// them, with w scaled to put the loss there.
TEST(BinaryCrossEntropyLossRounding, ResultsAtTheEdgesOfTheHalfRangesAreCorrectlyRounded) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::pair<FloatType, double> edges[] = {
      {FloatType::kFloat16, 65520.0},       {FloatType::kFloat16, 65504.0},
      {FloatType::kFloat16, 0x1p-24},       {FloatType::kFloat16, 0x1p-25},
      {FloatType::kFloat16, 0x1p-14},       {FloatType::kBFloat16, 0x1.ffp127},
      {FloatType::kBFloat16, 0x1p-133},     {FloatType::kBFloat16, 0x1p-134},
      {FloatType::kBFloat16, 0x1p-126},     {FloatType::kFloat32, 0x1p-149},
      {FloatType::kFloat32, 0x1.fffffep127}};
  for (const auto& [type, edge] : edges) {
    Tally tally;
    for (int i = 0; i < 20000; ++i) {
      const float x = i % 3 == 0 ? static_cast<float>(unit(rng))
                                 : static_cast<float>(std::exp2(-149.0 * unit(rng)));
      const float t = i % 2 == 0 ? static_cast<float>(unit(rng)) : 1.0f;
      const double terms = static_cast<double>(OracleTerms(x, t, 1.0f));
      if (terms == 0) continue;
      // w = edge / loss(w = 1), nudged by a few fp32 ulps either way.
      const float w = std::nextafter(static_cast<float>(edge / terms), i % 2 ? INFINITY : 0.0f) *
                      static_cast<float>(1 + (unit(rng) - 0.5) * 0x1p-20);
      if (!std::isfinite(w) || w == 0.0f) continue;
      Check(tally, {x, t, w, 1.0f, 1.0f}, type);
    }
    Report(tally, std::string("edge ") + std::to_string(edge) + ", " + TypeName(type));
  }
}

// Results next to a midpoint M of the output type, which only the exact path decides: t = 0 and a
// tiny x = c 2^-k (c = 1 or 3), w = M / x exact, so that l = -w ln(1 - x) = M + w x^2/2 + ...
// lies above M (for w > 0) by far less than the estimate's bound.
TEST(BinaryCrossEntropyLossRounding, ResultsNextToAMidpointAreRoundedTheRightWay) {
  std::mt19937 rng(19);
  for (const FloatType type : kTypes) {
    const Format format = FormatOf(type);
    Tally tally;
    for (int i = 0; i < 20000; ++i) {
      const int64_t c = type == FloatType::kFloat32 ? 3 : 1;
      // A midpoint of odd significand c * s (precision + 1 bits), in [2^e, 2^(e+1)).
      const int64_t lowest = (int64_t{1} << format.precision) / c + 1,
                    highest = ((int64_t{1} << (format.precision + 1)) - 1) / c;
      const int64_t s = std::uniform_int_distribution<int64_t>(lowest, highest)(rng) | 1;
      if (c * s >= (int64_t{1} << (format.precision + 1))) continue;
      const int e = std::uniform_int_distribution<int>(-8, 8)(rng);
      const int k = std::uniform_int_distribution<int>(40, 120)(rng);
      const float x = std::ldexp(static_cast<float>(c), -k);
      // w = M / x = s 2^(e - precision + k), an fp32 (s has at most 24 bits).
      const float w =
          (i % 2 ? -1.0f : 1.0f) *
          static_cast<float>(std::ldexp(static_cast<double>(s), e - format.precision + k));
      if (!std::isfinite(w)) continue;
      Check(tally, {x, 0.0f, w, 1.0f, 1.0f}, type);
    }
    Report(tally, std::string("next to a midpoint, ") + TypeName(type));
    EXPECT_GT(tally.open, tally.count / 2) << "the midpoints must reach the exact path";
  }
}

// ---- Outside the domain: NaN, the one canonical NaN; infinities from an infinite weight.
TEST(BinaryCrossEntropyLossSpecials, OutsideTheDomainGivesNaN) {
  const float nan = NAN, inf = INFINITY;
  const ElementInputs nans[] = {
      {-0x1p-149f, 0.5f, 1.0f, 1.0f, 1.0f}, {-1.0f, 0.0f, 1.0f, 1.0f, 1.0f},
      {1.0000001f, 1.0f, 1.0f, 1.0f, 1.0f}, {2.0f, 0.5f, 1.0f, 1.0f, 1.0f},
      {nan, 0.5f, 1.0f, 1.0f, 1.0f},        {inf, 1.0f, 1.0f, 1.0f, 1.0f},
      {-inf, 0.0f, 1.0f, 1.0f, 1.0f},       {0.5f, nan, 1.0f, 1.0f, 1.0f},
      {0.5f, inf, 1.0f, 1.0f, 1.0f},        {0.0f, -inf, 1.0f, 1.0f, 1.0f},
      {1.0f, inf, 1.0f, 1.0f, 1.0f},        {0.5f, 0.5f, nan, 1.0f, 1.0f},
      {1.0f, 1.0f, inf, 1.0f, 1.0f},        {2.0f, 0.5f, 0.0f, 1.0f, 1.0f}};
  for (const ElementInputs& in : nans) {
    for (const FloatType type : kTypes) {
      EXPECT_EQ(RoundOnce(BinaryCrossEntropyLoss(in, type), type), RoundOnce(kCanonicalNaN, type))
          << in.x << " " << in.t << " " << in.w;
    }
    EXPECT_TRUE(std::isnan(BinaryCrossEntropyLossTerm(in).value));
    EXPECT_TRUE(std::isnan(BinaryCrossEntropyLossTerm(in).bound));
    EXPECT_TRUE(std::isnan(BinaryCrossEntropyExactLossTerm(in).hi));
    // The estimate alone never settles there (a SIMD lane goes to the scalar path).
    EXPECT_TRUE(std::isnan(BinaryCrossEntropyEstimate(in).bound)) << in.x << " " << in.t;
  }
  // -inf * (t L1 + (1 - t) L2) with that sum negative: +inf; a weight of -inf: -inf.
  EXPECT_EQ(BinaryCrossEntropyLoss({0.5f, 0.5f, inf, 1.0f, 1.0f}, FloatType::kFloat32), inf);
  EXPECT_EQ(BinaryCrossEntropyLoss({0.0f, 1.0f, -inf, 1.0f, 1.0f}, FloatType::kFloat16), -inf);
  EXPECT_EQ(BinaryCrossEntropyLossTerm({0.5f, 0.5f, inf, 1.0f, 1.0f}).value, inf);
}

// Mean and sum: the terms summed as reduction.h orders them, SettleReduction with the term error
// kBinaryCrossEntropyLossError64, else the exact terms' ExactSum divided once: every total
// correctly rounded, on random inputs and on sums of rational terms whose total is a midpoint.
TEST(BinaryCrossEntropyLossReduction, MeansAndSumsAreCorrectlyRounded) {
  std::mt19937 rng(23);
  for (const FloatType type : kTypes) {
    Tally tally;
    int64_t exact_passes = 0;
    for (int set = 0; set < 60; ++set) {
      const int64_t count = set % 3 == 0 ? 5000 : 64;
      std::vector<ElementInputs> inputs;
      for (int64_t i = 0; i < count; ++i) inputs.push_back(InTypeInputs(RandomInput(rng), type));
      if (set % 3 != 0) {
        // 64 terms 100 w (x = 0 with t = 1, or x = 1 with t = 0) whose sum 6400 w and mean 100 w
        // are midpoints (RandomMidpoint: 6400 w = 25 s 2^e); in every other set one of them is
        // 100 (2w) t + tiny with x = 26 * 2^-149, t = 1/2, whose tiny term decides the tie.
        const Format format = FormatOf(type);
        const Midpoint m = RandomMidpoint(rng, type, format.min_exponent + 8, 10);
        const float w = static_cast<float>(
            std::ldexp(static_cast<double>(m.s), m.exponent - format.precision - 8));
        for (int64_t i = 0; i < count; ++i) {
          inputs[static_cast<size_t>(i)] = {i % 2 ? 0.0f : 1.0f, i % 2 ? 1.0f : 0.0f, w, 1, 1};
        }
        if (set % 3 == 2) inputs[0] = {0x1.ap-145f, 0.5f, 2 * w, 1, 1};  // 100 w + w x
      }
      const int64_t blocks = ReductionBlocks(count);
      std::vector<Partial> partials(static_cast<size_t>(blocks));
      math::exact::ExactSum exact;
      for (int64_t b = 0; b < blocks; ++b) {
        Partial lanes[kBlockLanes];
        for (int64_t i = b * kReductionBlock; i < std::min(count, (b + 1) * kReductionBlock); ++i) {
          const ElementEstimate term = BinaryCrossEntropyLossTerm(inputs[static_cast<size_t>(i)]);
          lanes[i % kBlockLanes] = lanes[i % kBlockLanes] + Partial{term.value, term.bound};
          exact.Add(BinaryCrossEntropyExactLossTerm(inputs[static_cast<size_t>(i)]));
        }
        partials[static_cast<size_t>(b)] = FoldLanes(lanes);
      }
      for (const bool mean : {false, true}) {
        double value = 0;
        const int64_t divisor = mean ? count : 1;
        if (!SettleReduction(partials.data(), blocks, divisor, type,
                             math::kBinaryCrossEntropyLossError64, &value)) {
          value = math::exact::RoundedQuotient(exact, math::exact::DivisorOf(1.0, divisor), type);
          ++exact_passes;
        }
        Exact total;
        for (const ElementInputs& in : inputs) total = Plus(total, OracleLoss(in.x, in.t, in.w));
        // Exact for 64 elements; for 5000 within 2^-112, far closer than any total lies to a
        // boundary of a random sum.
        if (mean) total = {total.hi / count, total.lo / count};
        const double want = RoundedOnce(total, type);
        const double got = RoundedTo(value, type);
        ++tally.count;
        if (got != want) ++tally.wrong;
      }
    }
    std::cout << "mean/sum " << TypeName(type) << ": " << tally.count << " totals, " << exact_passes
              << " exact passes\n";
    EXPECT_EQ(tally.wrong, 0) << TypeName(type);
    EXPECT_GE(exact_passes, 60) << "the tied totals must reach the exact pass";
  }
}

}  // namespace
}  // namespace openaclnn
