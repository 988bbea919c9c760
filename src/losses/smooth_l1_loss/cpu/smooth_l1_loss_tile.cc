// The smooth L1 family's SIMD tile (SmoothL1Evaluator): the loss, stored and/or summed, and the
// self and target gradients, compiled once per Highway target and chosen at run time. Bitwise its
// scalar definition, EvaluateSmoothL1LossTileScalar.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cstdint>

#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/tile_math.h"
#include "losses/smooth_l1_loss/cpu/smooth_l1_loss_tile.h"
#include "losses/smooth_l1_loss/smooth_l1_loss_family.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "losses/smooth_l1_loss/cpu/smooth_l1_loss_tile.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "backends/cpu/simd/tile_loops-inl.h"
#include "losses/smooth_l1_loss/cpu/smooth_l1_loss_evaluator-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

template <LossKind kKind>
Partial RunSmoothL1LossTile(const ElementParameters& parameters, const TileInputs& inputs,
                            int64_t count, const TileSinks& sinks, bool sum, TileStaging& staging) {
  const Targets targets{sinks.output.data != nullptr, sum && kKind == LossKind::kLoss,
                        sinks.output.type, sinks.gradient.type};
  return RunTileOf<SmoothL1Evaluator<kKind>>(parameters, inputs, count, sinks, targets, staging);
}

#endif  // HWY_NATIVE_FMA

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits (the numerators' rests are fused multiply-adds);
// elsewhere, for a fused gradient and for Huber's tiny deltas, the scalar definition.
Partial SmoothL1LossTile(LossKind kind, const ElementParameters& parameters,
                         const TileInputs& inputs, int64_t count, const TileOutput& output,
                         bool sum, const TileOutput& gradient, TileStaging& staging) {
#if HWY_NATIVE_FMA
  const TileSinks sinks{output, gradient};
  if (gradient.data == nullptr && !InHuberTinyRange(parameters)) {
    switch (kind) {
      case LossKind::kLoss:
        return RunSmoothL1LossTile<LossKind::kLoss>(parameters, inputs, count, sinks, sum, staging);
      case LossKind::kGradSelf:
        return RunSmoothL1LossTile<LossKind::kGradSelf>(parameters, inputs, count, sinks, sum,
                                                        staging);
      case LossKind::kGradTarget:
        return RunSmoothL1LossTile<LossKind::kGradTarget>(parameters, inputs, count, sinks, sum,
                                                          staging);
    }
  }
#endif
  (void)staging;
  return EvaluateSmoothL1LossTileScalar(kind, parameters, inputs, count, output, sum, gradient);
}

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(SmoothL1LossTile);

Partial EvaluateSmoothL1LossTile(LossKind kind, const ElementParameters& parameters,
                                 const TileInputs& inputs, int64_t count, const TileOutput& output,
                                 bool sum, const TileOutput& gradient) {
  return HWY_DYNAMIC_DISPATCH(SmoothL1LossTile)(kind, parameters, inputs, count, output, sum,
                                                gradient, ThreadTileStaging());
}

}  // namespace openaclnn
#endif  // HWY_ONCE
