// Rounding of the element kernels and the reductions: each result is compared with the exact value
// rounded once, computed independently of the library in binary128 (__float128 with libquadmath
// on x86-64, long double where that is binary128) from cancellation-free forms, as a pair of
// binary128 numbers (an exact main part and the rest), so that a value that binary128 alone would
// put on a rounding boundary is still rounded the right way. Asserts, per op and output dtype,
// that every result is correctly rounded: on a fixed random set, on inputs built to lie next to a
// rounding boundary of the output type, and for mean and sum through the CPU backend.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/tile_math.h"
#include "base/dtype.h"
#include "kernels/bce.h"
#include "kernels/bce_element.h"
#include "kernels/bce_math.h"

#if defined(__x86_64__)
#if __has_include(<quadmath.h>)
#include <quadmath.h>
#else  // clang does not see GCC's private headers; libquadmath links all the same
extern "C" {
__float128 expq(__float128);
__float128 log1pq(__float128);
__float128 fabsq(__float128);
}
#endif
using Quad = __float128;
Quad Exp(Quad v) { return expq(v); }
Quad Log1p(Quad v) { return log1pq(v); }
Quad Abs(Quad v) { return fabsq(v); }
#else
static_assert(sizeof(long double) == 16, "the reference needs binary128");
using Quad = long double;
Quad Exp(Quad v) { return expl(v); }
Quad Log1p(Quad v) { return log1pl(v); }
Quad Abs(Quad v) { return fabsl(v); }
#endif

namespace openaclnn {
namespace {

const char* TypeName(FloatType type) {
  return type == FloatType::kFloat32 ? "fp32" : type == FloatType::kFloat16 ? "fp16" : "bf16";
}

struct Input {
  float x, t, w, p, g;
};

// log1p(exp(-|x|)), from which every op is a cancellation-free sum.
Quad SoftplusTail(float x) { return Log1p(Exp(-Abs(static_cast<Quad>(x)))); }

// An exact value as hi + lo, two binary128 numbers (lo below half an ulp of hi): main parts made
// of products of fp32 inputs are exact in binary128, and the transcendental rest is added by
// TwoSum, so its sign survives where hi alone would sit on a rounding boundary.
struct Exact {
  Quad hi = 0, lo = 0;
};

Exact TwoSum(Quad a, Quad b) {
  const Quad sum = a + b;
  const Quad b_part = sum - a;
  return {sum, (a - (sum - b_part)) + (b - b_part)};
}

Exact Plus(Exact a, Exact b) {
  const Exact high = TwoSum(a.hi, b.hi);
  return TwoSum(high.hi, high.lo + a.lo + b.lo);
}

Exact ExactLoss(const Input& in) {
  const Quad a = Abs(static_cast<Quad>(in.x));
  const Quad pos = static_cast<Quad>(in.p) * in.t, neg = 1 - static_cast<Quad>(in.t);
  const Quad linear = in.x < 0 ? pos : neg;
  const Quad w = in.w;
  return TwoSum(w * linear * a, w * (pos + neg) * SoftplusTail(in.x));
}

// g*w*numerator/(1+e) = g*w*(main + rest): for x < 0, -p*t + (1-t+p*t)*e/(1+e); for x >= 0,
// (1-t) - (1-t+p*t)*e/(1+e).
Exact ExactGradSelf(const Input& in) {
  const Quad e = Exp(-Abs(static_cast<Quad>(in.x)));
  const Quad pos = static_cast<Quad>(in.p) * in.t, neg = 1 - static_cast<Quad>(in.t);
  const Quad gw = static_cast<Quad>(in.g) * in.w;
  const Quad rest = (pos + neg) * e / (1 + e);
  return in.x < 0 ? TwoSum(-gw * pos, gw * rest) : TwoSum(gw * neg, -gw * rest);
}

Exact ExactGradTarget(const Input& in) {
  const Quad a = Abs(static_cast<Quad>(in.x));
  const Quad linear = in.x < 0 ? static_cast<Quad>(in.p) : Quad(-1);
  const Quad gw = static_cast<Quad>(in.g) * in.w;
  return TwoSum(gw * linear * a, gw * (static_cast<Quad>(in.p) - 1) * SoftplusTail(in.x));
}

// The distribution: |x| log-uniform over [1e-6, 120] with either sign; t uniform in
// [0, 1] with a third hard labels; w in [0, 4], p in [0, 8], g in [-2, 2]; plus tails: one in
// 16 with |x| up to 1e4, one in 16 with p = 1 or w = 0.
std::vector<Input> RandomInputs(uint32_t seed, int64_t count) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Input> inputs(static_cast<size_t>(count));
  for (Input& in : inputs) {
    const double magnitude = std::exp(std::log(1e-6) + unit(rng) * std::log(120.0 / 1e-6));
    in.x = static_cast<float>(unit(rng) < 0.5 ? -magnitude : magnitude);
    const double kind = unit(rng);
    in.t = kind < 1.0 / 6 ? 0.0f : kind < 1.0 / 3 ? 1.0f : static_cast<float>(unit(rng));
    in.w = static_cast<float>(4 * unit(rng));
    in.p = static_cast<float>(8 * unit(rng));
    in.g = static_cast<float>(4 * unit(rng) - 2);
    const double tail = unit(rng);
    if (tail < 1.0 / 16) in.x = static_cast<float>((unit(rng) < 0.5 ? -1 : 1) * 1e4 * unit(rng));
    if (tail > 15.0 / 16) in.p = 1.0f;
  }
  return inputs;
}

// Near the target gradient's zero: p = softplus(x) / softplus(-x) rounded to fp32, so that
// p*softplus(-x) - softplus(x) cancels to about 2^-24 of its terms.
std::vector<Input> NearTargetZero(uint32_t seed, int64_t count) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Input> inputs(static_cast<size_t>(count));
  for (Input& in : inputs) {
    in.x = static_cast<float>(40 * unit(rng) - 20);
    const Quad tail = SoftplusTail(in.x), a = Abs(static_cast<Quad>(in.x));
    const Quad softplus = in.x > 0 ? a + tail : tail, softplus_neg = in.x > 0 ? tail : a + tail;
    in.p = static_cast<float>(softplus / softplus_neg);
    in.t = 0.5f;
    in.w = static_cast<float>(4 * unit(rng));
    in.g = 1.0f;
  }
  return inputs;
}

