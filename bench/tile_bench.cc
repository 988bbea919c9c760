// The element kernel alone (EvaluateTile over one reduction block held in L1/L2), without the
// op's phase 1, stream hand-off or memory traffic: the compute ceiling of the fused pass, for
// comparing kernel changes. Also the scalar definition, for the SIMD speed-up.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "kernels/cpu/tile_math.h"

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

template <bool kScalar>
void BM_Tile(benchmark::State& state, LossKind kind, FloatType type, bool weighted, bool sum) {
  const std::vector<uint16_t> x = Ramp(type, -8.0f, 8.0f), t = Ramp(type, 0.0f, 1.0f),
                              w = Ramp(type, 0.0f, 2.0f), g = Ramp(type, -1.0f, 1.0f);
  std::vector<uint16_t> out(x.size());
  TileInputs inputs;
  inputs.operand[kSelf] = {x.data(), type, false};
  inputs.operand[kTarget] = {t.data(), type, false};
  inputs.operand[kGradOutput] = {g.data(), type, false};
  if (weighted) inputs.operand[kWeight] = {w.data(), type, false};
  const TileOutput output{sum ? nullptr : out.data(), type};
  for (auto _ : state) {
    const double total = kScalar ? EvaluateTileScalar(kind, 1.0, inputs, kCount, output, sum)
                                 : EvaluateTile(kind, 1.0, inputs, kCount, output, sum);
    benchmark::DoNotOptimize(total);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kCount);
  state.SetLabel(kScalar ? "scalar" : EvaluateTileTarget());
}

void Register() {
  const struct {
    const char* name;
    LossKind kind;
  } kinds[] = {{"loss", LossKind::kLoss},
               {"grad_self", LossKind::kGradSelf},
               {"grad_target", LossKind::kGradTarget}};
  const struct {
    const char* name;
    FloatType type;
  } types[] = {
      {"fp32", FloatType::kFloat32}, {"fp16", FloatType::kFloat16}, {"bf16", FloatType::kBFloat16}};
  for (const auto& kind : kinds) {
    for (const auto& type : types) {
      for (const bool weighted : {false, true}) {
        for (const bool sum : {false, true}) {
          const std::string name = std::string("tile/") + kind.name + "/" + type.name +
                                   (weighted ? "/weight" : "/noweight") + (sum ? "/sum" : "/store");
          benchmark::RegisterBenchmark(name.c_str(), BM_Tile<false>, kind.kind, type.type, weighted,
                                       sum);
          if (type.type == FloatType::kFloat32 && !weighted) {
            benchmark::RegisterBenchmark((name + "/scalar").c_str(), BM_Tile<true>, kind.kind,
                                         type.type, weighted, sum);
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
