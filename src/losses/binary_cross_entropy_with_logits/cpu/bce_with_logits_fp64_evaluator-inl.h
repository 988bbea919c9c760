// The fp64 evaluator: math.h's correctly rounded formulas on the fp64 halves of float vectors,
// each result settled by its error interval (or a bit test), its rare open lanes by BceElement.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP64_EVALUATOR_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP64_EVALUATOR_INL_H_
#undef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP64_EVALUATOR_INL_H_
#else
#define OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP64_EVALUATOR_INL_H_
#endif

#include "backends/cpu/simd/evaluator_base-inl.h"
#include "backends/cpu/simd/fp64_rounding-inl.h"
#include "hwy/highway.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_formulas-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// exp(-|x|) of a step, and from the split of 1 + exp(-|x|) log1p and 1/(1 + exp(-|x|)) where
// asked for, as fp64 parts; and the relative errors the fp64 formulas take them with.
template <size_t kStep>
struct Transcendentals {
  Transcendentals() {}
  Wide64<2 * kStep> e, log_term, reciprocal;
};
// By the fp64 formulas.
struct Fp64Transcendentals {
  static constexpr bool kFp32 = false;
  static constexpr double kLogError = math::kEstimateError64;
  static constexpr double kSigmoidError = math::kEstimateError64;
  template <size_t kStep>
  static Transcendentals<kStep> Of(const Operands<kStep, true>& in, bool log, bool reciprocal) {
    Transcendentals<kStep> result;
    using O64 = WideOps64<2 * kStep>;
    result.e = ExpNeg64<O64>(O64::Abs(in.x64));
    const UnitSplit<O64> split = SplitUnit<O64>(result.e);
    if (log) result.log_term = Log1pSplit<O64>(split);
    if (reciprocal) result.reciprocal = Reciprocal1pSplit<O64>(split);
    return result;
  }
};
// exp and log1p by the fp32 formulas on whole float vectors (ExpNeg32, Log1pSplit32), widened, and
// the reciprocal in fp64 from the widened e; the fp64 formulas take them with their errors
// (bce_with_logits_error_budget.h: kLossError32, kSelfGradientError32).
struct Fp32Transcendentals {
  static constexpr bool kFp32 = true;
  static constexpr double kLogError = math::kLossError32;
  static constexpr double kSigmoidError = math::kSelfGradientError32;
  template <size_t kStep>
  static Transcendentals<kStep> Of(const Operands<kStep, true>& in, bool log, bool reciprocal) {
    Transcendentals<kStep> result;
    using O32 = HwyOpsOf<D>;
    Vectors<kStep> e, log_term;
    for (size_t j = 0; j < kStep; ++j) {
      e[j] = ExpNeg32<O32>(hn::Abs(in.x[j]));
      if (log) log_term[j] = Log1pSplit32<O32>(SplitUnit32<O32>(e[j]));
    }
    result.e = Widen(e);
    if (log) result.log_term = Widen(log_term);
    if (reciprocal) {
      using O64 = WideOps64<2 * kStep>;
      result.reciprocal = Reciprocal1pSplit<O64>(SplitUnit<O64>(result.e));
    }
    return result;
  }
};

