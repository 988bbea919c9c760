// The binary cross entropy family's SIMD tile (BinaryCrossEntropyEvaluator): the loss, stored
// and/or summed, and the self gradient, compiled once per Highway target and chosen at run time.
// Bitwise its scalar definition, EvaluateBinaryCrossEntropyTileScalar.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cstdint>

#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/tile_math.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_family.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "backends/cpu/simd/tile_loops-inl.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_evaluator-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The tile of kind kKind with the weight's absence known at compile time.
template <LossKind kKind>
Partial RunBinaryCrossEntropyTile(const ElementParameters& parameters, const TileInputs& inputs,
                                  int64_t count, const TileSinks& sinks, bool sum,
                                  TileStaging& staging) {
  const Targets targets{sinks.output.data != nullptr, sum && kKind == LossKind::kLoss,
                        sinks.output.type, sinks.gradient.type};
  if (inputs.operand[kWeight].data == nullptr) {
    return RunTileOf<BinaryCrossEntropyEvaluator<kKind, true>>(parameters, inputs, count, sinks,
                                                               targets, staging);
  }
  return RunTileOf<BinaryCrossEntropyEvaluator<kKind, false>>(parameters, inputs, count, sinks,
                                                              targets, staging);
}

#endif  // HWY_NATIVE_FMA

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits; elsewhere, and for what the family has no op of (a
// fused gradient, the target gradient), the scalar definition.
Partial BinaryCrossEntropyTile(LossKind kind, const ElementParameters& parameters,
                               const TileInputs& inputs, int64_t count, const TileOutput& output,
                               bool sum, const TileOutput& gradient, TileStaging& staging) {
#if HWY_NATIVE_FMA
  const TileSinks sinks{output, gradient};
  if (kind == LossKind::kLoss && gradient.data == nullptr) {
    return RunBinaryCrossEntropyTile<LossKind::kLoss>(parameters, inputs, count, sinks, sum,
                                                      staging);
  }
  if (kind == LossKind::kGradSelf) {
    return RunBinaryCrossEntropyTile<LossKind::kGradSelf>(parameters, inputs, count, sinks, sum,
                                                          staging);
  }
#endif
  (void)staging;
  return EvaluateBinaryCrossEntropyTileScalar(kind, parameters, inputs, count, output, sum,
                                              gradient);
}

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(BinaryCrossEntropyTile);

Partial EvaluateBinaryCrossEntropyTile(LossKind kind, const ElementParameters& parameters,
                                       const TileInputs& inputs, int64_t count,
                                       const TileOutput& output, bool sum,
                                       const TileOutput& gradient) {
  return HWY_DYNAMIC_DISPATCH(BinaryCrossEntropyTile)(kind, parameters, inputs, count, output, sum,
                                                      gradient, ThreadTileStaging());
}

}  // namespace openaclnn
#endif  // HWY_ONCE
