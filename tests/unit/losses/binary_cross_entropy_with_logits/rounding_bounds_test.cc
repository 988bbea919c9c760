// The error bounds and bit tests the kernels' fast paths rest on, against the binary128 oracle
// (binary128_oracle.h): the fp32 transcendentals of 16-bit logits, the fp32 terms of 16-bit means
// and sums, and the tests that settle a value's bits from an estimate and its bound.
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../../kernels/rounding_harness.h"
#include "base/dtype.h"
#include "kernels/loss_problem.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_math.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

namespace openaclnn {
namespace {

// The fp32 transcendentals of 16-bit results, over every fp16 and bf16 |x| <= kExpArgMax32: the
// relative errors of exp(-a) and log1p(exp(-a)) against binary128, at their worst, must stay
// below half of kExpError32 and kLog1pExpError32, with which the fp64 formulas take them. The
// scalar instantiation is the SIMD one lane by lane (the same IEEE operations).
TEST(Transcendentals32, EveryHalfPrecisionLogitIsWithinTheBound) {
  using O32 = math::ScalarOps;
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    double worst_exp = 0, worst_log = 0, worst_sigmoid = 0;
    int checked = 0;
    for (uint32_t bits = 0; bits < 0x8000; ++bits) {  // the non-negative values
      const auto half = static_cast<uint16_t>(bits);
      const float a = type == FloatType::kFloat16 ? Float16ToFloat(half) : BFloat16ToFloat(half);
      if (!(a <= math::kExpArgMax32)) continue;
      const float e = math::ExpNeg32<O32>(a);
      const auto split = math::SplitUnit32<O32>(e);
      const Quad exact_e = Exp(-static_cast<Quad>(a));
      auto relative = [](float got, Quad exact) {
        return static_cast<double>(Abs((static_cast<Quad>(got) - exact) / exact));
      };
      worst_exp = std::max(worst_exp, relative(e, exact_e));
      worst_log = std::max(worst_log, relative(math::Log1pSplit32<O32>(split), Log1p(exact_e)));
      // sigmoid(-a) as GradSelf16InFp32 forms it: e times the rounded 1/(1 + e), the
      // product exact (a fused difference takes it).
      const Quad sigmoid = static_cast<Quad>(e) * (1.0f / (1.0f + e));
      worst_sigmoid =
          std::max(worst_sigmoid, static_cast<double>(Abs((sigmoid - exact_e / (1 + exact_e)) /
                                                          (exact_e / (1 + exact_e)))));
      ++checked;
    }
    std::cout << TypeName(type) << ": " << checked << " values, worst relative errors: exp 2^"
              << std::log2(worst_exp) << ", log1p 2^" << std::log2(worst_log) << ", sigmoid 2^"
              << std::log2(worst_sigmoid) << "\n";
    EXPECT_GT(checked, 15000) << TypeName(type);
    EXPECT_LT(worst_exp, math::kExpError32 / 2) << TypeName(type);
    EXPECT_LT(worst_log, math::kLog1pExpError32 / 2) << TypeName(type);
    EXPECT_LT(worst_sigmoid, math::kSigmoidComplementError32) << TypeName(type);
  }
}

// The terms of a 16-bit mean or sum (BceLossTerm32) against binary128: every 16-bit x of either
// sign with |x| <= 90 (past kExpArgMax32, where the fp64 term takes over), each with hard and soft
// labels, in fp32 and in the logits' type, without weights (UnweightedLoss32) and with weights
// and pos_weights of 1, 0, tiny (fp32's subnormal range) and ordinary values; then random inputs.
// Every term within its bound, and the fp32 ones (a bound of kLossTerm32Bound of the value) at
// most half of it, where they are most of all.
TEST(Loss32Terms, EveryTermIsWithinItsBound) {
  const float labels[] = {0.0f, 1.0f, 0.5f, 0.3f, 0.99f, 1e-3f};
  const float weights[] = {1.0f, 0.0f, 0.37f, 3.5f, 1e-30f, 3e38f};
  const float pos_weights[] = {1.0f, 0.0f, 2.5f, 1e-40f, 0.7f};
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::vector<std::pair<Input, bool>> inputs;                     // and whether without weights
    for (uint32_t bits = 0; bits < 0x8000; bits += kSampleScale) {  // every 10th under sanitizers
      const auto half = static_cast<uint16_t>(bits);
      const float a = type == FloatType::kFloat16 ? Float16ToFloat(half) : BFloat16ToFloat(half);
      if (!(a <= 90.0f)) continue;
      for (const float x : {a, -a}) {
        for (const float t : labels) {
          // Two of the other operands' combinations per label (all of them would be 2.4 million
          // terms), chosen by the bits, so that each pair meets many x.
          for (int k = 0; k < 2; ++k) {
            const size_t pick = bits * 7 + static_cast<size_t>(k) * 13 + (x < 0 ? 5 : 0);
            const float w = weights[pick % std::size(weights)];
            const float p = pos_weights[(pick / 3) % std::size(pos_weights)];
            const float label = k == 0 ? t : InTypeValue(t, type);
            inputs.push_back({{x, label, w, p, 1.0f}, false});
            inputs.push_back({{x, label, 1.0f, 1.0f, 1.0f}, true});
          }
        }
      }
    }
    // Random inputs but for |x| > 700, whose log term exp(-|x|) lies below fp64's range: their
    // fp64 terms drop it with a bound of 0 (no total can tell: a total on a midpoint never
    // settles, and the exact pass keeps the sign of what lies below its range).
    for (const Input& in : InType(RandomInputs(20261203, 100000 / kSampleScale), type)) {
      if (std::fabs(in.x) <= 700.0f) inputs.push_back({in, false});
    }
    int64_t fp32_terms = 0;
    double worst = 0;
    for (const auto& [in, unweighted] : inputs) {
      const ElementEstimate term = BceLossTerm32({in.x, in.t, in.w, in.p, in.g}, unweighted);
      const Exact exact = ExactLoss(in);
      const Quad error = Abs((static_cast<Quad>(term.value) - exact.hi) - exact.lo);
      ASSERT_LE(error, static_cast<Quad>(term.bound))
          << TypeName(type) << " x=" << in.x << " t=" << in.t << " w=" << in.w << " p=" << in.p
          << (unweighted ? " unweighted" : "");
      if (term.bound == term.value * math::kLossTerm32Bound && term.value != 0) {
        ++fp32_terms;
        worst = std::max(worst, static_cast<double>(error / static_cast<Quad>(term.bound)));
      }
    }
    std::cout << TypeName(type) << ": " << inputs.size() << " terms, " << fp32_terms
              << " in fp32, worst error " << worst << " of the bound\n";
    EXPECT_GT(fp32_terms, static_cast<int64_t>(inputs.size()) * 3 / 4) << TypeName(type);
    EXPECT_LT(worst, 0.5) << TypeName(type);
  }
}

