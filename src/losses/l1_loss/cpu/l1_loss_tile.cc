// The L1 family's SIMD tile (L1LossEvaluator), compiled once per Highway target and chosen at run
// time. Bitwise its scalar definition, EvaluateL1LossTileScalar.
#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include <cstdint>

#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/tile_math.h"
#include "losses/l1_loss/cpu/l1_loss_tile.h"
#include "losses/l1_loss/l1_loss_family.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "losses/l1_loss/cpu/l1_loss_tile.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "backends/cpu/simd/tile_loops-inl.h"
#include "losses/l1_loss/cpu/l1_loss_evaluator-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The evaluator of kKind, with fp64 parts or without, over a tile.
template <LossKind kKind, bool kWide>
Partial RunL1LossTile(const ElementParameters& parameters, const TileInputs& inputs, int64_t count,
                      const TileSinks& sinks, bool sum, TileStaging& staging) {
  const Targets targets{sinks.output.data != nullptr, sum && kKind == LossKind::kLoss,
                        sinks.output.type, sinks.gradient.type};
  return RunTileOf<L1LossEvaluator<kKind, kWide>>(parameters, inputs, count, sinks, targets,
                                                  staging);
}

// Whether a stored loss is |fl32(x - t)| rounded once to `type` (numerics-l1-loss.md §3): an fp32
// result, or a 16-bit one of inputs of that type (the values the loads give: an integer input is
// its promoted type's).
bool LossIn32(const TileInputs& inputs, FloatType type) {
  return type == FloatType::kFloat32 ||
         (inputs.operand[kSelf].type == type && inputs.operand[kTarget].type == type);
}

// Whether a gradient's quotient by D needs no test: D a power of two (an exact product), or at most
// the quotient's limit for `type`.
bool QuotientIn64(const ElementParameters& parameters, FloatType type) {
  const int64_t divisor = parameters.divisor;
  return (divisor & (divisor - 1)) == 0 || divisor <= QuotientDivisorLimit(type);
}

#endif  // HWY_NATIVE_FMA

// The paths without a rounding test, where Highway's MulAdd is one fused operation
// (HWY_NATIVE_FMA: a mean's terms take L1Loss64's fma): the loss summed, or stored without a
// divisor where L1Loss32 is its result; the gradient without a divisor in fp32 lanes, with one
// where its quotient needs no test. Everything else (a stored loss of other input types, a
// gradient whose divisor exceeds the quotient's limit, a fused gradient output) is the scalar
// definition's, which tests and takes the exact path where it must.
Partial L1LossTile(LossKind kind, const ElementParameters& parameters, const TileInputs& inputs,
                   int64_t count, const TileOutput& output, bool sum, const TileOutput& gradient,
                   TileStaging& staging) {
#if HWY_NATIVE_FMA
  const TileSinks sinks{output, gradient};
  const bool stored = output.data != nullptr;
  if (kind == LossKind::kLoss && gradient.data == nullptr &&
      (!stored || (parameters.divisor == 1 && LossIn32(inputs, output.type)))) {
    return sum ? RunL1LossTile<LossKind::kLoss, true>(parameters, inputs, count, sinks, sum,
                                                      staging)
               : RunL1LossTile<LossKind::kLoss, false>(parameters, inputs, count, sinks, sum,
                                                       staging);
  }
  if (kind == LossKind::kGradSelf && !sum && stored) {
    if (parameters.divisor == 1) {
      return RunL1LossTile<LossKind::kGradSelf, false>(parameters, inputs, count, sinks, sum,
                                                       staging);
    }
    if (QuotientIn64(parameters, output.type)) {
      return RunL1LossTile<LossKind::kGradSelf, true>(parameters, inputs, count, sinks, sum,
                                                      staging);
    }
  }
#endif
  (void)staging;
  return EvaluateL1LossTileScalar(kind, parameters, inputs, count, output, sum, gradient);
}

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(L1LossTile);

Partial EvaluateL1LossTile(LossKind kind, const ElementParameters& parameters,
                           const TileInputs& inputs, int64_t count, const TileOutput& output,
                           bool sum, const TileOutput& gradient) {
  return HWY_DYNAMIC_DISPATCH(L1LossTile)(kind, parameters, inputs, count, output, sum, gradient,
                                          ThreadTileStaging());
}

}  // namespace openaclnn
#endif  // HWY_ONCE
