// Rounding of the element kernels: each result is compared with the exact value rounded once
// (binary128_oracle.h). Asserts, per op and output dtype, that every result is correctly rounded:
// on a fixed random set, on the 16-bit fast paths' ranges and edges, and on inputs near the
// output type's midpoints and near the gradients' zeros.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../../kernels/rounding_harness.h"
#include "base/dtype.h"
#include "kernels/loss_problem.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_math.h"

namespace openaclnn {
namespace {

class Rounding : public testing::TestWithParam<FloatType> {};

TEST_P(Rounding, EveryOpIsCorrectlyRounded) {
  const FloatType type = GetParam();
  const std::vector<Input> inputs = InType(RandomInputs(20261201, kSamples), type);
  const char* names[] = {"loss", "grad_self", "grad_target"};
  for (const LossKind kind : {LossKind::kLoss, LossKind::kGradSelf, LossKind::kGradTarget}) {
    const std::vector<double> got = Evaluate(kind, inputs, type);
    Quality quality;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Record(quality, got[i], ExactOf(kind, inputs[i]), type);
    }
    ExpectEveryResultRounded(quality,
                             std::string(names[static_cast<int>(kind)]) + " " + TypeName(type));
  }
}

INSTANTIATE_TEST_SUITE_P(Types, Rounding,
                         testing::Values(FloatType::kFloat32, FloatType::kFloat16,
                                         FloatType::kBFloat16),
                         [](const auto& param_info) {
                           return std::string(TypeName(param_info.param));
                         });

// 16-bit losses of 16-bit logits without weights, where the SIMD evaluator works wholly in fp32
// lanes (Loss16InFp32) for steps whose |x| are at most 80: every result correctly rounded.
TEST(Rounding, UnweightedHalfLossesAreCorrectlyRounded) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::vector<Input> inputs = RandomInputs(20261202, kSamples);
    for (Input& in : inputs) {
      in.x = std::clamp(in.x, -60.0f, 60.0f);
      in.w = in.p = 1.0f;
    }
    inputs = InType(inputs, type);
    const std::vector<double> got = Evaluate(LossKind::kLoss, inputs, type, nullptr, true);
    Quality quality;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Record(quality, got[i], ExactOf(LossKind::kLoss, inputs[i]), type);
    }
    ExpectEveryResultRounded(quality, std::string("unweighted loss ") + TypeName(type));
  }
}

// A named set of inputs, evaluated with results divided by `divisor` (a mean's N).
struct InputSet {
  const char* name;
  const std::vector<Input>& inputs;
  int64_t divisor;
};

// `kind` on each set with 16-bit logits and results of `type`, and the other operands of `type`
// and of fp32 (as drawn): every result correctly rounded.
void ExpectWeightedHalfRounded(LossKind kind, FloatType type,
                               std::initializer_list<InputSet> sets) {
  const char* names[] = {"loss", "self gradient", "target gradient"};
  for (const auto& [name, set, divisor] : sets) {
    for (const FloatType side_type : {type, FloatType::kFloat32}) {
      std::vector<Input> inputs = InType(set, side_type);
      for (Input& in : inputs) in.x = InTypeValue(in.x, type);
      const std::vector<double> got =
          Evaluate(kind, inputs, type, nullptr, false, divisor, side_type);
      Quality quality;
      for (size_t i = 0; i < inputs.size(); ++i) {
        // The divided reference is exact for divisor 1 and within 2^-112 of the value otherwise.
        Record(quality, got[i], Divided(ExactOf(kind, inputs[i]), divisor), type);
      }
      ExpectEveryResultRounded(quality, std::string("weighted ") + names[static_cast<int>(kind)] +
                                            ", " + name + ", " + TypeName(side_type) + " weights " +
                                            TypeName(type));
    }
  }
}