// Distance from `got` to the exact value in ulps of the output type at the exact value.
double UlpError(double got, Exact exact, FloatType type) {
  const int mantissa = type == FloatType::kFloat32 ? 24 : type == FloatType::kFloat16 ? 11 : 8;
  const int min_exponent = type == FloatType::kFloat32   ? -126
                           : type == FloatType::kFloat16 ? -14
                                                         : -126;
  const double magnitude = std::fabs(static_cast<double>(exact.hi));
  int exponent = 0;
  std::frexp(magnitude > 0 ? magnitude : 1e-300, &exponent);
  exponent = std::max(exponent - 1, min_exponent);
  const double ulp = std::ldexp(1.0, exponent - (mantissa - 1));
  return static_cast<double>(Abs((static_cast<Quad>(got) - exact.hi) - exact.lo) / ulp);
}

// The exact value rounded once to `type`, widened back to double: to fp32 through double rounded
// to odd (the sign of what lies beyond decides), then to fp16/bf16 from fp32 rounded to odd.
double RoundedOnce(Exact exact, FloatType type) {
  const double wide = static_cast<double>(exact.hi);
  const Quad rest = (exact.hi - static_cast<Quad>(wide)) + exact.lo;
  const auto odd_toward = [](auto value, Quad beyond) {
    using T = decltype(value);
    const bool even =
        (BitCast<std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>>(value) & 1) == 0;
    return beyond != 0 && even ? std::nextafter(value, beyond > 0 ? T(INFINITY) : T(-INFINITY))
                               : value;
  };
  const float single = static_cast<float>(odd_toward(wide, rest));
  if (type == FloatType::kFloat32) return single;
  const Quad rest32 = (exact.hi - static_cast<Quad>(single)) + exact.lo;
  const float odd = odd_toward(single, rest32);
  return type == FloatType::kFloat16 ? Float16ToFloat(FloatToFloat16(odd))
                                     : BFloat16ToFloat(FloatToBFloat16(odd));
}

struct Quality {
  int64_t count = 0, rounded = 0;
  double worst = 0;
};

void Record(Quality& q, double got, Exact exact, FloatType type) {
  ++q.count;
  const bool rounded = got == RoundedOnce(exact, type);
  if (rounded) ++q.rounded;
  q.worst = std::max(q.worst, rounded ? 0.0 : UlpError(got, exact, type));
}

void ExpectEveryResultRounded(const Quality& q, const std::string& what) {
  const double share = static_cast<double>(q.rounded) / static_cast<double>(q.count);
  std::cout << what << ": " << q.count << " results, correctly rounded " << 100 * share
            << "%, worst " << q.worst << " ulp\n";
  EXPECT_EQ(q.rounded, q.count) << what << ": worst " << q.worst << " ulp";
}

std::vector<uint16_t> Storage(const std::vector<float>& values, FloatType type) {
  std::vector<uint16_t> bits(values.size() * (type == FloatType::kFloat32 ? 2 : 1));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == FloatType::kFloat32) {
      std::memcpy(bits.data() + 2 * i, &values[i], sizeof(float));
    } else {
      bits[i] =
          type == FloatType::kFloat16 ? FloatToFloat16(values[i]) : FloatToBFloat16(values[i]);
    }
  }
  return bits;
}

double Load(const std::vector<uint16_t>& bits, FloatType type, size_t i) {
  if (type == FloatType::kFloat32) {
    float value;
    std::memcpy(&value, bits.data() + 2 * i, sizeof value);
    return value;
  }
  return type == FloatType::kFloat16 ? Float16ToFloat(bits[i]) : BFloat16ToFloat(bits[i]);
}

