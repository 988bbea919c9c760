// The SIMD tile evaluation of the fused pass (the loss and the gradient with respect to self),
// compiled once per Highway target and chosen at run time: a source file of its own, so that a
// profile names it and builds compile the kinds in parallel.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cstdint>

#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE \
  "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_loss_and_grad_self_tile.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile_routing-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits.
Partial LossAndGradSelfTile(const ElementParameters& parameters, const TileInputs& inputs,
                            int64_t count, const TileOutput& output, bool sum,
                            const TileOutput& gradient, TileStaging& staging) {
#if HWY_NATIVE_FMA
  return RunTile<LossKind::kLoss, true>(parameters, inputs, count, output, sum, staging, gradient);
#else  // no fused multiply-add on this target: the scalar code gives the defined bits
  (void)staging;
  return EvaluateTileScalar(LossKind::kLoss, parameters, inputs, count, output, sum, gradient);
#endif
}

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(LossAndGradSelfTile);

Partial EvaluateLossAndGradSelfTile(const ElementParameters& parameters, const TileInputs& inputs,
                                    int64_t count, const TileOutput& output, bool sum,
                                    const TileOutput& gradient, TileStaging& staging) {
  return HWY_DYNAMIC_DISPATCH(LossAndGradSelfTile)(parameters, inputs, count, output, sum, gradient,
                                                   staging);
}

}  // namespace openaclnn
#endif  // HWY_ONCE