// 16-bit losses of 16-bit logits with weights, which the SIMD evaluator computes wholly in fp32
// lanes (WeightedLoss16InFp32) for steps whose |x| are at most 80, with target, weight and
// pos_weight of the logits' type or fp32: random inputs; the edges of its range (zero and
// subnormal weights, pos_weights whose linear term overflows fp32, a log term alone below
// 2^-102); and, from four million draws, those whose loss lies within 4 fp32 ulps of a midpoint,
// where the reach decides. Every result correctly rounded.
TEST(Rounding, WeightedHalfLossesAreCorrectlyRounded) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::vector<Input> random = RandomInputs(20261204, kSamples / 3);
    std::mt19937 rng(23);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (Input& in : random) in.x = std::clamp(in.x, -60.0f, 60.0f);
    std::vector<Input> edges;
    for (int64_t i = 0; i < kSamples / 10; ++i) {
      Input in{static_cast<float>(160 * unit(rng) - 80), static_cast<float>(unit(rng)),
               static_cast<float>(4 * unit(rng)), static_cast<float>(8 * unit(rng)), 1.0f};
      // fp16's largest: beyond it, fp16 pos_weights are infinite.
      const double largest_p = type == FloatType::kFloat16 ? 65504.0 : 1e38;
      switch (i / 32 % 6) {  // a kind per 32 elements, so that whole steps take the fast path
        case 0:              // zero weights, half of them with a linear term that overflows fp32
          in.w = 0.0f;
          if (i % 2 == 0) in.p = static_cast<float>(largest_p * unit(rng)), in.x = -std::fabs(in.x);
          break;
        case 1:  // weights down to fp32's subnormals
          in.w = static_cast<float>(std::ldexp(unit(rng), -120 - static_cast<int>(i % 30)));
          break;
        case 2:
          in.p = static_cast<float>(largest_p * unit(rng)), in.x = -std::fabs(in.x);
          break;
        case 3:  // the log term alone, down to exp(-80)
          in.t = 1.0f, in.x = static_cast<float>(60 + 20 * unit(rng));
          break;
        case 4:
          in.t = static_cast<float>(std::ldexp(unit(rng), -140));
          break;
        default:
          in.t = std::round(in.t);
      }
      edges.push_back(in);
    }
    const std::vector<Input> near_midpoints = WeightedLossesNearMidpoints(type, rng);
    ExpectWeightedHalfRounded(
        LossKind::kLoss, type,
        {{"random", random, 1}, {"edges", edges, 1}, {"near midpoints", near_midpoints, 1}});
  }
}

// 16-bit target gradients of 16-bit logits without weights, -x*g/N, which the SIMD evaluator
// forms exactly in fp32 lanes for a power-of-two N (ExactGradTargetInFp32): random inputs and
// the edges of fp32's range (bf16 values whose product over- or underflows it), for N = 1, 2^10
// and 2^62, and 1000 (the fp64 path). Every result correctly rounded.
TEST(Rounding, UnweightedHalfTargetGradientsAreCorrectlyRounded) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::vector<Input> inputs = RandomInputs(20261207, kSamples / 3);
    std::mt19937 rng(37);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (size_t i = 0; i < inputs.size(); ++i) {
      Input& in = inputs[i];
      in.x = std::clamp(in.x, -60.0f, 60.0f);
      in.w = in.p = 1.0f;
      // A step of products beyond fp32's range, in bf16 (fp16's are infinite or 0).
      if (type == FloatType::kBFloat16 && i / 32 % 8 == 0) {
        in.g = static_cast<float>(std::ldexp(unit(rng) + 0.5, (i % 2 == 0 ? 1 : -1) * 120));
      }
    }
    inputs = InType(inputs, type);
    // fp32 gradOutputs whose product with x lies within 2^-24 of a midpoint of `type`: x*g is
    // not exact in fp32, and rounding it there first would round it twice.
    std::vector<Input> fp32_g;
    while (fp32_g.size() < static_cast<size_t>(kSamples / 30)) {
      const float x = InTypeValue(static_cast<float>(16 * unit(rng) - 8), type);
      const float on_grid = InTypeValue(static_cast<float>(4 * unit(rng) - 2), type);
      if (x == 0 || on_grid == 0) continue;
      const Grid grid = GridOf(type);
      const int exponent = std::max(std::ilogb(on_grid), grid.min_exponent);
      const double midpoint = on_grid + std::ldexp(0.5, exponent - (grid.precision - 1));
      fp32_g.push_back({x, 0.5f, 1.0f, 1.0f, static_cast<float>(-midpoint / x)});
    }
    const struct {
      const char* name;
      const std::vector<Input>& set;
      std::optional<FloatType> g_type;
    } sets[] = {{"", inputs, std::nullopt}, {"fp32 gradOutput, ", fp32_g, FloatType::kFloat32}};
    for (const auto& [name, set, g_type] : sets) {
      for (const int64_t divisor : {int64_t{1}, int64_t{1024}, int64_t{1} << 62, int64_t{1000}}) {
        const std::vector<double> got =
            Evaluate(LossKind::kGradTarget, set, type, nullptr, true, divisor, g_type);
        Quality quality;
        for (size_t i = 0; i < set.size(); ++i) {
          Record(quality, got[i], Divided(ExactOf(LossKind::kGradTarget, set[i]), divisor), type);
        }
        ExpectEveryResultRounded(quality, std::string("unweighted target gradient, ") + name +
                                              "divisor " + std::to_string(divisor) + " " +
                                              TypeName(type));
      }
    }
  }
}