// v narrowed to `type` (as a user's fp16/bf16 tensors hold it) and back.
float InTypeValue(float v, FloatType type) {
  if (type == FloatType::kFloat32) return v;
  return type == FloatType::kFloat16 ? Float16ToFloat(FloatToFloat16(v))
                                     : BFloat16ToFloat(FloatToBFloat16(v));
}

// The inputs narrowed to `type` and back.
std::vector<Input> InType(std::vector<Input> inputs, FloatType type) {
  for (Input& in : inputs) {
    in.x = InTypeValue(in.x, type), in.t = InTypeValue(in.t, type);
    in.w = InTypeValue(in.w, type), in.p = InTypeValue(in.p, type);
    in.g = InTypeValue(in.g, type);
  }
  return inputs;
}

// Evaluates `kind` on `inputs` (every operand of `type`; with `side_type`, every operand but the
// logits of that type), block by block, returning each result widened to double, and with
// `sums` the mean/sum partials of each block.
std::vector<double> Evaluate(LossKind kind, const std::vector<Input>& inputs, FloatType type,
                             std::vector<double>* sums = nullptr, bool unweighted = false,
                             double scale = 1.0, std::optional<FloatType> side_type = {}) {
  std::vector<double> results;
  for (size_t begin = 0; begin < inputs.size(); begin += kReductionBlock) {
    const size_t count = std::min<size_t>(kReductionBlock, inputs.size() - begin);
    std::vector<float> columns[kOut];
    for (size_t i = 0; i < count; ++i) {
      const Input& in = inputs[begin + i];
      const float values[kOut] = {in.x, in.t, in.w, in.p, in.g};
      for (int which = 0; which < kOut; ++which) columns[which].push_back(values[which]);
    }
    std::vector<uint16_t> storage[kOut];
    TileInputs tile;
    for (int which = 0; which < kOut; ++which) {
      const bool side = which != kSelf;
      const FloatType operand_type = side ? side_type.value_or(type) : type;
      storage[which] = Storage(columns[which], operand_type);
      tile.operand[which] = {storage[which].data(), operand_type, false};
    }
    if (unweighted) tile.operand[kWeight] = tile.operand[kPosWeight] = {};
    std::vector<uint16_t> out(count * 2);
    const Partial sum = EvaluateTile(kind, scale, tile, static_cast<int64_t>(count),
                                     {out.data(), type}, sums != nullptr);
    if (sums != nullptr) sums->push_back(sum.sum);
    for (size_t i = 0; i < count; ++i) results.push_back(Load(out, type, i));
  }
  return results;
}

Exact ExactOf(LossKind kind, const Input& in) {
  switch (kind) {
    case LossKind::kLoss:
      return ExactLoss(in);
    case LossKind::kGradSelf:
      return ExactGradSelf(in);
    default:
      return ExactGradTarget(in);
  }
}

// 300,000 samples per op and dtype; a tenth under the sanitizers, which run the
// suite again 5-20 times slower, and off x86-64, where the binary128 reference is software long
// double and the suite runs it emulated (aarch64 under qemu): the full set runs natively on x86.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__x86_64__)
constexpr int64_t kSampleScale = 10;
#else
constexpr int64_t kSampleScale = 1;
#endif
constexpr int64_t kSamples = 300000 / kSampleScale;

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
// lanes (FastLoss16Of) for steps whose |x| are at most 80: every result correctly rounded.
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

// How far `v` is from the nearest midpoint of the 16-bit `type`'s grid, in grid spacings (0 on
// a midpoint, 1/2 on a grid point).
double FromMidpoint(double v, FloatType type) {
  const Grid grid = GridOf(type);
  const int exponent = std::max(std::ilogb(v), grid.min_exponent);
  const double spacing = std::ldexp(1.0, exponent - (grid.precision - 1));
  const double position = std::fabs(v) / spacing;
  return std::fabs(position - std::floor(position) - 0.5);
}

// From four million inputs drawn by `draw(i)` and narrowed to `type`, those whose `value` (in
// double, accurate far beyond the threshold) lies within 4 fp32 ulps of a midpoint of `type`.
template <class Draw, class Value>
std::vector<Input> DrawsNearMidpoints(FloatType type, Draw draw, Value value) {
  const double within = std::ldexp(4.0, GridOf(type).precision - 24);
  std::vector<Input> found;
  for (int64_t i = 0; i < 4000000 / kSampleScale; ++i) {
    const Input in = InType({draw(i)}, type)[0];
    const double v = value(in);
    if (v != 0 && FromMidpoint(v, type) < within) found.push_back(in);
  }
  return found;
}