// A tile of 16-bit logits whose mean or sum has a 16-bit result adds the fp32 terms (each bound
// kLossTerm32Bound of its value, so the tile's bound is that of its sum, bit for bit), and with an
// fp32 result the fp64 ones (bounds of about 2^-43): the rule that keeps every backend's partials
// the same bits, on every SIMD target.
TEST(Loss32Terms, SixteenBitTotalsTakeThem) {
  const int64_t count = 1000;
  std::vector<uint16_t> x(count), t(count);
  for (int64_t i = 0; i < count; ++i) {
    x[i] = FloatToFloat16(static_cast<float>(i % 97) * 0.73f - 30.0f);
    t[i] = FloatToFloat16(static_cast<float>(i % 11) / 10.0f);
  }
  TileInputs inputs;
  inputs.operand[kSelf] = {x.data(), FloatType::kFloat16, false};
  inputs.operand[kTarget] = {t.data(), FloatType::kFloat16, false};
  for (const FloatType out : {FloatType::kFloat16, FloatType::kBFloat16, FloatType::kFloat32}) {
    const Partial simd = EvaluateTile(LossKind::kLoss, {}, inputs, count, {nullptr, out}, true);
    const Partial scalar =
        EvaluateTileScalar(LossKind::kLoss, {}, inputs, count, {nullptr, out}, true);
    EXPECT_EQ(simd.sum, scalar.sum) << TypeName(out);
    EXPECT_EQ(simd.bound, scalar.bound) << TypeName(out);
    if (out == FloatType::kFloat32) {
      EXPECT_LT(simd.bound, simd.sum * 0x1p-40) << "fp64 terms";
    } else {
      EXPECT_EQ(simd.bound, simd.sum * math::kLossTerm32Bound) << TypeName(out) << ": fp32 terms";
    }
  }
}

