// Which evaluator a tile takes, by kind, weights, types and reduction: the one place that decides
// it.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstdint>
#include <type_traits>

#if defined(OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_TILE_ROUTING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_TILE_ROUTING_INL_H_
#undef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_TILE_ROUTING_INL_H_
#else
#define OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_TILE_ROUTING_INL_H_
#endif

#include "backends/cpu/simd/tile_loops-inl.h"
#include "hwy/highway.h"
#include "kernels/loss_problem.h"
#include "kernels/reduction.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_fp32_lane_evaluator-inl.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_fp64_evaluator-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

inline bool Is16Bit(FloatType type) { return type != FloatType::kFloat32; }

// The type every operand the kind reads and every output it stores lies in memory as, where they
// share one: each read operand contiguous, none splat or absent (those are staged in fp32).
inline SharedType SharedTypeOf(OperandsRead reads, bool fused, const TileInputs& inputs,
                               const TileSinks& sinks, const Targets& targets) {
  const FloatType type = inputs.operand[kSelf].StoredAs();
  for (int which = kSelf; which < kOut; ++which) {
    if (!reads.Of(which)) continue;
    const TileOperand& operand = inputs.operand[which];
    if (operand.data == nullptr || operand.splat || operand.StoredAs() != type) {
      return SharedType::kMixed;
    }
  }
  if (targets.store_value && sinks.output.StoredAs() != type) return SharedType::kMixed;
  if (fused && sinks.gradient.StoredAs() != type) return SharedType::kMixed;
  return type == FloatType::kFloat16    ? SharedType::kFloat16
         : type == FloatType::kBFloat16 ? SharedType::kBFloat16
                                        : SharedType::kFloat32;
}

// The evaluator of a tile. x: the logits' type, out: the output's, grad: the fused gradient's
// (16: fp16 or bf16):
//   the loss summed (mean/sum), SumsFp32Terms (x, out, grad 16)  fp32 lanes: fp32 terms
//                                                                (BceLossTerm32)
//   the loss summed, otherwise                                   fp64: fp64 terms
//   stored, x, out, grad 16 (not the target gradient without    fp32 lanes: the kind's kernel; the
//   weights)                                                     fused pass that stores the loss,
//                                                                the fp64 formulas on fp32
//                                                                transcendentals
//   the target gradient without weights, stored, N = 2^k,        fp32 lanes: exact products
//   out fp32, or x, gradOutput and out 16                        (ExactGradTargetInFp32)
//   anything else                                                fp64
// Stored 16-bit results of 16-bit logits take fp32 lanes with a rounding test per lane: the fp32
// transcendentals' errors are measured over every 16-bit |x| (bce_with_logits_error_budget.h:
// kExpError32, kLog1pExpError32). The exact target gradient to a 16-bit result needs 16-bit
// gradOutput too, whose product with x fp32 holds exactly (an fp32 one would be rounded twice);
// otherwise the fp64 path rounds it once from fp64, or by the interval test. The fp32-lane
// evaluator is instantiated per SharedType (f16, bf16; fp32 only for the exact target gradient):
// its loads and stores then have no branch on types.
template <LossKind kKind, bool kFused, bool kUnweighted>
Partial RouteTile(const ElementParameters& parameters, const TileInputs& inputs, int64_t count,
                  const TileSinks& sinks, bool sum, TileStaging& staging) {
  const Targets targets{sinks.output.data != nullptr, sum && kKind == LossKind::kLoss,
                        sinks.output.type, sinks.gradient.type};
  const bool x16 = Is16Bit(inputs.operand[kSelf].type);
  const bool sum32 = BceWithLogitsFamily::SumsFp32Terms(
      inputs.operand[kSelf].type, targets.value_type, kFused, targets.gradient_type);
  constexpr bool kExactTarget = kKind == LossKind::kGradTarget && kUnweighted;
  const bool exact_target =
      kExactTarget && targets.store_value && ScaleIsExact(parameters) &&
      (targets.value_type == FloatType::kFloat32 ||
       (x16 && Is16Bit(targets.value_type) && Is16Bit(inputs.operand[kGradOutput].type)));
  const bool store32 = !kExactTarget && targets.store_value && x16 && Is16Bit(targets.value_type) &&
                       (!kFused || Is16Bit(targets.gradient_type));
  const bool in_fp32_lanes = targets.sum ? sum32 : store32 || exact_target;
  if (in_fp32_lanes) {
    const auto run = [&](auto shared) {
      return RunTileOf<Fp32LaneEvaluator<kKind, kFused, kUnweighted, decltype(shared)::value>>(
          parameters, inputs, count, sinks, targets, staging);
    };
    using enum SharedType;
    constexpr OperandsRead kReads = OperandsReadBy(kKind, kFused, kUnweighted);
    switch (SharedTypeOf(kReads, kFused, inputs, sinks, targets)) {
      case kFloat16:
        return run(std::integral_constant<SharedType, kFloat16>{});
      case kBFloat16:
        return run(std::integral_constant<SharedType, kBFloat16>{});
      case kFloat32:  // only the exact target gradient takes fp32 lanes with fp32 logits
        if constexpr (kExactTarget) return run(std::integral_constant<SharedType, kFloat32>{});
        [[fallthrough]];
      default:
        return run(std::integral_constant<SharedType, kMixed>{});
    }
  }
  return RunTileOf<Fp64Evaluator<kKind, kFused, kUnweighted>>(parameters, inputs, count, sinks,
                                                              targets, staging);
}

// RouteTile with the weights' absence known at compile time.
template <LossKind kKind, bool kFused = false>
Partial RunTile(const ElementParameters& parameters, const TileInputs& inputs, int64_t count,
                const TileOutput& output, bool sum, TileStaging& staging,
                const TileOutput& gradient = {}) {
  const TileSinks sinks{output, gradient};
  const bool unweighted =
      inputs.operand[kWeight].data == nullptr && inputs.operand[kPosWeight].data == nullptr;
  return unweighted
             ? RouteTile<kKind, kFused, true>(parameters, inputs, count, sinks, sum, staging)
             : RouteTile<kKind, kFused, false>(parameters, inputs, count, sinks, sum, staging);
}

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_TILE_ROUTING_INL_H_