// Weighted losses of `type` within 4 fp32 ulps of a midpoint (DrawsNearMidpoints): |x| < 8, w in
// [0, 4], p in [0, 8], half of them with the label on the log term's side (t = 0 for x < 0, 1 for
// x > 0), where the loss is w*p*log1p(exp(-|x|)) alone and the fp32 log term's error is whole.
std::vector<Input> WeightedLossesNearMidpoints(FloatType type, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  return DrawsNearMidpoints(
      type,
      [&](int64_t i) {
        Input in{static_cast<float>(16 * unit(rng) - 8), static_cast<float>(unit(rng)),
                 static_cast<float>(4 * unit(rng)), static_cast<float>(8 * unit(rng)), 1.0f};
        if (i % 2 == 0) in.t = in.x < 0 ? 0.0f : 1.0f;
        return in;
      },
      [](const Input& in) {
        const double a = std::fabs(double{in.x}), pos = double{in.p} * in.t, neg = 1.0 - in.t;
        return in.w * ((in.x < 0 ? pos : neg) * a + (pos + neg) * std::log1p(std::exp(-a)));
      });
}

// A named set of inputs, evaluated at `scale`.
struct InputSet {
  const char* name;
  const std::vector<Input>& inputs;
  double scale;
};

// `kind` on each set with 16-bit logits and results of `type`, and the other operands of `type`
// and of fp32 (as drawn): every result correctly rounded.
void ExpectWeightedHalfRounded(LossKind kind, FloatType type,
                               std::initializer_list<InputSet> sets) {
  const char* names[] = {"loss", "self gradient", "target gradient"};
  for (const auto& [name, set, scale] : sets) {
    for (const FloatType side_type : {type, FloatType::kFloat32}) {
      std::vector<Input> inputs = InType(set, side_type);
      for (Input& in : inputs) in.x = InTypeValue(in.x, type);
      const std::vector<double> got =
          Evaluate(kind, inputs, type, nullptr, false, scale, side_type);
      Quality quality;
      for (size_t i = 0; i < inputs.size(); ++i) {
        // The scaled reference is exact at scale 1 and within 2^-113 of the value otherwise.
        const Exact exact = ExactOf(kind, inputs[i]);
        Record(quality, got[i], TwoSum(exact.hi * scale, exact.lo * scale), type);
      }
      ExpectEveryResultRounded(quality, std::string("weighted ") + names[static_cast<int>(kind)] +
                                            ", " + name + ", " + TypeName(side_type) + " weights " +
                                            TypeName(type));
    }
  }
}

// 16-bit losses of 16-bit logits with weights, which the SIMD evaluator computes wholly in fp32
// lanes (FastWeightedLoss16Of) for steps whose |x| are at most 80, with target, weight and
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
        {{"random", random, 1.0}, {"edges", edges, 1.0}, {"near midpoints", near_midpoints, 1.0}});
  }
}

// 16-bit target gradients of 16-bit logits without weights, -x*g*scale, which the SIMD evaluator
// forms exactly in fp32 lanes for a power-of-two scale (ExactGradTargetOf): random inputs and
// the edges of fp32's range (bf16 values whose product over- or underflows it), at scales 1,
// 2^-10 and 2^-64, and 1/1000 (the fp64 path). Every result correctly rounded.
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
      for (const double scale : {1.0, 0x1p-10, 0x1p-64, 1e-3}) {
        const std::vector<double> got =
            Evaluate(LossKind::kGradTarget, set, type, nullptr, true, scale, g_type);
        Quality quality;
        for (size_t i = 0; i < set.size(); ++i) {
          const Exact exact = ExactOf(LossKind::kGradTarget, set[i]);
          Record(quality, got[i], TwoSum(exact.hi * scale, exact.lo * scale), type);
        }
        ExpectEveryResultRounded(quality, std::string("unweighted target gradient, ") + name +
                                              "scale " + std::to_string(scale) + " " +
                                              TypeName(type));
      }
    }
  }
}

// 16-bit self gradients of 16-bit logits with weights, which the SIMD evaluator computes wholly
// in fp32 lanes (FastGradSelf16Of) for steps whose |x| are at most 80: random inputs; targets next
// to the gradient's zero, where (1 - t)*sigmoid(x) - p*t*sigmoid(-x) cancels; the edges of its
// range (g or w zero; weights whose g*w underflows, times a large p); draws within 4 fp32 ulps
// of a midpoint; at scale 1 and 1/1000. Every result correctly rounded.
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
                              {{"random", random, 1.0},
                               {"cancelling", cancelling, 1.0},
                               {"edges", edges, 1.0},
                               {"near midpoints", near_midpoints, 1.0},
                               {"random, scale 1/1000", random, 1e-3},
                               {"cancelling, scale 1/1000", cancelling, 1e-3}});
  }
}

// 16-bit target gradients of 16-bit logits with weights, which the SIMD evaluator computes wholly
// in fp32 lanes (FastGradTarget16Of) for steps whose |x| are at most 80: random inputs; pos_weights
// next to the gradient's zero, where (p - 1)*log1p(exp(-|x|)) + K*|x| cancels; the edges of its
// range (g or w zero, with and without an overflowing inner sum; x = 0 with p = 1; subnormal
// pos_weights; weights whose g*w underflows); draws within 4 fp32 ulps of a midpoint; at scale 1
// and 1/1000. Every result correctly rounded.
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
                              {{"random", random, 1.0},
                               {"cancelling", cancelling, 1.0},
                               {"edges", edges, 1.0},
                               {"near midpoints", near_midpoints, 1.0},
                               {"random, scale 1/1000", random, 1e-3},
                               {"cancelling, scale 1/1000", cancelling, 1e-3}});
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