// 16-bit self gradients of 16-bit logits with weights, which the SIMD evaluator computes wholly
// in fp32 lanes (GradSelf16InFp32) for steps whose |x| are at most 80: random inputs; targets next
// to the gradient's zero, where (1 - t)*sigmoid(x) - p*t*sigmoid(-x) cancels; the edges of its
// range (g or w zero; weights whose g*w underflows, times a large p); draws within 4 fp32 ulps
// of a midpoint; divided by 1 and by 1000. Every result correctly rounded.
TEST(Rounding, WeightedHalfSelfGradientsAreCorrectlyRounded) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::vector<Input> random = RandomInputs(20261206, kSamples / 6);
    for (Input& in : random) in.x = std::clamp(in.x, -60.0f, 60.0f);
    std::mt19937 rng(31);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const auto gradient = [](const Input& in) {  // in double, to find the cancelling inputs
      const double sigmoid = 1 / (1 + std::exp(-double{in.x}));
      return double{in.g} * in.w * ((1.0 - in.t) * sigmoid - double{in.p} * in.t * (1 - sigmoid));
    };
    std::vector<Input> cancelling;
    for (int64_t i = 0; i < kSamples / 6; ++i) {
      Input in{InTypeValue(static_cast<float>(20 * unit(rng) - 10), type), 0.0f,
               static_cast<float>(4 * unit(rng)), static_cast<float>(8 * unit(rng)),
               static_cast<float>(4 * unit(rng) - 2)};
      // t = sigmoid(x) / (sigmoid(x) + p*sigmoid(-x)) zeroes it; then moved by a few 16-bit ulps.
      const double sigmoid = 1 / (1 + std::exp(-double{in.x}));
      const double offset = std::ldexp(std::floor(9 * unit(rng)) - 4, -GridOf(type).precision);
      in.t = static_cast<float>(sigmoid / (sigmoid + in.p * (1 - sigmoid)) * (1 + offset));
      cancelling.push_back(in);
    }
    std::vector<Input> edges;
    for (int64_t i = 0; i < kSamples / 10; ++i) {
      Input in{static_cast<float>(40 * unit(rng) - 20), static_cast<float>(unit(rng)),
               static_cast<float>(4 * unit(rng)), static_cast<float>(8 * unit(rng)),
               static_cast<float>(4 * unit(rng) - 2)};
      const double largest_p = type == FloatType::kFloat16 ? 65504.0 : 1e30;
      switch (i / 32 % 3) {  // a kind per 32 elements, so that whole steps take the fast path
        case 0:
          in.g = 0.0f;
          break;
        case 1:
          in.w = 0.0f;
          break;
        default:  // weights whose g*w underflows fp32, times a large p*t
          in.w = static_cast<float>(std::ldexp(unit(rng), -120 - static_cast<int>(i % 30)));
          in.p = static_cast<float>(largest_p * unit(rng));
      }
      edges.push_back(in);
    }
    const std::vector<Input> near_midpoints = DrawsNearMidpoints(
        type,
        [&](int64_t) {
          return Input{static_cast<float>(16 * unit(rng) - 8), static_cast<float>(unit(rng)),
                       static_cast<float>(4 * unit(rng)), static_cast<float>(8 * unit(rng)),
                       static_cast<float>(4 * unit(rng) - 2)};
        },
        gradient);
    ExpectWeightedHalfRounded(LossKind::kGradSelf, type,
                              {{"random", random, 1},
                               {"cancelling", cancelling, 1},
                               {"edges", edges, 1},
                               {"near midpoints", near_midpoints, 1},
                               {"random, divisor 1000", random, 1000},
                               {"cancelling, divisor 1000", cancelling, 1000}});
  }
}

