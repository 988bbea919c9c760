// Rounding quality of the element kernels: on a fixed random set of inputs, each result is
// compared with the exact value rounded once, computed independently of the library in binary128
// (__float128 with libquadmath on x86-64, long double where that is binary128) from
// cancellation-free forms. Asserts, per op and output dtype, that at least 99.9% of results are
// correctly rounded and none is more than 1 ulp away; mean/sum likewise on random blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/dtype.h"
#include "kernels/bce.h"
#include "kernels/cpu/tile_math.h"
#include "kernels/math.h"

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

// log1p(exp(-|x|)) and |x|, from which every op is a cancellation-free sum.
Quad SoftplusTail(float x) { return Log1p(Exp(-Abs(static_cast<Quad>(x)))); }

Quad ExactLoss(const Input& in) {
  const Quad a = Abs(static_cast<Quad>(in.x));
  const Quad pos = static_cast<Quad>(in.p) * in.t, neg = 1 - static_cast<Quad>(in.t);
  const Quad linear = in.x < 0 ? pos : neg;
  return static_cast<Quad>(in.w) * (linear * a + (pos + neg) * SoftplusTail(in.x));
}

Quad ExactGradSelf(const Input& in) {
  const Quad e = Exp(-Abs(static_cast<Quad>(in.x)));
  const Quad pos = static_cast<Quad>(in.p) * in.t, neg = 1 - static_cast<Quad>(in.t);
  const Quad numerator = in.x < 0 ? neg * e - pos : neg - pos * e;
  return static_cast<Quad>(in.g) * in.w * numerator / (1 + e);
}

Quad ExactGradTarget(const Input& in) {
  const Quad a = Abs(static_cast<Quad>(in.x));
  const Quad linear = in.x < 0 ? static_cast<Quad>(in.p) : Quad(-1);
  const Quad inner = (static_cast<Quad>(in.p) - 1) * SoftplusTail(in.x) + linear * a;
  return static_cast<Quad>(in.g) * in.w * inner;
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
double UlpError(double got, Quad exact, FloatType type) {
  const int mantissa = type == FloatType::kFloat32 ? 24 : type == FloatType::kFloat16 ? 11 : 8;
  const int min_exponent = type == FloatType::kFloat32   ? -126
                           : type == FloatType::kFloat16 ? -14
                                                         : -126;
  const Quad magnitude = std::fabs(static_cast<double>(exact)) > 0 ? exact : Quad(1e-300);
  int exponent = 0;
  std::frexp(std::fabs(static_cast<double>(magnitude)), &exponent);
  exponent = std::max(exponent - 1, min_exponent);
  const double ulp = std::ldexp(1.0, exponent - (mantissa - 1));
  return static_cast<double>(Abs(static_cast<Quad>(got) - exact) / ulp);
}

// The exact value rounded once to `type`, widened back to double.
double RoundedOnce(Quad exact, FloatType type) {
  // binary128 -> double -> fp32 is two roundings; double carries 29 extra bits, and the rare
  // double result on an fp32 midpoint is resolved by the sign of the remainder.
  const double wide = static_cast<double>(exact);
  const Quad rest = exact - static_cast<Quad>(wide);
  double nudged = wide;
  if (rest != 0) nudged = std::nextafter(wide, rest > 0 ? INFINITY : -INFINITY);
  const bool on_odd = (BitCast<uint64_t>(wide) & 1) != 0;
  const float single = static_cast<float>(rest != 0 && !on_odd ? nudged : wide);
  if (type == FloatType::kFloat32) return single;
  // To fp16/bf16 from the fp32 rounded to odd the same way.
  const uint32_t bits = BitCast<uint32_t>(single);
  const double back = static_cast<double>(single);
  const Quad rest32 = exact - static_cast<Quad>(back);
  const float odd = (rest32 != 0 && (bits & 1) == 0)
                        ? std::nextafter(single, rest32 > 0 ? INFINITY : -INFINITY)
                        : single;
  const float narrow = type == FloatType::kFloat16 ? Float16ToFloat(FloatToFloat16(odd))
                                                   : BFloat16ToFloat(FloatToBFloat16(odd));
  return narrow;
}

struct Quality {
  int64_t count = 0, rounded = 0, within_one = 0;
  double worst = 0;
};

void Record(Quality& q, double got, Quad exact, FloatType type) {
  ++q.count;
  const bool rounded = got == RoundedOnce(exact, type);
  if (rounded) ++q.rounded;
  const double error = rounded ? 0.0 : UlpError(got, exact, type);
  if (error <= 1.0) ++q.within_one;
  q.worst = std::max(q.worst, error);
}

void ExpectQuality(const Quality& q, const std::string& what) {
  const double share = static_cast<double>(q.rounded) / static_cast<double>(q.count);
  std::cout << what << ": " << q.count << " results, correctly rounded " << 100 * share
            << "%, worst " << q.worst << " ulp\n";
  EXPECT_GE(share, 0.999) << what;
  EXPECT_EQ(q.within_one, q.count) << what << ": worst " << q.worst << " ulp";
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

// The inputs narrowed to `type` (as a user's fp16/bf16 tensors hold them) and back.
std::vector<Input> InType(std::vector<Input> inputs, FloatType type) {
  if (type == FloatType::kFloat32) return inputs;
  const auto narrow = [type](float v) {
    return type == FloatType::kFloat16 ? Float16ToFloat(FloatToFloat16(v))
                                       : BFloat16ToFloat(FloatToBFloat16(v));
  };
  for (Input& in : inputs) {
    in.x = narrow(in.x), in.t = narrow(in.t), in.w = narrow(in.w), in.p = narrow(in.p);
    in.g = narrow(in.g);
  }
  return inputs;
}

// Evaluates `kind` on `inputs` (every operand of `type`), block by block, returning each result
// widened to double, and with `sums` the mean/sum partials of each block.
std::vector<double> Evaluate(LossKind kind, const std::vector<Input>& inputs, FloatType type,
                             std::vector<double>* sums = nullptr) {
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
      storage[which] = Storage(columns[which], type);
      tile.operand[which] = {storage[which].data(), type, false};
    }
    std::vector<uint16_t> out(count * 2);
    const double sum = EvaluateTile(kind, 1.0, tile, static_cast<int64_t>(count),
                                    {out.data(), type}, sums != nullptr);
    if (sums != nullptr) sums->push_back(sum);
    for (size_t i = 0; i < count; ++i) results.push_back(Load(out, type, i));
  }
  return results;
}

