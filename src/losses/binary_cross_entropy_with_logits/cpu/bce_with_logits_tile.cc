// EvaluateTile: the family's SIMD tile, one source file per kind (bce_with_logits_*_tile.cc: the
// element math's and the family's formulas instantiated with a Highway vector policy, compiled
// once per target and chosen at run time), chosen here by kind; and SettlesLossBits, the loss's
// bit test for the tests, on the target the tiles run.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cstdint>

#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/tile_math.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_error_budget.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "backends/cpu/simd/rounding_bits-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits.
#if HWY_NATIVE_FMA
void SettlesLossBitsImpl(FloatType type, LossBitTest test, const double* values, int64_t count,
                         bool* settled, float* rounded) {
  // One value at a time, in every lane: the tests decide whole vectors.
  for (int64_t i = 0; i < count; ++i) {
    const V64 value = hn::Set(D64(), values[i]);
    V result;
    if (test != LossBitTest::kFp64) {  // fp32 values, 16-bit types: Loss16InFp32's test
      const V value32 = hn::Set(D(), static_cast<float>(values[i]));
      const Grid grid = GridOf(type);
      const bool fp16 = type == FloatType::kFloat16;
      result = HwyOpsOf<D>::RoundToGrid(value32, grid.precision, grid.min_exponent);
      settled[i] = hn::AllTrue(
          D(), test == LossBitTest::kFp32Unweighted
                   ? FarFrom16Boundaries32<math::kLoss32Reach32>(value32, fp16)
                   : FarFrom16Boundaries32<math::kWeightedLoss32Reach32>(value32, fp16));
    } else if (type == FloatType::kFloat32) {
      result = Narrow(value, value);
      settled[i] = hn::AllTrue(D64(), FarFromBoundaries<24, math::kLossReach>(value)) &&
                   hn::AllTrue(D(), InNormalRange(result, kFp32LeastNormalBits, kFp32InfinityBits));
    } else {
      settled[i] =
          SettledOnGrid16(value, value, type, FarFrom16Boundaries<math::kLoss32Reach>, &result);
    }
    rounded[i] = hn::GetLane(result);
  }
}

#else  // no fused multiply-add on this target: the scalar code gives the defined bits

void SettlesLossBitsImpl(FloatType /*type*/, LossBitTest /*test*/, const double* /*values*/,
                         int64_t count, bool* settled, float* rounded) {
  for (int64_t i = 0; i < count; ++i) {  // no SIMD evaluator, no bit test
    settled[i] = false;
    rounded[i] = 0.0f;
  }
}

#endif

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(SettlesLossBitsImpl);

Partial EvaluateTile(LossKind kind, const ElementParameters& parameters, const TileInputs& inputs,
                     int64_t count, const TileOutput& output, bool sum,
                     const TileOutput& gradient) {
  TileStaging& staging = ThreadTileStaging();
  switch (kind) {
    case LossKind::kLoss:
      if (gradient.data != nullptr) {
        return EvaluateLossAndGradSelfTile(parameters, inputs, count, output, sum, gradient,
                                           staging);
      }
      return EvaluateLossTile(parameters, inputs, count, output, sum, staging);
    case LossKind::kGradSelf:
      return EvaluateGradSelfTile(parameters, inputs, count, output, staging);
    default:
      return EvaluateGradTargetTile(parameters, inputs, count, output, staging);
  }
}

void SettlesLossBits(FloatType type, const double* values, int64_t count, bool* settled,
                     float* rounded, LossBitTest test) {
  HWY_DYNAMIC_DISPATCH(SettlesLossBitsImpl)(type, test, values, count, settled, rounded);
}

}  // namespace openaclnn
#endif  // HWY_ONCE