// 16-bit target gradients of 16-bit logits with weights, which the SIMD evaluator computes wholly
// in fp32 lanes (GradTarget16InFp32) for steps whose |x| are at most 80: random inputs; pos_weights
// next to the gradient's zero, where (p - 1)*log1p(exp(-|x|)) + K*|x| cancels; the edges of its
// range (g or w zero, with and without an overflowing inner sum; x = 0 with p = 1; subnormal
// pos_weights; weights whose g*w underflows); draws within 4 fp32 ulps of a midpoint; divided
// by 1 and by 1000. Every result correctly rounded.
TEST(Rounding, WeightedHalfTargetGradientsAreCorrectlyRounded) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::vector<Input> random = RandomInputs(20261205, kSamples / 6);
    for (Input& in : random) in.x = std::clamp(in.x, -60.0f, 60.0f);
    std::mt19937 rng(29);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const auto softplus_tail = [](double a) { return std::log1p(std::exp(-a)); };
    std::vector<Input> cancelling;
    for (int64_t i = 0; i < kSamples / 6; ++i) {
      // fp16: x <= 8, where p stays below fp16's largest.
      const double high = type == FloatType::kFloat16 ? 8 : 20;
      const float x = InTypeValue(static_cast<float>((high + 20) * unit(rng) - 20), type);
      const double a = std::fabs(double{x}), tail = softplus_tail(a);
      // p*softplus(-x) = softplus(x), then moved by a few 16-bit ulps.
      const double p = (x > 0 ? a + tail : tail) / (x > 0 ? tail : a + tail);
      const double offset = std::ldexp(std::floor(9 * unit(rng)) - 4, -GridOf(type).precision);
      cancelling.push_back({x, 0.5f, static_cast<float>(4 * unit(rng)),
                            static_cast<float>(p * (1 + offset)),
                            static_cast<float>(4 * unit(rng) - 2)});
    }
    std::vector<Input> edges;
    for (int64_t i = 0; i < kSamples / 10; ++i) {
      Input in{static_cast<float>(40 * unit(rng) - 20), 0.5f, static_cast<float>(4 * unit(rng)),
               static_cast<float>(8 * unit(rng)), static_cast<float>(4 * unit(rng) - 2)};
      const double largest_p = type == FloatType::kFloat16 ? 65504.0 : 1e38;
      switch (i / 32 % 5) {  // a kind per 32 elements, so that whole steps take the fast path
        case 0:              // g = 0, half of them with an inner sum that overflows fp32
          in.g = 0.0f;
          if (i % 2 == 0) in.p = static_cast<float>(largest_p * unit(rng)), in.x = -std::fabs(in.x);
          break;
        case 1:
          in.w = 0.0f;
          break;
        case 2:  // x = 0, half of them with p = 1: the gradient exactly 0
          in.x = 0.0f;
          if (i % 2 == 0) in.p = 1.0f;
          break;
        case 3:  // pos_weights down to fp32's subnormals
          in.p = static_cast<float>(std::ldexp(unit(rng), -120 - static_cast<int>(i % 30)));
          in.x = static_cast<float>(std::ldexp(unit(rng), -static_cast<int>(i % 20)));
          break;
        default:  // weights whose g*w underflows fp32, times a large p*|x| that fp32 holds
          in.w = static_cast<float>(std::ldexp(unit(rng), -120 - static_cast<int>(i % 30)));
          in.p = static_cast<float>(std::min(largest_p, 1e30) * unit(rng)), in.x = -std::fabs(in.x);
      }
      edges.push_back(in);
    }
    const std::vector<Input> near_midpoints = DrawsNearMidpoints(
        type,
        [&](int64_t) {
          return Input{static_cast<float>(16 * unit(rng) - 8), 0.5f,
                       static_cast<float>(4 * unit(rng)), static_cast<float>(8 * unit(rng)),
                       static_cast<float>(4 * unit(rng) - 2)};
        },
        [&](const Input& in) {
          const double a = std::fabs(double{in.x});
          return double{in.g} * in.w *
                 ((in.p - 1.0) * softplus_tail(a) + (in.x < 0 ? in.p : -1.0) * a);
        });
    ExpectWeightedHalfRounded(LossKind::kGradTarget, type,
                              {{"random", random, 1},
                               {"cancelling", cancelling, 1},
                               {"edges", edges, 1},
                               {"near midpoints", near_midpoints, 1},
                               {"random, divisor 1000", random, 1000},
                               {"cancelling, divisor 1000", cancelling, 1000}});
  }
}