// An interval that holds 0 leaves the sign open even where both of its ends round to zero (to -0
// and +0, which compare equal): such a result must take the exact path, not the estimate's sign.
TEST(Rounding, AnIntervalAcrossZeroIsOpenEvenWhereBothEndsRoundToZero) {
  for (const FloatType type : {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16}) {
    for (const double value : {0x1p-160, -0x1p-160}) {
      double settled = 0.0;
      EXPECT_FALSE(SettledIn({value, 0x1p-155}, type, &settled))
          << TypeName(type) << " value " << value;
      EXPECT_TRUE(SettledIn({value, 0x1p-170}, type, &settled))
          << TypeName(type) << " value " << value;
      EXPECT_EQ(std::signbit(RoundedTo(settled, type)), value < 0) << TypeName(type);
    }
    // An exact zero (bound 0) settles with its own sign.
    for (const double zero : {0.0, -0.0}) {
      double settled = 1.0;
      EXPECT_TRUE(SettledIn({zero, 0.0}, type, &settled)) << TypeName(type) << " zero " << zero;
      EXPECT_EQ(std::signbit(RoundedTo(settled, type)), std::signbit(zero)) << TypeName(type);
    }
  }
}

// Runs SettlesLossBits on `values` on every Highway target of this CPU and checks each verdict: a
// settled value rounds, at both ends of its bound (bound_fraction of it), to what the evaluator
// stores; a value beyond its reach (`beyond_reach`) settles on every SIMD target.
void ExpectBitTestSound(FloatType type, LossBitTest test, double bound_fraction,
                        const std::vector<double>& values, const std::vector<bool>& beyond_reach) {
  const auto count = static_cast<int64_t>(values.size());
  std::unique_ptr<bool[]> settled(new bool[values.size()]);
  std::vector<float> rounded(values.size());
  for (int64_t targets = hwy::SupportedTargets(); targets != 0; targets &= targets - 1) {
    hwy::SetSupportedTargetsForTest(targets & -targets);  // each target of this CPU in turn
    SettlesLossBits(type, values.data(), count, settled.get(), rounded.data(), test);
    const std::string target = std::string(EvaluateTileTarget()) + " " + TypeName(type);
    const bool simd = std::string(EvaluateTileTarget()) != "scalar";
    int64_t settled_count = 0;
    for (int64_t i = 0; i < count; ++i) {
      const double value = values[i];
      if (!settled[i]) {
        if (simd && beyond_reach[i]) {
          ADD_FAILURE() << target << ": not settled, though beyond the reach: " << std::hexfloat
                        << value;
        }
        continue;
      }
      ++settled_count;
      const Quad bound = Abs(static_cast<Quad>(value)) * static_cast<Quad>(bound_fraction);
      // What the evaluator stores: the 16-bit value itself (the store makes 2^16 fp16's inf).
      const auto stored = BitCast<uint32_t>(RoundedTo(rounded[i], type));
      for (const Quad end : {static_cast<Quad>(value) - bound, static_cast<Quad>(value) + bound}) {
        EXPECT_EQ(BitCast<uint32_t>(static_cast<float>(RoundedOnce({end, 0}, type))), stored)
            << target << " value " << std::hexfloat << value;
      }
    }
    if (simd) {
      EXPECT_GT(settled_count, 0) << target;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// The SIMD loss evaluator's bit test (SettlesLossBits) settles a value only where every number
// within its bound (kEstimateError64 of it for fp32, kLossError32 for fp16 and bf16) rounds to
// the type as the value does, and to what the evaluator stores (checked in binary128), on the
// values nearest to the type's rounding boundaries: every distance around the test's reach, in
// binades from the type's least normal to its greatest; and it settles values beyond that reach,
// so that it is the fast path it is meant to be.
TEST(Rounding, TheLossBitTestSettlesOnlyWhatTheBoundDecides) {
  struct Case {
    FloatType type;
    int precision;
    double bound;
    int64_t reach;  // fp64 ulps
    std::vector<int> exponents;
  };
  const Case cases[] = {
      {FloatType::kFloat32,
       24,
       math::kEstimateError64,
       int64_t{1} << 10,
       {-126, -125, -70, -1, 0, 1, 50, 126, 127}},
      {FloatType::kFloat16,
       11,
       math::kLossError32,
       (int64_t{1} << 32) + 1024,
       {-14, -13, -5, -1, 0, 1, 10, 14, 15}},
      {FloatType::kBFloat16,
       8,
       math::kLossError32,
       (int64_t{1} << 32) + 1024,
       {-126, -125, -60, -1, 0, 1, 60, 98, 99}},
  };
  for (const Case& c : cases) {
    std::vector<double> values;
    std::vector<bool> beyond_reach;
    std::mt19937 random(29);
    const uint32_t mantissas = (uint32_t{1} << (c.precision - 1)) - 1;
    for (const int exponent : c.exponents) {
      for (int k = 0; k < 8; ++k) {
        const uint32_t mantissa = random() % mantissas;  // not the binade's last value
        const double boundary =
            std::ldexp(1.0 + (mantissa + 0.5) * std::ldexp(1.0, 1 - c.precision), exponent);
        const double ulp = std::ldexp(1.0, exponent - 52);
        const int64_t r = c.reach;
        for (const int64_t distance :
             {int64_t{0}, int64_t{1}, int64_t{2}, r / 4, r / 2, 3 * r / 4, r - 1, r, r + 1, r + 2,
              2 * r - 1, 2 * r, 2 * r + 1, 3 * r, 4 * r}) {
          for (const int sign : {-1, 1}) {
            values.push_back(boundary +
                             static_cast<double>(sign) * static_cast<double>(distance) * ulp);
            beyond_reach.push_back(distance > 2 * r);
          }
        }
      }
    }
    if (c.type == FloatType::kFloat16) {  // fp16's subnormal grid: boundaries (k + 1/2) 2^-24
      for (int k = 0; k < 16; ++k) {
        const double boundary = (random() % 1023 + 0.5) * 0x1p-24;
        const int64_t r = c.reach;
        for (const int64_t distance : {int64_t{0}, r / 4, r / 2, r - 1, r + 1, 2 * r + 1, 4 * r}) {
          for (const int sign : {-1, 1}) {
            values.push_back(boundary + sign * static_cast<double>(distance) * 0x1p-66);
            beyond_reach.push_back(distance > 2 * r);
          }
        }
      }
    }
    const double specials[] = {0.0,
                               -0.0,
                               0x1p-127,
                               0x1p-126,
                               0x1p-149,
                               0x1p-200,
                               0x1p-14,
                               0x1p-15,
                               0x1p-24,
                               0x1p-25,
                               0x1.8p-25,
                               -1.0,
                               65504.0,
                               65519.0,
                               65520.0,
                               65536.0,
                               0x1p99,
                               0x1p100,
                               0x1p128,
                               0x1p200,
                               std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::quiet_NaN()};
    for (const double special : specials) {
      values.push_back(special);
      beyond_reach.push_back(false);
    }
    ExpectBitTestSound(c.type, LossBitTest::kFp64, c.bound, values, beyond_reach);
  }
}

// The same for the tests of 16-bit losses evaluated wholly in fp32 lanes (SettlesLossBits with
// a LossBitTest in fp32): fp32 values; without weights a bound of 2^-21 + 2^-23 of the value and
// a reach of 12 fp32 ulps, with weights 1.5 * 2^-21 + 2^-40 and 14; fp16's subnormal grid
// included.
TEST(Rounding, TheFp32LossBitTestSettlesOnlyWhatTheBoundDecides) {
  const struct {
    LossBitTest test;
    int64_t reach;
    double bound_fraction;
  } tests[] = {{LossBitTest::kFp32Unweighted, 12, 0x1p-21 + 0x1p-23},
               {LossBitTest::kFp32Weighted, 14, 1.5 * 0x1p-21 + 0x1p-40}};
  for (const auto& [test, kReach, bound_fraction] : tests)
    for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
      const int precision = type == FloatType::kFloat16 ? 11 : 8;
      std::vector<double> values;
      std::vector<bool> beyond_reach;
      std::mt19937 random(31);
      const auto add = [&](double boundary, double ulp) {
        for (int64_t distance = 0; distance <= 3 * kReach; ++distance) {
          for (const int sign : {-1, 1}) {
            values.push_back(boundary + sign * static_cast<double>(distance) * ulp);
            beyond_reach.push_back(distance > 2 * kReach);
          }
        }
      };
      const std::vector<int> exponents = type == FloatType::kFloat16
                                             ? std::vector<int>{-14, -13, -5, -1, 0, 1, 5, 6}
                                             : std::vector<int>{-126, -100, -60, -1, 0, 1, 5, 6};
      const uint32_t mantissas = (uint32_t{1} << (precision - 1)) - 1;
      for (const int exponent : exponents) {
        for (int k = 0; k < 8; ++k) {
          const uint32_t mantissa = random() % mantissas;
          add(std::ldexp(1.0 + (mantissa + 0.5) * std::ldexp(1.0, 1 - precision), exponent),
              std::ldexp(1.0, exponent - 23));
        }
      }
      if (type == FloatType::kFloat16) {  // the subnormal grid, tested as v + 2^-14 (ulp 2^-37)
        for (int k = 0; k < 16; ++k) add((random() % 1023 + 0.5) * 0x1p-24, 0x1p-37);
      }
      for (const double value : values) {
        ASSERT_EQ(static_cast<double>(static_cast<float>(value)), value);  // fp32 values
      }
      ExpectBitTestSound(type, test, bound_fraction, values, beyond_reach);
    }
}

}  // namespace
}  // namespace openaclnn
