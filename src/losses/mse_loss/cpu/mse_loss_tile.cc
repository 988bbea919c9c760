// The MSE family's SIMD tile: the loss, stored or summed, and the self gradient, compiled once per
// Highway target and chosen at run time; stored results of 16-bit inputs over a divisor of 1 in
// fp32 lanes (MseLossFp32Evaluator), every other in fp64 lanes (MseLossEvaluator). Bitwise its
// scalar definition, EvaluateMseLossTileScalar.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cstdint>

#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/tile_math.h"
#include "losses/mse_loss/cpu/mse_loss_tile.h"
#include "losses/mse_loss/mse_loss_family.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "losses/mse_loss/cpu/mse_loss_tile.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "backends/cpu/simd/tile_loops-inl.h"
#include "losses/mse_loss/cpu/mse_loss_evaluator-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// Whether every input `kind` reads is fp16 or bf16: their differences (and twice a 16-bit g) are
// then nearly always exact in fp32, where MseLossFp32Evaluator decides them.
bool NarrowInputs(LossKind kind, const TileInputs& inputs) {
  const auto narrow = [&](int which) { return inputs.operand[which].type != FloatType::kFloat32; };
  return narrow(kSelf) && narrow(kTarget) && (kind == LossKind::kLoss || narrow(kGradOutput));
}

// The tile of kind kKind: stored results of narrow inputs over a divisor of 1 in fp32 lanes, every
// other in fp64.
template <LossKind kKind>
Partial RunMseLossTile(const ElementParameters& parameters, const TileInputs& inputs, int64_t count,
                       const TileSinks& sinks, bool sum, TileStaging& staging) {
  const Targets targets{sinks.output.data != nullptr, sum && kKind == LossKind::kLoss,
                        sinks.output.type, sinks.gradient.type};
  if (targets.store_value && !targets.sum && parameters.divisor == 1 &&
      NarrowInputs(kKind, inputs)) {
    return RunTileOf<MseLossFp32Evaluator<kKind>>(parameters, inputs, count, sinks, targets,
                                                  staging);
  }
  return RunTileOf<MseLossEvaluator<kKind>>(parameters, inputs, count, sinks, targets, staging);
}

#endif  // HWY_NATIVE_FMA

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits; elsewhere, and for what the family has no op of (a
// fused gradient, the target gradient), the scalar definition.
Partial MseLossTile(LossKind kind, const ElementParameters& parameters, const TileInputs& inputs,
                    int64_t count, const TileOutput& output, bool sum, const TileOutput& gradient,
                    TileStaging& staging) {
#if HWY_NATIVE_FMA
  const TileSinks sinks{output, gradient};
  if (kind == LossKind::kLoss && gradient.data == nullptr) {
    return RunMseLossTile<LossKind::kLoss>(parameters, inputs, count, sinks, sum, staging);
  }
  if (kind == LossKind::kGradSelf) {
    return RunMseLossTile<LossKind::kGradSelf>(parameters, inputs, count, sinks, sum, staging);
  }
#endif
  (void)staging;
  return EvaluateMseLossTileScalar(kind, parameters, inputs, count, output, sum, gradient);
}

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(MseLossTile);

Partial EvaluateMseLossTile(LossKind kind, const ElementParameters& parameters,
                            const TileInputs& inputs, int64_t count, const TileOutput& output,
                            bool sum, const TileOutput& gradient) {
  return HWY_DYNAMIC_DISPATCH(MseLossTile)(kind, parameters, inputs, count, output, sum, gradient,
                                           ThreadTileStaging());
}

}  // namespace openaclnn
#endif  // HWY_ONCE
