// The soft margin family's SIMD tile (SoftMarginEvaluator): the loss, stored or summed, and the
// self gradient, compiled once per Highway target and chosen at run time. Bitwise its scalar
// definition, EvaluateSoftMarginTileScalar.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cstdint>

#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/tile_math.h"
#include "losses/soft_margin_loss/cpu/soft_margin_loss_tile.h"
#include "losses/soft_margin_loss/soft_margin_loss_family.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "losses/soft_margin_loss/cpu/soft_margin_loss_tile.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "backends/cpu/simd/tile_loops-inl.h"
#include "losses/soft_margin_loss/cpu/soft_margin_loss_evaluator-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits; elsewhere, and for what the family has no op of (a
// fused gradient, the target gradient), the scalar definition.
Partial SoftMarginTile(LossKind kind, const ElementParameters& parameters, const TileInputs& inputs,
                       int64_t count, const TileOutput& output, bool sum,
                       const TileOutput& gradient, TileStaging& staging) {
#if HWY_NATIVE_FMA
  const TileSinks sinks{output, gradient};
  const Targets targets{output.data != nullptr, sum && kind == LossKind::kLoss, output.type,
                        gradient.type};
  if (kind == LossKind::kLoss && gradient.data == nullptr) {
    return RunTileOf<SoftMarginEvaluator<LossKind::kLoss>>(parameters, inputs, count, sinks,
                                                           targets, staging);
  }
  if (kind == LossKind::kGradSelf) {
    return RunTileOf<SoftMarginEvaluator<LossKind::kGradSelf>>(parameters, inputs, count, sinks,
                                                               targets, staging);
  }
#endif
  (void)staging;
  return EvaluateSoftMarginTileScalar(kind, parameters, inputs, count, output, sum, gradient);
}

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(SoftMarginTile);

Partial EvaluateSoftMarginTile(LossKind kind, const ElementParameters& parameters,
                               const TileInputs& inputs, int64_t count, const TileOutput& output,
                               bool sum, const TileOutput& gradient) {
  return HWY_DYNAMIC_DISPATCH(SoftMarginTile)(kind, parameters, inputs, count, output, sum,
                                              gradient, ThreadTileStaging());
}

}  // namespace openaclnn
#endif  // HWY_ONCE