// A step of kStep float vectors by the fp64 formulas on their fp64 halves side by side, over an
// evaluator's operands and targets (`eval`): each result settled in its output type where its
// estimate allows; every other lane (rarely any: near a rounding boundary, or an input that is not
// finite) goes out of line to the one scalar element function, BceElement. On Fp32Transcendentals
// (the fused 16-bit pass where it stores the loss) the loss takes the 16-bit bit test, and the sums
// are the caller's (SumTerms32).
template <LossKind kKind, bool kFused, bool kUnweighted, class SourceT, class TranscendentalPolicy>
struct Fp64Formulas
    : Fp64Rounding<EvaluatorBase<BceWithLogitsFamily, kKind, kFused, kUnweighted, SourceT>> {
  using Eval = EvaluatorBase<BceWithLogitsFamily, kKind, kFused, kUnweighted, SourceT>;
  using Fp64Rounding<Eval>::eval;
  static constexpr bool kOnFp32 = TranscendentalPolicy::kFp32;
  static constexpr double kLogError = TranscendentalPolicy::kLogError;
  static constexpr double kSigmoidError = TranscendentalPolicy::kSigmoidError;

  // The fp64 formulas' results of the step.
  template <size_t kStep>
  void Compute(const Operands<kStep, true>& in, int64_t i, StepResults<kStep>& results,
               bool* open) const {
    using O64 = WideOps64<2 * kStep>;
    const auto &x64 = in.x64, &w64 = in.w64, &p64 = in.p64;
    // The scale is broadcast where it is used, not held across exp and log1p (a register less
    // on their chains: held, GCC spilled a polynomial term of exp in the fused weighted mean).
    if constexpr (kKind == LossKind::kGradTarget) {
      const auto scale = O64::Set(eval.scale64);
      // Where every p is 1 (no pos_weight) the log term's coefficient is 0: skip computing it.
      auto log_term = O64::Set(0.0);
      bool every_p_is_one = true;
      for (size_t j = 0; j < kStep; ++j) {
        every_p_is_one = every_p_is_one && hn::AllTrue(D(), hn::Eq(in.p[j], hn::Set(D(), 1.0f)));
      }
      if (!every_p_is_one) log_term = TranscendentalPolicy::Of(in, true, false).log_term;
      const auto estimate = GradTarget64<O64>(x64, w64, p64, in.g64, scale, log_term, kLogError);
      if (kUnweighted && eval.scale_is_exact && this->NonZeroFinite(estimate.value)) {
        // -x*g*scale: a product of two fp32 values, times 1/N = 2^-k, is the exact quotient.
        results.value = this->template RoundExact<kStep>(estimate.value, eval.targets.value_type);
      } else {
        results.value = this->template Settle<kStep>(estimate, i, LossKind::kGradTarget,
                                                     eval.targets.value_type, open);
      }
    } else {
      const auto& t64 = in.t64;
      constexpr bool kLog = kKind == LossKind::kLoss;
      constexpr bool kReciprocal = kKind == LossKind::kGradSelf || kFused;
      const auto transcendentals = TranscendentalPolicy::Of(in, kLog, kReciprocal);
      if constexpr (kLog) {
        const auto& log_term = transcendentals.log_term;
        // On fp32 transcendentals with weights, Loss64 and its interval test: the bit test's
        // bound, kLossError32 of the whole value, would leave the step open about as often.
        if ((!kOnFp32 || kUnweighted) && Eval::NonNegativeTerms(in)) {
          // The bound, kEstimateError64 of the value (on fp32 transcendentals kLossError32), is
          // formed only where it is read; on fp32 transcendentals the sums are SumTerms32's,
          // formed before this.
          const auto value = kUnweighted ? UnweightedNonNegativeLoss64<O64>(x64, t64, log_term)
                                         : NonNegativeLoss64<O64>(x64, t64, w64, p64, log_term);
          if constexpr (kOnFp32) {
            // The interval test where the bit test leaves a vector open takes Loss64's bound,
            // kLossError32 of the log term alone (not of the whole value, much looser where the
            // linear term dominates).
            results.value = this->template SettleRelative16<kStep, math::kLoss32Reach>(
                value, i, eval.targets.value_type, open,
                [&] { return Loss64<O64>(x64, t64, w64, p64, log_term, kLogError); });
          } else if (eval.targets.store_value) {
            results.value = eval.targets.value_type == FloatType::kFloat32
                                ? this->template SettleRelative<kStep, math::kLossReach>(value, i)
                                : this->template Settle<kStep>(
                                      NonNegativeEstimate64<O64>(value, math::kEstimateError64), i,
                                      LossKind::kLoss, eval.targets.value_type, open);
          }
          if (!kOnFp32 && eval.targets.sum) {
            results.sum = this->template SumTerms<kStep>(
                NonNegativeEstimate64<O64>(value, math::kEstimateError64), i, &results.bound);
          }
        } else {
          const auto loss = Loss64<O64>(x64, t64, w64, p64, log_term, kLogError);
          if (eval.targets.store_value) {
            results.value = this->template Settle<kStep>(loss, i, LossKind::kLoss,
                                                         eval.targets.value_type, open);
          }
          if (!kOnFp32 && eval.targets.sum)
            results.sum = this->template SumTerms<kStep>(loss, i, &results.bound);
        }
      }
      if constexpr (kReciprocal) {
        const auto scale = O64::Set(eval.scale64);
        const auto estimate = GradSelf64<O64>(x64, t64, w64, p64, in.g64, scale, transcendentals.e,
                                              transcendentals.reciprocal, kSigmoidError);
        auto& out = kKind == LossKind::kGradSelf ? results.value : results.gradient;
        out = this->template Settle<kStep>(
            estimate, i, LossKind::kGradSelf,
            kKind == LossKind::kGradSelf ? eval.targets.value_type : eval.targets.gradient_type,
            open);
      }
    }
  }
};

// A loss kind's evaluator of kStep float vectors at once by the fp64 formulas, on operands staged
// as contiguous fp32 (Source).
template <LossKind kKind, bool kFused, bool kUnweighted>
struct Fp64Evaluator : EvaluatorBase<BceWithLogitsFamily, kKind, kFused, kUnweighted, Source> {
  using Base = EvaluatorBase<BceWithLogitsFamily, kKind, kFused, kUnweighted, Source>;
  using SourceT = Source;
  using Formulas = Fp64Formulas<kKind, kFused, kUnweighted, Source, Fp64Transcendentals>;
  static constexpr SharedType kStoredAs = SharedType::kMixed;
  static constexpr bool kSumsIn32 = false;

  // The step at i. One named result, computed in place and returned as itself: merged from two
  // paths by assignment, GCC copied all of it, 12 AVX-512 registers' worth, through the stack on
  // every step.
  template <size_t kStep>
  StepResults<kStep> At(int64_t i) const {
    const Operands<kStep, true> in = this->template LoadStep<kStep, true>(i);
    StepResults<kStep> results;
    Formulas{*this}.template Compute<kStep>(in, i, results, nullptr);
    return results;
  }
  // The n < kStep * lanes elements from i, in a step whose other lanes read 0.
  template <size_t kStep>
  StepResults<kStep> AtPartial(int64_t i, int64_t n) const {
    const Operands<kStep, true> in = this->template LoadPartial<kStep, true>(i, n);
    StepResults<kStep> results;
    Formulas{*this}.template Compute<kStep>(in, i, results, nullptr);
    return results;
  }
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP64_EVALUATOR_INL_H_