Quad Exact(LossKind kind, const Input& in) {
  switch (kind) {
    case LossKind::kLoss:
      return ExactLoss(in);
    case LossKind::kGradSelf:
      return ExactGradSelf(in);
    default:
      return ExactGradTarget(in);
  }
}

// Enough samples to show 99.9% (300 misses allowed); a tenth under the sanitizers, which run the
// suite again 5-20 times slower, and off x86-64, where the binary128 reference is software long
// double and the suite runs it emulated (aarch64 under qemu): the full set runs natively on x86.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__x86_64__)
constexpr int64_t kSampleScale = 10;
#else
constexpr int64_t kSampleScale = 1;
#endif
constexpr int64_t kSamples = 300000 / kSampleScale;

class Rounding : public testing::TestWithParam<FloatType> {};

TEST_P(Rounding, EveryOpIsCorrectlyRoundedAndWithinOneUlp) {
  const FloatType type = GetParam();
  const std::vector<Input> inputs = InType(RandomInputs(20261201, kSamples), type);
  const char* names[] = {"loss", "grad_self", "grad_target"};
  for (const LossKind kind : {LossKind::kLoss, LossKind::kGradSelf, LossKind::kGradTarget}) {
    const std::vector<double> got = Evaluate(kind, inputs, type);
    Quality quality;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Record(quality, got[i], Exact(kind, inputs[i]), type);
    }
    ExpectQuality(quality, std::string(names[static_cast<int>(kind)]) + " " + TypeName(type));
  }
}

INSTANTIATE_TEST_SUITE_P(Types, Rounding,
                         testing::Values(FloatType::kFloat32, FloatType::kFloat16,
                                         FloatType::kBFloat16),
                         [](const auto& param_info) {
                           return std::string(TypeName(param_info.param));
                         });

TEST(Rounding, TargetGradientNearItsZero) {
  const std::vector<Input> inputs = NearTargetZero(7, 100000 / kSampleScale);
  const std::vector<double> got = Evaluate(LossKind::kGradTarget, inputs, FloatType::kFloat32);
  Quality quality;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Record(quality, got[i], ExactGradTarget(inputs[i]), FloatType::kFloat32);
  }
  ExpectQuality(quality, "grad_target near its zero");
}

// Each block's sum (up to kReductionBlock terms) and the whole set's, against the exact sum of
// exact terms rounded once.
// Where the self gradient is exactly 0 (x = 0 and t*(1+p) = 1: every lane of a zero-initialised
// model's first step under label smoothing), the fp64 estimate must settle it: the double-double
// path, lane by lane, is 400x slower (tile_bench zero_logits).
TEST(Rounding, AnExactZeroSelfGradientSettlesWithoutTheExactPath) {
  using O64 = math::ScalarOps64;
  for (const auto& [t, p] : {std::pair{0.5, 1.0}, {0.25, 3.0}, {0.125, 7.0}}) {
    for (const double g : {1.0, -0.75}) {
      const auto estimate = math::GradSelf64<O64>(0.0, t, 1.5, p, g, 1.0 / 3);
      EXPECT_EQ(estimate.value, 0.0) << "t " << t << " p " << p;
      EXPECT_TRUE(math::Settled(estimate)) << "t " << t << " p " << p << " g " << g;
    }
  }
}

TEST(Rounding, SumsAreTheExactSumRoundedOnce) {
  const std::vector<Input> inputs = RandomInputs(99, 4000 / kSampleScale * 257);
  std::vector<double> sums;
  std::vector<Input> block;
  Quality quality;
  // Blocks of 257 elements: 4000 independent sums (400 under the sanitizers).
  for (size_t begin = 0; begin < inputs.size(); begin += 257) {
    block.assign(inputs.begin() + static_cast<int64_t>(begin),
                 inputs.begin() + static_cast<int64_t>(begin + 257));
    sums.clear();
    Evaluate(LossKind::kLoss, block, FloatType::kFloat32, &sums);
    Quad exact = 0;
    for (const Input& in : block) exact += ExactLoss(in);
    Record(quality, static_cast<float>(sums[0]), exact, FloatType::kFloat32);
  }
  ExpectQuality(quality, "sum of 257 losses");
}

}  // namespace
}  // namespace openaclnn