// Each block's sum (up to kReductionBlock terms) and the whole set's, against the exact sum of
// exact terms rounded once.
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
      // sigmoid(-a) as FastGradSelf16Of forms it: e times the rounded 1/(1 + e), the
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
    const Partial simd = EvaluateTile(LossKind::kLoss, 1.0, inputs, count, {nullptr, out}, true);
    const Partial scalar =
        EvaluateTileScalar(LossKind::kLoss, 1.0, inputs, count, {nullptr, out}, true);
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

// The mean or sum of the loss over `inputs` (every operand of `type`), through the CPU backend:
// its blocks, the combine, the total's rounding test and, where that fails, the fp64 pass and the
// exact pass. With `passes`: which of those two ran, read off the workspace. With `gradient`: the
// fused pass, which stores there the self gradient (of `type`, gradOutput 1) beside the total.
struct Passes {
  bool fp64_terms = false, exact = false;
};
double Reduce(const std::vector<Input>& inputs, FloatType type, Reduction reduction,
              Passes* passes = nullptr, std::vector<uint16_t>* gradient = nullptr) {
  const auto count = static_cast<int64_t>(inputs.size());
  std::vector<float> columns[kOut];
  for (const Input& in : inputs) {
    const float values[kOut] = {in.x, in.t, in.w, in.p, in.g};
    for (int which = 0; which < kOut; ++which) columns[which].push_back(values[which]);
  }
  std::vector<uint16_t> storage[kOut];
  BceProblem problem;
  problem.kind = LossKind::kLoss;
  problem.reduction = reduction;
  problem.rank = 1;
  problem.shape[0] = count;
  problem.count = count;
  TensorAddresses addresses{};
  for (int which = kSelf; which < kGradOutput; ++which) {
    storage[which] = Storage(columns[which], type);
    problem.operands[which].slot = which;
    problem.operands[which].type = type;
    problem.operands[which].strides[0] = 1;
    addresses[which] = storage[which].data();
  }
  std::vector<uint16_t> out(2);
  problem.operands[kOut].slot = kOut;
  problem.operands[kOut].type = type;
  addresses[kOut] = out.data();
  if (gradient != nullptr) {
    gradient->assign(static_cast<size_t>(count) * (type == FloatType::kFloat32 ? 2 : 1), 0);
    problem.operands[kGradSelfOut].slot = kGradSelfOut;
    problem.operands[kGradSelfOut].type = type;
    problem.operands[kGradSelfOut].strides[0] = 1;
    addresses[kGradSelfOut] = gradient->data();
    if (reduction == Reduction::kMean) problem.gradient_scale = 1.0 / static_cast<double>(count);
  }
  // NaN everywhere: an exact sum the exact pass did not write stays NaN.
  std::vector<double> workspace(ReductionWorkspaceBytesFor(count) / sizeof(double),
                                std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(kCpuBceKernels.run(problem, {addresses, workspace.data(), nullptr}), nullptr);
  if (passes != nullptr) {
    const ReductionWorkspace areas = ReductionWorkspaceAt(workspace.data(), count);
    // fp32 terms' bounds are 2^-20 of their values, fp64 terms' about 2^-43.
    passes->fp64_terms = areas.partials[0].bound < 0x1p-30 * std::fabs(areas.partials[0].sum);
    passes->exact = !std::isnan(areas.exact[0].hi);
  }
  return Load(out, type, 0);
}

// The exact mean or sum of the losses (mean over a power-of-two count: the division is exact).
Exact ExactReduction(const std::vector<Input>& inputs, Reduction reduction) {
  Exact total;
  for (const Input& in : inputs) total = Plus(total, ExactLoss(in));
  if (reduction == Reduction::kSum) return total;
  const auto count = static_cast<Quad>(inputs.size());
  return {total.hi / count, total.lo / count};
}

class ReductionRounding : public testing::TestWithParam<FloatType> {};

// Sums of 257 and means of 256 random losses: 2000 independent totals of each (200 under the
// sanitizers).
TEST_P(ReductionRounding, RandomSumsAndMeansAreTheExactTotalRoundedOnce) {
  const FloatType type = GetParam();
  for (const auto& [reduction, length] :
       {std::pair{Reduction::kSum, 257}, {Reduction::kMean, 256}}) {
    const std::vector<Input> inputs =
        InType(RandomInputs(99 + length, 2000 / kSampleScale * length), type);
    Quality quality;
    for (size_t begin = 0; begin < inputs.size(); begin += length) {
      const std::vector<Input> block(inputs.begin() + static_cast<int64_t>(begin),
                                     inputs.begin() + static_cast<int64_t>(begin + length));
      Record(quality, Reduce(block, type, reduction), ExactReduction(block, reduction), type);
    }
    ExpectEveryResultRounded(quality, std::string(reduction == Reduction::kSum ? "sum" : "mean") +
                                          " of " + std::to_string(length) + " losses " +
                                          TypeName(type));
  }
}

// 16-bit totals of 16-bit terms (BceLossTerm32, each within about 2^-22 of its value) whose
// exact value lies within 4 fp32 ulps of a midpoint of the type, where the fp32 estimate often
// lies on the other side of it: the bounds must send them to the exact pass. One element alone,
// and the same element among 5000 (a sum) or 8192 (a mean) of zero weight: two blocks, exact +0
// terms.
TEST(ReductionRounding16, TotalsNearAMidpointAreTheExactTotalRoundedOnce) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::mt19937 rng(20261204);
    const std::vector<Input> near_midpoints = WeightedLossesNearMidpoints(type, rng);
    ASSERT_GT(near_midpoints.size(), 200 / kSampleScale) << TypeName(type);
    Quality alone;
    for (const Input& in : near_midpoints) {
      Record(alone, Reduce({in}, type, Reduction::kSum), ExactReduction({in}, Reduction::kSum),
             type);
    }
    ExpectEveryResultRounded(alone, std::string("sum of one next to a midpoint ") + TypeName(type));
    // Where the fp32 terms leave a total open (many of these), the fp64 terms settle it: the exact
    // pass, a thousand times slower, stays as rare as for fp32 results.
    int64_t fp64_passes = 0, exact_passes = 0;
    for (const Input& in : near_midpoints) {
      Passes passes;
      Reduce({in}, type, Reduction::kSum, &passes);
      fp64_passes += passes.fp64_terms;
      exact_passes += passes.exact;
    }
    std::cout << TypeName(type) << ": of " << near_midpoints.size() << " totals, " << fp64_passes
              << " took the fp64 pass and " << exact_passes << " the exact pass\n";
    EXPECT_GT(fp64_passes, static_cast<int64_t>(near_midpoints.size()) / 10) << TypeName(type);
    EXPECT_LE(exact_passes, fp64_passes / 100) << TypeName(type);
    for (const Reduction reduction : {Reduction::kSum, Reduction::kMean}) {
      Quality among;
      for (size_t i = 0; i < near_midpoints.size(); i += 64) {  // the long form is slow to build
        std::vector<Input> spread(reduction == Reduction::kMean ? 8192 : 5000,
                                  Input{1.0f, 0.5f, 0.0f, 1.0f, 1.0f});
        spread[4100] = near_midpoints[i];
        Record(among, Reduce(spread, type, reduction), ExactReduction(spread, reduction), type);
      }
      const std::string name = reduction == Reduction::kSum ? "sum" : "mean";
      ExpectEveryResultRounded(among, name + " of one among zero weights " + TypeName(type));
    }
  }
}

