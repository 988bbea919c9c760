// The L1 family's evaluator (aclnnL1Loss and its Backward): the paths of numerics-l1-loss.md §3
// that need no rounding test, in lanes. The loss without a divisor in fp32 lanes (L1Loss32: fp32
// results, and 16-bit results of inputs of that type); a mean's or sum's terms in fp64 lanes as
// the family's Term forms them (L1Loss64, unscaled); the gradient's exact numerator in fp32 lanes
// (L1GradientNumerator), as the result without a divisor, else divided in fp64 lanes (an exact
// product by a power of two's reciprocal, or fl64(n / D) up to the quotient's limit) and rounded
// once as RoundedTo does. The tile routes everything else to the scalar definition
// (l1_loss_tile.cc). Re-included once per Highway target (the toggle guard below); defines its
// code inside namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add
// only.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_LOSSES_L1_LOSS_CPU_EVALUATOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_L1_LOSS_CPU_EVALUATOR_INL_H_
#undef OPENACLNN_LOSSES_L1_LOSS_CPU_EVALUATOR_INL_H_
#else
#define OPENACLNN_LOSSES_L1_LOSS_CPU_EVALUATOR_INL_H_
#endif

#include "backends/cpu/simd/evaluator_base-inl.h"
#include "backends/cpu/simd/vector_ops-inl.h"
#include "hwy/highway.h"
#include "kernels/rounded_element.h"
#include "losses/l1_loss/l1_loss_family.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The family's formulas, compiled for this target (see transcendentals.inc); they name the
// element math above (Estimate64, FiniteZero).
#include "losses/l1_loss/l1_loss_formulas.inc"

// v, with every NaN the canonical one (RoundedTo's: dtype.h, CanonicalNaN).
inline V CanonicalNaNs(V v) {
  return hn::IfThenElse(hn::IsNaN(v), hn::Set(D(), static_cast<float>(kCanonicalNaN)), v);
}

// A kind's evaluator of kStep float vectors at once, its operands read in place whatever their
// float type (NarrowSource). kWide: with the operands' fp64 parts, for a loss's terms or a
// gradient's division; without, the fp32 lanes alone (a loss stored without a divisor, a gradient
// without a divisor).
template <LossKind kKind, bool kWide>
struct L1LossEvaluator
    : StepsByCompute<
          L1LossEvaluator<kKind, kWide>,
          EvaluatorBase<L1LossFamily, kKind, false, true, NarrowSource<SharedType::kMixed>,
                        WithoutPosWeight(OperandsReadBy(kKind, false, true))>,
          kWide> {
  using Base = EvaluatorBase<L1LossFamily, kKind, false, true, NarrowSource<SharedType::kMixed>,
                             WithoutPosWeight(OperandsReadBy(kKind, false, true))>;
  using SourceT = NarrowSource<SharedType::kMixed>;
  using Base::targets;
  static constexpr SharedType kStoredAs = SharedType::kMixed;
  static constexpr bool kSumsIn32 = false;

  template <size_t kStep>
  void Compute(const Operands<kStep, kWide>& in, int64_t /*i*/, StepResults<kStep>& results) const {
    using O32 = HwyOpsOf<D>;
    if constexpr (kKind == LossKind::kLoss) {
      // Stored only without a divisor (reduction none): |fl32(x - t)|, no test.
      for (size_t j = 0; j < kStep && targets.store_value; ++j) {
        results.value[j] = CanonicalNaNs(L1Loss32<O32>(in.x[j], in.t[j]));
      }
      if constexpr (kWide) {
        if (targets.sum) {  // Term: the unscaled estimate and its bound, kL1Error64 of it
          using O64 = WideOps64<2 * kStep>;
          const Estimate64<O64> term = L1Loss64<O64>(in.x64, in.t64, O64::Set(1.0));
          results.sum = term.value;
          results.bound = term.bound;
        }
      }
    } else {
      Vectors<kStep> numerator;
      for (size_t j = 0; j < kStep; ++j) {
        numerator[j] = L1GradientNumerator<O32>(in.x[j], in.t[j], in.g[j]);
      }
      if constexpr (!kWide) {  // no divisor: the exact numerator, rounded once where stored
        for (size_t j = 0; j < kStep; ++j) results.value[j] = CanonicalNaNs(numerator[j]);
      } else {
        StoreQuotients<kStep>(numerator, results);
      }
    }
  }

  // numerator / D rounded once to the output type as RoundedTo rounds its double: the exact
  // product by 1/D where D is a power of two, else fl64(numerator / D), which the tile takes only
  // up to QuotientDivisorLimit (one rounding whose rounding to the type is correct, no test).
  template <size_t kStep>
  void StoreQuotients(const Vectors<kStep>& numerator, StepResults<kStep>& results) const {
    using O64 = WideOps64<2 * kStep>;
    const Wide64<2 * kStep> wide = Widen(numerator);
    Wide64<2 * kStep> quotient =
        this->scale_is_exact ? wide * O64::Set(this->scale64)
                             : wide / O64::Set(static_cast<double>(this->parameters.divisor));
    if (targets.value_type != FloatType::kFloat32) {  // onto the 16-bit grid, then exact in fp32
      const Grid grid = GridOf(targets.value_type);
      quotient = O64::RoundToGrid(quotient, grid.precision, grid.min_exponent);
    }
    for (size_t j = 0; j < kStep; ++j) results.value[j] = CanonicalNaNs(Narrow(quotient, j));
  }
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_L1_LOSS_CPU_EVALUATOR_INL_H_
