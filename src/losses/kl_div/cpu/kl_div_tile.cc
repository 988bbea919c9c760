// The KL divergence family's SIMD tile (KlDivEvaluator): the loss and both gradients, stored or
// summed, for probability and log targets, compiled once per Highway target and chosen at run
// time. Bitwise its scalar definition, EvaluateKlDivTileScalar.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cstdint>

#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/tile_math.h"
#include "losses/kl_div/cpu/kl_div_tile.h"
#include "losses/kl_div/kl_div_family.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "losses/kl_div/cpu/kl_div_tile.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "backends/cpu/simd/tile_loops-inl.h"
#include "losses/kl_div/cpu/kl_div_evaluator-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The tile of kind kKind with the variant known at compile time.
template <LossKind kKind>
Partial RunKlDivTile(const ElementParameters& parameters, const TileInputs& inputs, int64_t count,
                     const TileSinks& sinks, bool sum, TileStaging& staging) {
  const Targets targets{sinks.output.data != nullptr, sum, sinks.output.type, sinks.gradient.type};
  if (parameters.variant == kKlDivLogTarget) {
    return RunTileOf<KlDivEvaluator<kKind, kKlDivLogTarget>>(parameters, inputs, count, sinks,
                                                             targets, staging);
  }
  return RunTileOf<KlDivEvaluator<kKind, 0>>(parameters, inputs, count, sinks, targets, staging);
}

#endif  // HWY_NATIVE_FMA

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits; elsewhere, and for a fused gradient (the family has
// none), the scalar definition.
Partial KlDivTile(LossKind kind, const ElementParameters& parameters, const TileInputs& inputs,
                  int64_t count, const TileOutput& output, bool sum, const TileOutput& gradient,
                  TileStaging& staging) {
#if HWY_NATIVE_FMA
  const TileSinks sinks{output, gradient};
  if (gradient.data == nullptr) {
    switch (kind) {
      case LossKind::kLoss:
        return RunKlDivTile<LossKind::kLoss>(parameters, inputs, count, sinks, sum, staging);
      case LossKind::kGradSelf:
        return RunKlDivTile<LossKind::kGradSelf>(parameters, inputs, count, sinks, sum, staging);
      case LossKind::kGradTarget:
        return RunKlDivTile<LossKind::kGradTarget>(parameters, inputs, count, sinks, sum, staging);
    }
  }
#endif
  (void)staging;
  return EvaluateKlDivTileScalar(kind, parameters, inputs, count, output, sum, gradient);
}

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(KlDivTile);

Partial EvaluateKlDivTile(LossKind kind, const ElementParameters& parameters,
                          const TileInputs& inputs, int64_t count, const TileOutput& output,
                          bool sum, const TileOutput& gradient) {
  return HWY_DYNAMIC_DISPATCH(KlDivTile)(kind, parameters, inputs, count, output, sum, gradient,
                                         ThreadTileStaging());
}

}  // namespace openaclnn
#endif  // HWY_ONCE