// The fused pass of a 16-bit mean or sum adds the same fp32 terms (SumsFp32Terms), and its
// gradient is the self gradient's: totals next to a midpoint (as above) and random means of 256,
// each total and every gradient element the exact one rounded once; the open totals take the fp64
// pass (which stores no gradient again) before any exact pass, and the random means' first pass
// settles nearly all of them (with fp64 terms from the start, all would read as fp64 ones).
TEST(ReductionRounding16, FusedTotalsAndGradientsAreRoundedOnce) {
  for (const FloatType type : {FloatType::kFloat16, FloatType::kBFloat16}) {
    std::mt19937 rng(20261202);
    const std::vector<Input> near_midpoints = WeightedLossesNearMidpoints(type, rng);
    Quality totals, gradients;
    int64_t fp64_passes = 0, exact_passes = 0;
    const auto check = [&](const std::vector<Input>& inputs, Reduction reduction) {
      Passes passes;
      std::vector<uint16_t> gradient;
      Record(totals, Reduce(inputs, type, reduction, &passes, &gradient),
             ExactReduction(inputs, reduction), type);
      fp64_passes += passes.fp64_terms;
      exact_passes += passes.exact;
      const auto count = static_cast<Quad>(inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i) {
        Input in = inputs[i];
        in.g = 1.0f;  // the fused pass has no gradOutput
        Exact exact = ExactGradSelf(in);
        if (reduction == Reduction::kMean) exact = {exact.hi / count, exact.lo / count};
        Record(gradients, Load(gradient, type, i), exact, type);
      }
    };
    for (const Input& in : near_midpoints) check({in}, Reduction::kSum);
    const int64_t near_fp64_passes = fp64_passes;
    const std::vector<Input> random = InType(RandomInputs(7, 256 * 200 / kSampleScale), type);
    for (size_t begin = 0; begin < random.size(); begin += 256) {
      check({random.begin() + static_cast<int64_t>(begin),
             random.begin() + static_cast<int64_t>(begin + 256)},
            Reduction::kMean);
    }
    ExpectEveryResultRounded(totals, std::string("fused totals ") + TypeName(type));
    ExpectEveryResultRounded(gradients, std::string("fused gradients ") + TypeName(type));
    EXPECT_GT(near_fp64_passes, static_cast<int64_t>(near_midpoints.size()) / 10) << TypeName(type);
    EXPECT_LT(fp64_passes - near_fp64_passes, 200 / kSampleScale / 10) << TypeName(type);
    EXPECT_LE(exact_passes, fp64_passes / 100) << TypeName(type);
  }
}

