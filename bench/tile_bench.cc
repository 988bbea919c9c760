// The element kernel alone (EvaluateTile over one reduction block held in L1/L2), without the
// op's phase 1, stream hand-off or memory traffic: the compute ceiling of the fused pass, for
// comparing kernel changes. Also the scalar definition, for the SIMD speed-up.
// Three input sets: `ramp` (x in [-8, 8), the values op_bench uses: every lane on the common path)
// and `mixed` (fp32 only: issue 9's accuracy inputs, |x| log-uniform over [1e-6, 120], a third of
// the targets hard labels, w in [0, 4], p in [0, 8]), so a kernel whose cost depends on the
// inputs (a rare exact path, a range split) is timed on both; and `zero_logits` (fp32, x = 0,
// t = 0.5: exact zero self gradients, which once took the exact path lane by lane). The binary
// cross entropy's kinds (binary_cross_entropy, _backward) take probabilities instead of logits:
// ramp x in (0, 1) (falling where the target rises: x - t is rarely 0), mixed x log-uniform over
// [1e-6, 1] or 1 minus that, the same targets, w and g; their weight is w alone (the family has no
// pos_weight).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/tile_math.h"
#include "base/dtype.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

namespace openaclnn {
namespace {

constexpr int64_t kCount = kReductionBlock;

// kCount values of `type`, a ramp over [low, high).
std::vector<uint16_t> Ramp(FloatType type, float low, float high) {
  std::vector<uint16_t> storage(static_cast<size_t>(kCount) *
                                (type == FloatType::kFloat32 ? 2 : 1));
  for (int64_t i = 0; i < kCount; ++i) {
    const float value = low + (high - low) * static_cast<float>((i * 7919) % 1000) / 1000.0f;
    if (type == FloatType::kFloat32) {
      reinterpret_cast<float*>(storage.data())[i] = value;
    } else {
      storage[i] = type == FloatType::kFloat16 ? FloatToFloat16(value) : FloatToBFloat16(value);
    }
  }
  return storage;
}

// kCount fp32 values (two uint16_t each) drawn by `draw`, fixed seed per call site.
template <class Draw>
std::vector<uint16_t> Random(uint32_t seed, Draw&& draw) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> storage(static_cast<size_t>(kCount) * 2);
  for (int64_t i = 0; i < kCount; ++i) reinterpret_cast<float*>(storage.data())[i] = draw(rng);
  return storage;
}

struct Inputs {
  std::vector<uint16_t> x, t, w, p, g;
};

Inputs RampInputs(FloatType type, LossFamily family = LossFamily::kBceWithLogits) {
  const bool logits = family == LossFamily::kBceWithLogits;
  return {logits ? Ramp(type, -8.0f, 8.0f) : Ramp(type, 0.9995f, -0.0005f), Ramp(type, 0.0f, 1.0f),
          Ramp(type, 0.0f, 2.0f), Ramp(type, 0.5f, 3.0f), Ramp(type, -1.0f, 1.0f)};
}

// The first step of a zero-initialised model under label smoothing: every logit 0, every target
// 0.5, so every self gradient is exactly 0.
Inputs ZeroLogitInputs() {
  Inputs in = RampInputs(FloatType::kFloat32);
  for (auto* values : {&in.x, &in.t}) {
    const float value = values == &in.x ? 0.0f : 0.5f;
    for (int64_t i = 0; i < kCount; ++i) reinterpret_cast<float*>(values->data())[i] = value;
  }
  return in;
}

// The input sets: ramp (any dtype), and for fp32 mixed and zero_logits.
enum class InputSet { kRamp, kMixed, kZeroLogits };

Inputs MixedInputs(LossFamily family) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  auto uniform = [&](float high) {
    return [&unit, high](std::mt19937& rng) { return high * unit(rng); };
  };
  const bool logits = family == LossFamily::kBceWithLogits;
  return {Random(1,
                 [&](std::mt19937& rng) {
                   if (!logits) {
                     const float p = 1e-6f * std::pow(1e6f, unit(rng));
                     return unit(rng) < 0.5f ? p : 1.0f - p;
                   }
                   const float magnitude = 1e-6f * std::pow(1.2e8f, unit(rng));
                   return unit(rng) < 0.5f ? -magnitude : magnitude;
                 }),
          Random(2,
                 [&](std::mt19937& rng) {
                   const float t = unit(rng);
                   return unit(rng) < 1.0f / 3 ? std::round(t) : t;
                 }),
          Random(3, uniform(4.0f)), Random(4, uniform(8.0f)),
          Random(5, [&](std::mt19937& rng) { return 2.0f * unit(rng) - 1.0f; })};
}

