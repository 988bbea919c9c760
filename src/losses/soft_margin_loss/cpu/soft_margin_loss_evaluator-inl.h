// The soft margin family's evaluator (aclnnSoftMarginLoss and its Backward): the family's fp64
// estimates (losses/soft_margin_loss/soft_margin_loss_formulas.inc) on the fp64 halves of float
// vectors, each result settled by the bit test at the family's reach where every input is
// finite (else, and where the bit test leaves a step open, by its error interval), its rare open
// lanes by the family's scalar Element. Re-included once per Highway target (the toggle guard
// below); defines its code inside namespace openaclnn::HWY_NAMESPACE, for targets with a native
// fused multiply-add only. The transcendentals stay in fp64: fp32 ones are not proven for the
// 48-bit products z = x t.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_LOSSES_SOFT_MARGIN_LOSS_CPU_EVALUATOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_SOFT_MARGIN_LOSS_CPU_EVALUATOR_INL_H_
#undef OPENACLNN_LOSSES_SOFT_MARGIN_LOSS_CPU_EVALUATOR_INL_H_
#else
#define OPENACLNN_LOSSES_SOFT_MARGIN_LOSS_CPU_EVALUATOR_INL_H_
#endif

#include "backends/cpu/simd/evaluator_base-inl.h"
#include "backends/cpu/simd/fp64_rounding-inl.h"
#include "backends/cpu/simd/vector_ops-inl.h"
#include "hwy/highway.h"
#include "losses/soft_margin_loss/soft_margin_loss_family.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The family's formulas, compiled for this target (see transcendentals.inc); they name the
// element math above (ExpNeg64, Log1pExpNeg64, Reciprocal1pSplit, Estimate64, FiniteZero).
#include "losses/soft_margin_loss/soft_margin_loss_formulas.inc"

// The reach of both kinds' estimates, in fp64 ulps of the value (of its magnitude for the
// gradient): their bound, kSoftMarginError64 of it wherever the result is in a type's normal
// range, which the bit tests require (a bound set by kSoftMarginFloor belongs to values below
// 2^-300: the loss for z > 415.9, the gradient for z > 386). Beside fp16's subnormal grid, tested
// as v + 2^-14, it holds too: the bound is below 2^9 ulps of the sum there, its rounding half one.
inline constexpr uint64_t kSoftMarginReach = uint64_t{1} << 10;
static_assert(static_cast<double>(kSoftMarginReach) * 0x1p-53 == math::kSoftMarginError64,
              "the reach is 2^53 times the family's relative bound");
// The reach of the 16-bit bit test (SettledOnGrid16), which rounds a settled value to fp32 before
// its grid: that first rounding moves it by up to half an fp32 ulp, 2^28 fp64 ulps, so a value
// within that of a 16-bit tie (a loss -z + e^z a hair above one: z = x t of two 16-bit values is
// often a tie) would land on the tie and round to even. Beyond 2^28 plus the bound's reach, neither
// the exact value nor the fp32 rounding reaches a boundary. It leaves open about 2^-13 of random
// fp16 lanes and 2^-16 of bf16 ones, which the interval test then settles.
inline constexpr uint64_t kSoftMargin16BitReach = (uint64_t{1} << 28) + kSoftMarginReach;

// A kind's evaluator of kStep float vectors at once: kLoss (stored or summed) or kGradSelf, on
// operands staged as contiguous fp32 (Source). The family has no weights: they are neither
// staged nor loaded.
template <LossKind kKind>
struct SoftMarginEvaluator
    : StepsByCompute<SoftMarginEvaluator<kKind>,
                     EvaluatorBase<SoftMarginLossFamily, kKind, false, true, Source,
                                   WithoutPosWeight(OperandsReadBy(kKind, false, true))>> {
  using Base = EvaluatorBase<SoftMarginLossFamily, kKind, false, true, Source,
                             WithoutPosWeight(OperandsReadBy(kKind, false, true))>;
  using SourceT = Source;
  using Base::targets;
  static constexpr SharedType kStoredAs = SharedType::kMixed;
  static constexpr bool kSumsIn32 = false;

  // The step's results: each settled in its output type (Round); a mean's or sum's terms, not
  // divided, as the family's Term adds them (the reference where an input is not finite).
  template <size_t kStep>
  void Compute(const Operands<kStep, true>& in, int64_t i, StepResults<kStep>& results) const {
    using O64 = WideOps64<2 * kStep>;
    const Fp64Rounding<Base> rounding{*this};
    if constexpr (kKind == LossKind::kLoss) {
      if (targets.sum) {
        const auto term = SoftMarginLoss64<O64>(in.x64, in.t64, O64::Set(1.0));
        results.sum = rounding.template SumTerms<kStep>(term, i, &results.bound);
      }
      if (targets.store_value) {
        const auto loss = SoftMarginLoss64<O64>(in.x64, in.t64, O64::Set(this->scale64));
        results.value = Round<kStep, false>(rounding, loss, i);
      }
    } else {
      const auto gradient =
          SoftMarginGradSelf64<O64>(in.x64, in.t64, in.g64, O64::Set(this->scale64));
      results.value = Round<kStep, true>(rounding, gradient, i);
    }
  }

  // The step's estimates rounded to the output type. Every input finite (every bound finite):
  // the bit tests (fp32 at kSoftMarginReach, 16-bit types at kSoftMargin16BitReach), of the value
  // (kSigned: of its magnitude, the gradient's), whose open steps take the interval test; else
  // the interval test of the family's estimate, whose NaN bounds leave those lanes to Element.
  template <size_t kStep, bool kSigned>
  HWY_INLINE Vectors<kStep> Round(const Fp64Rounding<Base>& rounding,
                                  const Estimate64<WideOps64<2 * kStep>>& estimate,
                                  int64_t i) const {
    const LossKind kind = kKind;
    const FloatType type = targets.value_type;
    if (HWY_UNLIKELY(!FiniteBounds(estimate.bound))) {
      return rounding.template Settle<kStep>(estimate, i, kind, type, nullptr);
    }
    if (type == FloatType::kFloat32) {
      return rounding.template SettleRelative<kStep, kSoftMarginReach, kSigned>(estimate.value, i,
                                                                                kind);
    }
    return rounding.template SettleRelative16<kStep, kSoftMargin16BitReach, kSigned>(
        estimate.value, i, type, nullptr, [&] { return estimate; }, kind);
  }

  template <size_t kParts>
  static bool FiniteBounds(const Wide64<kParts>& bound) {
    auto lanes = hn::IsFinite(bound.part[0]);
    for (size_t k = 1; k < kParts; ++k) lanes = hn::And(lanes, hn::IsFinite(bound.part[k]));
    return hn::AllTrue(D64(), lanes);
  }
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_SOFT_MARGIN_LOSS_CPU_EVALUATOR_INL_H_