TEST(Rounding, TargetGradientNearItsZero) {
  const std::vector<Input> inputs = NearTargetZero(7, 100000 / kSampleScale);
  const std::vector<double> got = Evaluate(LossKind::kGradTarget, inputs, FloatType::kFloat32);
  Quality quality;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Record(quality, got[i], ExactGradTarget(inputs[i]), FloatType::kFloat32);
  }
  ExpectEveryResultRounded(quality, "grad_target near its zero");
}

// A loss whose linear term lies on a midpoint and whose log term, of a tiny weight times
// log1p(exp(-694)) ~ 2^-1001, is far below fp64's range: the log term's sign alone decides the
// tie, so its double-double product must keep it (double_double.h: Mul). x = -694, t = 2,
// p = 1/4: the linear term w p t |x| = 347 w, the log term -w/2 log1p(exp(-694)), below 2^-1074,
// whose low part makes its one cross term -(-2^-1074). The weights put 347 w on a midpoint whose
// even neighbour is above it; the loss lies just below it. The element and the tile on its best
// SIMD target (whose open lanes take the element), each against binary128. (An fp16 result cannot
// meet this: its midpoints, above 2^-25, would need a log term below 2^-1048 of a short linear
// term.)
TEST(Rounding, ATinyLogTermDecidesATieOfTheLinearTerm) {
  const struct {
    FloatType type;
    float w;  // 347 w: a midpoint M 2^e with M = 3 mod 4 of the type's precision plus one
  } cases[] = {{FloatType::kFloat32, 50001 * 0x1p-90f}, {FloatType::kBFloat16, 0x1p-80f}};
  constexpr int64_t kCount = 64;  // whole SIMD steps
  for (const auto& [type, w] : cases) {
    const Input in{-694.0f, 2.0f, w, 0.25f, 1.0f};
    const Exact exact = ExactLoss(in);
    const auto expected = static_cast<float>(RoundedOnce(exact, type));
    ASSERT_LT(expected, static_cast<double>(exact.hi)) << TypeName(type) << ": below the midpoint";
    EXPECT_EQ(BceElement(LossKind::kLoss, {}, {in.x, in.t, in.w, in.p, in.g}, type), expected)
        << TypeName(type);
    std::vector<float> columns[kOut];
    const float values[kOut] = {in.x, in.t, in.w, in.p, in.g};
    TileInputs tile;
    for (int which = 0; which < kOut; ++which) {
      columns[which].assign(kCount, values[which]);
      tile.operand[which] = {columns[which].data(), FloatType::kFloat32, false};
    }
    std::vector<uint16_t> out(2 * kCount);
    EvaluateTile(LossKind::kLoss, {}, tile, kCount, {out.data(), type}, false);
    EXPECT_EQ(Load(out, type, 0), expected) << TypeName(type) << " on " << EvaluateTileTarget();
  }
}