// ---- Inputs built to lie next to a rounding boundary: an exactly representable main part on a
// midpoint of the output type (a product of inputs, exact in fp64), plus a tiny transcendental
// rest (exp(-|x|) for large |x|) that decides the direction; or, with no rest, the exact midpoint
// itself (ties to even).

// Whether v (exact in double) is a midpoint between two values of `type`.
bool IsMidpoint(double v, FloatType type) {
  return RoundedOnce({v, 1e-300}, type) != RoundedOnce({v, -1e-300}, type);
}

// `count` inputs (values of `type`) for which `main(in)`, exact in double, is a midpoint of
// `type`, drawn by `draw`; the first ones `seeds`.
template <class Draw, class Main>
std::vector<Input> NearMidpoints(FloatType type, size_t count, std::vector<Input> seeds, Draw draw,
                                 Main main) {
  std::mt19937 rng(static_cast<uint32_t>(count) + static_cast<uint32_t>(type));
  std::vector<Input> found;
  for (const Input& in : seeds) found.push_back(in);
  for (int tries = 0; found.size() < count && tries < 1000000; ++tries) {
    Input in = draw(rng);
    in.x = InTypeValue(in.x, type), in.t = InTypeValue(in.t, type);
    in.w = InTypeValue(in.w, type), in.p = InTypeValue(in.p, type);
    in.g = InTypeValue(in.g, type);
    if (IsMidpoint(main(in), type)) found.push_back(in);
  }
  EXPECT_EQ(found.size(), count) << "too few inputs on midpoints";
  return found;
}

class BoundaryRounding : public testing::TestWithParam<FloatType> {};

TEST_P(BoundaryRounding, ResultsNextToAMidpointAreRoundedTheRightWay) {
  const FloatType type = GetParam();
  const size_t count = 2000 / kSampleScale;
  std::uniform_real_distribution<float> large(17.0f, 80.0f), unit(0.0f, 1.0f);
  const float factors[] = {1.5f, 0.75f, 3.0f, 1.25f, 2.5f, 0.625f};
  auto factor = [&](std::mt19937& rng) { return factors[rng() % 6]; };
  const std::vector<Input> none;
  // The example: x = 33.890377, t = 0, w = 1.5 is 50.8355675 correctly rounded.
  const std::vector<Input> example =
      type == FloatType::kFloat32 ? std::vector<Input>{{33.890377f, 0.0f, 1.5f, 1.0f, 1.0f}} : none;
  struct BoundaryCase {
    const char* name;
    LossKind kind;
    std::vector<Input> inputs;
    bool unweighted = false;  // weight and pos_weight absent (the tile's unweighted evaluator)
  };
  const BoundaryCase cases[] = {
      // t = 0, x > 0: w*x + w*log1p(exp(-x)), above the midpoint w*x.
      {"loss t=0", LossKind::kLoss,
       NearMidpoints(
           type, count, example,
           [&](std::mt19937& rng) {
             return Input{large(rng), 0.0f, factor(rng), 1.0f, 1.0f};
           },
           [](const Input& in) { return double{in.w} * in.x; })},
      // t = 1, x < 0: w*p*|x| + w*p*log1p(exp(x)).
      {"loss t=1", LossKind::kLoss,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{-large(rng), 1.0f, factor(rng), factor(rng), 1.0f};
           },
           [](const Input& in) { return double{in.w} * in.p * -in.x; })},
      // t = 0, x > 0: g*w*(1 - sigmoid(-x)), below the midpoint g*w.
      {"grad_self t=0", LossKind::kGradSelf,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{large(rng), 0.0f, 1.0f + unit(rng), 1.0f, factor(rng)};
           },
           [](const Input& in) { return double{in.g} * in.w; })},
      // t = 1, x < 0: -g*w*p*(1 - sigmoid(x)).
      {"grad_self t=1", LossKind::kGradSelf,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{-large(rng), 1.0f, 1.0f + unit(rng), factor(rng), factor(rng)};
           },
           [](const Input& in) { return -double{in.g} * in.w * in.p; })},
      // p = 1: exactly -g*w*x, on the midpoint itself (ties to even).
      {"grad_target p=1", LossKind::kGradTarget,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{8.0f * unit(rng) - 4.0f, 0.5f, factor(rng), 1.0f, factor(rng)};
           },
           [](const Input& in) { return -double{in.g} * in.w * in.x; })},
      // Without weights: -g*x, exact in fp64 and rounded from it directly, on the midpoint.
      {"grad_target unweighted", LossKind::kGradTarget,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{8.0f * unit(rng) - 4.0f, 0.5f, 1.0f, 1.0f, factor(rng)};
           },
           [](const Input& in) { return -double{in.g} * in.x; }),
       true},
      // x > 0, p = 2: -g*w*x + g*w*log1p(exp(-x)).
      {"grad_target p=2", LossKind::kGradTarget,
       NearMidpoints(
           type, count, none,
           [&](std::mt19937& rng) {
             return Input{large(rng), 0.5f, factor(rng), 2.0f, factor(rng)};
           },
           [](const Input& in) { return -double{in.g} * in.w * in.x; })},
  };
  for (const BoundaryCase& c : cases) {
    const std::vector<double> got = Evaluate(c.kind, c.inputs, type, nullptr, c.unweighted);
    Quality quality;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      Record(quality, got[i], ExactOf(c.kind, c.inputs[i]), type);
    }
    ExpectEveryResultRounded(quality, std::string(c.name) + " next to midpoints " + TypeName(type));
  }
}

