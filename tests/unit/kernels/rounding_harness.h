// What the rounding tests share: their inputs (random, and drawn next to a rounding boundary),
// the evaluation of a tile of them through the CPU backend's tile evaluator, and the tally of
// correctly rounded results against the binary128 oracle.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "binary128_oracle.h"
#include "kernels/loss_problem.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

namespace openaclnn {

inline const char* TypeName(FloatType type) {
  return type == FloatType::kFloat32 ? "fp32" : type == FloatType::kFloat16 ? "fp16" : "bf16";
}

// The distribution: |x| log-uniform over [1e-6, 120] with either sign; t uniform in
// [0, 1] with a third hard labels; w in [0, 4], p in [0, 8], g in [-2, 2]; plus tails: one in
// 16 with |x| up to 1e4, one in 16 with p = 1 or w = 0.
inline std::vector<Input> RandomInputs(uint32_t seed, int64_t count) {
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
inline std::vector<Input> NearTargetZero(uint32_t seed, int64_t count) {
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

struct Quality {
  int64_t count = 0, rounded = 0;
  double worst = 0;
};

inline void Record(Quality& q, double got, Exact exact, FloatType type) {
  ++q.count;
  const bool rounded = got == RoundedOnce(exact, type);
  if (rounded) ++q.rounded;
  q.worst = std::max(q.worst, rounded ? 0.0 : UlpError(got, exact, type));
}

inline void ExpectEveryResultRounded(const Quality& q, const std::string& what) {
  const double share = static_cast<double>(q.rounded) / static_cast<double>(q.count);
  std::cout << what << ": " << q.count << " results, correctly rounded " << 100 * share
            << "%, worst " << q.worst << " ulp\n";
  EXPECT_EQ(q.rounded, q.count) << what << ": worst " << q.worst << " ulp";
}

inline std::vector<uint16_t> Storage(const std::vector<float>& values, FloatType type) {
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

inline double Load(const std::vector<uint16_t>& bits, FloatType type, size_t i) {
  if (type == FloatType::kFloat32) {
    float value;
    std::memcpy(&value, bits.data() + 2 * i, sizeof value);
    return value;
  }
  return type == FloatType::kFloat16 ? Float16ToFloat(bits[i]) : BFloat16ToFloat(bits[i]);
}

// v narrowed to `type` (as a user's fp16/bf16 tensors hold it) and back.
inline float InTypeValue(float v, FloatType type) {
  if (type == FloatType::kFloat32) return v;
  return type == FloatType::kFloat16 ? Float16ToFloat(FloatToFloat16(v))
                                     : BFloat16ToFloat(FloatToBFloat16(v));
}

// The inputs narrowed to `type` and back.
inline std::vector<Input> InType(std::vector<Input> inputs, FloatType type) {
  for (Input& in : inputs) {
    in.x = InTypeValue(in.x, type), in.t = InTypeValue(in.t, type);
    in.w = InTypeValue(in.w, type), in.p = InTypeValue(in.p, type);
    in.g = InTypeValue(in.g, type);
  }
  return inputs;
}

// Evaluates `kind` on `inputs` (every operand of `type`; with `side_type`, every operand but the
// logits of that type), each result divided by `divisor`, block by block, returning each result
// widened to double, and with `sums` the mean/sum partials of each block.
inline std::vector<double> Evaluate(LossKind kind, const std::vector<Input>& inputs, FloatType type,
                                    std::vector<double>* sums = nullptr, bool unweighted = false,
                                    int64_t divisor = 1, std::optional<FloatType> side_type = {}) {
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
    const Partial sum = EvaluateTile(kind, DividedBy(divisor), tile, static_cast<int64_t>(count),
                                     {out.data(), type}, sums != nullptr);
    if (sums != nullptr) sums->push_back(sum.sum);
    for (size_t i = 0; i < count; ++i) results.push_back(Load(out, type, i));
  }
  return results;
}

// 300,000 samples per op and dtype; a tenth under the sanitizers, which run the
// suite again 5-20 times slower, and off x86-64, where the binary128 reference is software long
// double and the suite runs it emulated (aarch64 under qemu): the full set runs natively on x86.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__x86_64__)
inline constexpr int64_t kSampleScale = 10;
#else
inline constexpr int64_t kSampleScale = 1;
#endif
inline constexpr int64_t kSamples = 300000 / kSampleScale;

// How far `v` is from the nearest midpoint of the 16-bit `type`'s grid, in grid spacings (0 on
// a midpoint, 1/2 on a grid point).
inline double FromMidpoint(double v, FloatType type) {
  const Grid grid = GridOf(type);
  const int exponent = std::max(std::ilogb(v), grid.min_exponent);
  const double spacing = std::ldexp(1.0, exponent - (grid.precision - 1));
  const double position = std::fabs(v) / spacing;
  return std::fabs(position - std::floor(position) - 0.5);
}

// From four million inputs drawn by `draw(i)` and narrowed to `type`, those whose `value` (in
// double, accurate far beyond the threshold) lies within 4 fp32 ulps of a midpoint of `type`.
template <class Draw, class Value>
inline std::vector<Input> DrawsNearMidpoints(FloatType type, Draw draw, Value value) {
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
inline std::vector<Input> WeightedLossesNearMidpoints(FloatType type, std::mt19937& rng) {
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

}  // namespace openaclnn