// Where the self gradient is exactly 0 (x = 0 and t*(1+p) = 1: every lane of a zero-initialised
// model's first step under label smoothing), the fp64 estimate must settle it: the double-double
// path, lane by lane, is 400x slower (tile_bench zero_logits).
TEST(Rounding, AnExactZeroSelfGradientSettlesWithoutTheExactPath) {
  for (const auto& [t, p] : {std::pair{0.5f, 1.0f}, {0.25f, 3.0f}, {0.125f, 7.0f}}) {
    for (const float g : {1.0f, -0.75f}) {
      const ElementInputs in{0.0f, t, 1.5f, p, g};
      const ElementEstimate estimate = BceEstimate(LossKind::kGradSelf, 1.0 / 3, in);
      EXPECT_EQ(estimate.value, 0.0) << "t " << t << " p " << p;
      EXPECT_TRUE(math::Settled(estimate)) << "t " << t << " p " << p << " g " << g;
    }
  }
}

// 16-bit self gradients of 16-bit logits without weights, which the SIMD evaluator computes
// wholly in fp32 lanes (GradSelf16InFp32) with a per-lane reach for the cancellation of
// sigmoid(x) - t: random inputs; soft labels next to sigmoid(x), where the difference cancels;
// and, from a million draws, those whose gradient lies within 2^-9 of a grid spacing of a
// midpoint, where the reach decides. Every result correctly rounded.
TEST(Rounding, UnweightedHalfSelfGradientsAreCorrectlyRounded) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::vector<Input> random = RandomInputs(20261203, kSamples);
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<Input> cancelling, near_midpoints;
    for (int64_t i = 0; i < kSamples; ++i) {
      const double x = 20 * unit(rng) - 10;
      const double sigmoid = 1 / (1 + std::exp(-x));
      const double offset = std::ldexp(std::floor(9 * unit(rng)) - 4, -12);
      cancelling.push_back({static_cast<float>(x), static_cast<float>(sigmoid + offset), 1.0f, 1.0f,
                            static_cast<float>(4 * unit(rng) - 2)});
    }
    for (int64_t draw = 0; draw < 1000000 / kSampleScale; ++draw) {
      Input in{static_cast<float>(40 * unit(rng) - 20),
               unit(rng) < 0.3 ? std::round(static_cast<float>(unit(rng)))
                               : static_cast<float>(unit(rng)),
               1.0f, 1.0f, static_cast<float>(4 * unit(rng) - 2)};
      in = InType({in}, type)[0];
      const double sigmoid = 1 / (1 + std::exp(-double{in.x}));
      const double gradient = double{in.g} * (sigmoid - in.t);
      if (gradient != 0 && FromMidpoint(gradient, type) < 0x1p-9) near_midpoints.push_back(in);
    }
    for (Input& in : random) {
      in.x = std::clamp(in.x, -60.0f, 60.0f);
      in.w = in.p = 1.0f;
    }
    // The divisors: none's 1, a mean's 1000 (not a power of two: its reciprocal rounded to fp32
    // with g times it).
    const struct {
      const char* name;
      const std::vector<Input>& inputs;
      int64_t divisor;
    } sets[] = {{"random", random, 1},
                {"cancelling", cancelling, 1},
                {"near midpoints", near_midpoints, 1},
                {"random, divisor 1000", random, 1000},
                {"cancelling, divisor 1000", cancelling, 1000}};
    for (const auto& [name, set, divisor] : sets) {
      const std::vector<Input> inputs = InType(set, type);
      const std::vector<double> got =
          Evaluate(LossKind::kGradSelf, inputs, type, nullptr, true, divisor);
      Quality quality;
      for (size_t i = 0; i < inputs.size(); ++i) {
        Record(quality, got[i], Divided(ExactOf(LossKind::kGradSelf, inputs[i]), divisor), type);
      }
      ExpectEveryResultRounded(
          quality, std::string("unweighted self gradient, ") + name + " " + TypeName(type));
    }
  }
}

}  // namespace
}  // namespace openaclnn