// Totals whose main part x1 + x2 (t = 0) is a midpoint: the rest, log1p(exp(-x1)) +
// log1p(exp(-x2)), decides. Two elements, and the same two 4500 apart (two blocks) among
// zero-weight elements.
TEST_P(BoundaryRounding, TotalsNextToAMidpointAreRoundedTheRightWay) {
  const FloatType type = GetParam();
  const size_t count = 400 / kSampleScale;
  std::uniform_real_distribution<float> large(17.0f, 60.0f);
  // The example: the sum over x = [46.0028343, 39.6106033], t = 0, is 85.6134415.
  const std::vector<Input> example = type == FloatType::kFloat32
                                         ? std::vector<Input>{{46.0028343f, 0.0f, 1.0f, 1.0f, 1.0f},
                                                              {39.6106033f, 0.0f, 1.0f, 1.0f, 1.0f}}
                                         : std::vector<Input>{};
  // Pairs as consecutive inputs: the draw makes x2, and the main part needs x1, the pair's first.
  std::vector<Input> pairs = example;
  std::mt19937 rng(5);
  while (pairs.size() < 2 * count) {
    const Input first{InTypeValue(large(rng), type), 0.0f, 1.0f, 1.0f, 1.0f};
    const Input second{InTypeValue(large(rng), type), 0.0f, 1.0f, 1.0f, 1.0f};
    if (!IsMidpoint(double{first.x} + second.x, type)) continue;
    pairs.push_back(first);
    pairs.push_back(second);
  }
  for (const Reduction reduction : {Reduction::kSum, Reduction::kMean}) {
    Quality two, spread;
    for (size_t i = 0; i < pairs.size(); i += 2) {
      const std::vector<Input> pair = {pairs[i], pairs[i + 1]};
      Record(two, Reduce(pair, type, reduction), ExactReduction(pair, reduction), type);
      if (i % 16 != 0) continue;  // the long form is slow to build: every 8th pair
      std::vector<Input> apart(8192, Input{0.0f, 0.0f, 0.0f, 1.0f, 1.0f});
      apart[7] = pairs[i], apart[4507] = pairs[i + 1];
      Record(spread, Reduce(apart, type, reduction), ExactReduction(apart, reduction), type);
    }
    const std::string name = reduction == Reduction::kSum ? "sum" : "mean";
    ExpectEveryResultRounded(two, name + " of two next to midpoints " + TypeName(type));
    ExpectEveryResultRounded(spread, name + " of 8192 next to midpoints " + TypeName(type));
  }
}

// 16-bit self gradients of 16-bit logits without weights, which the SIMD evaluator computes
// wholly in fp32 lanes (FastGradSelf16Of) with a per-lane reach for the cancellation of
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
    // The scales: none's 1, a mean's 1/1000 (not a power of two: rounded to fp32 with g*scale).
    const struct {
      const char* name;
      const std::vector<Input>& inputs;
      double scale;
    } sets[] = {{"random", random, 1.0},
                {"cancelling", cancelling, 1.0},
                {"near midpoints", near_midpoints, 1.0},
                {"random, scale 1/1000", random, 1e-3},
                {"cancelling, scale 1/1000", cancelling, 1e-3}};
    for (const auto& [name, set, scale] : sets) {
      const std::vector<Input> inputs = InType(set, type);
      const std::vector<double> got =
          Evaluate(LossKind::kGradSelf, inputs, type, nullptr, true, scale);
      Quality quality;
      for (size_t i = 0; i < inputs.size(); ++i) {
        // The unweighted main parts have at most 25 bits: times the scale, still exact.
        const Exact exact = ExactOf(LossKind::kGradSelf, inputs[i]);
        Record(quality, got[i], TwoSum(exact.hi * scale, exact.lo * scale), type);
      }
      ExpectEveryResultRounded(
          quality, std::string("unweighted self gradient, ") + name + " " + TypeName(type));
    }
  }
}

const auto kTypes = testing::Values(FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16);
const auto kTypeName = [](const auto& param_info) {
  return std::string(TypeName(param_info.param));
};
INSTANTIATE_TEST_SUITE_P(Types, ReductionRounding, kTypes, kTypeName);
INSTANTIATE_TEST_SUITE_P(Types, BoundaryRounding, kTypes, kTypeName);

}  // namespace
}  // namespace openaclnn
