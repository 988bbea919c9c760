// The SIMD tile evaluation of the loss (without a fused gradient), compiled once per Highway target
// and chosen at run time: a source file of its own, so that a profile names it and builds compile
// the kinds in parallel.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cstdint>

#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE \
  "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_loss_tile.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile_routing-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits.
Partial LossTile(const ElementParameters& parameters, const TileInputs& inputs, int64_t count,
                 const TileOutput& output, bool sum, TileStaging& staging) {
#if HWY_NATIVE_FMA
  return RunTile<LossKind::kLoss>(parameters, inputs, count, output, sum, staging);
#else  // no fused multiply-add on this target: the scalar code gives the defined bits
  (void)staging;
  return EvaluateTileScalar(LossKind::kLoss, parameters, inputs, count, output, sum);
#endif
}

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(LossTile);

Partial EvaluateLossTile(const ElementParameters& parameters, const TileInputs& inputs,
                         int64_t count, const TileOutput& output, bool sum, TileStaging& staging) {
  return HWY_DYNAMIC_DISPATCH(LossTile)(parameters, inputs, count, output, sum, staging);
}

}  // namespace openaclnn
#endif  // HWY_ONCE