// A family's tile on the best target, or its scalar definition.
using TileFunction = Partial (*)(LossKind kind, const ElementParameters& parameters,
                                 const TileInputs& inputs, int64_t count, const TileOutput& output,
                                 bool sum, const TileOutput& gradient);
TileFunction TileOf(LossFamily family, bool scalar) {
  if (family == LossFamily::kBceWithLogits) return scalar ? EvaluateTileScalar : EvaluateTile;
  return scalar ? EvaluateBinaryCrossEntropyTileScalar : EvaluateBinaryCrossEntropyTile;
}

template <bool kScalar>
void BM_Tile(benchmark::State& state, LossFamily family, LossKind kind, FloatType type,
             bool weighted, bool sum, InputSet set) {
  const Inputs in = set == InputSet::kMixed        ? MixedInputs(family)
                    : set == InputSet::kZeroLogits ? ZeroLogitInputs()
                                                   : RampInputs(type, family);
  const std::vector<uint16_t>&x = in.x, &t = in.t, &w = in.w, &p = in.p, &g = in.g;
  std::vector<uint16_t> out(x.size());
  TileInputs inputs;
  inputs.operand[kSelf] = {x.data(), type, false};
  inputs.operand[kTarget] = {t.data(), type, false};
  inputs.operand[kGradOutput] = {g.data(), type, false};
  if (weighted) {
    inputs.operand[kWeight] = {w.data(), type, false};
    if (family == LossFamily::kBceWithLogits) inputs.operand[kPosWeight] = {p.data(), type, false};
  }
  const TileOutput output{sum ? nullptr : out.data(), type};
  const TileFunction tile = TileOf(family, kScalar);
  for (auto _ : state) {
    const Partial total = tile(kind, ElementParameters{}, inputs, kCount, output, sum, {});
    benchmark::DoNotOptimize(total.sum);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kCount);
  state.SetLabel(kScalar ? "scalar" : EvaluateTileTarget());
}

void Register() {
  const struct {
    const char* name;
    LossFamily family;
    LossKind kind;
  } kinds[] = {
      {"loss", LossFamily::kBceWithLogits, LossKind::kLoss},
      {"grad_self", LossFamily::kBceWithLogits, LossKind::kGradSelf},
      {"grad_target", LossFamily::kBceWithLogits, LossKind::kGradTarget},
      {"binary_cross_entropy", LossFamily::kBinaryCrossEntropy, LossKind::kLoss},
      {"binary_cross_entropy_backward", LossFamily::kBinaryCrossEntropy, LossKind::kGradSelf}};
  const struct {
    const char* name;
    FloatType type;
  } types[] = {
      {"fp32", FloatType::kFloat32}, {"fp16", FloatType::kFloat16}, {"bf16", FloatType::kBFloat16}};
  for (const auto& kind : kinds) {
    for (const auto& type : types) {
      for (const bool weighted : {false, true}) {
        for (const bool sum : {false, true}) {
          for (const InputSet set : {InputSet::kRamp, InputSet::kMixed, InputSet::kZeroLogits}) {
            const bool fp32 = type.type == FloatType::kFloat32;
            if (set != InputSet::kRamp && !fp32) continue;
            if (set == InputSet::kZeroLogits &&
                (weighted || sum || kind.family != LossFamily::kBceWithLogits)) {
              continue;
            }
            const char* set_name = set == InputSet::kMixed        ? "/mixed"
                                   : set == InputSet::kZeroLogits ? "/zero_logits"
                                                                  : "/ramp";
            const std::string name = std::string("tile/") + kind.name + "/" + type.name +
                                     (weighted ? "/weights" : "/noweight") +
                                     (sum ? "/sum" : "/store") + set_name;
            benchmark::RegisterBenchmark(name.c_str(), BM_Tile<false>, kind.family, kind.kind,
                                         type.type, weighted, sum, set);
            if (fp32 && !weighted && set != InputSet::kZeroLogits) {
              benchmark::RegisterBenchmark((name + "/scalar").c_str(), BM_Tile<true>, kind.family,
                                           kind.kind, type.type, weighted, sum, set);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace openaclnn

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  openaclnn::Register();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
