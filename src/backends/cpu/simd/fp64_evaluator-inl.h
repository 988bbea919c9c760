// The fp64 evaluator: math.h's correctly rounded formulas on the fp64 halves of float vectors,
// each result settled by its error interval (or a bit test), its rare open lanes by BceElement.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_FP64_EVALUATOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_FP64_EVALUATOR_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_FP64_EVALUATOR_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_FP64_EVALUATOR_INL_H_
#endif

#include "backends/cpu/simd/evaluator_base-inl.h"
#include "backends/cpu/simd/rounding_bits-inl.h"
#include "hwy/highway.h"
#include "kernels/bce_element.h"
#include "kernels/bce_math.h"

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
// (bce_error_budget.h: kLossError32, kSelfGradientError32).
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
struct Fp64Formulas {
  using Eval = EvaluatorBase<kKind, kFused, kUnweighted, SourceT>;
  static constexpr bool kOnFp32 = TranscendentalPolicy::kFp32;
  static constexpr double kLogError = TranscendentalPolicy::kLogError;
  static constexpr double kSigmoidError = TranscendentalPolicy::kSigmoidError;
  const Eval& eval;

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
      if (kUnweighted && eval.scale_is_power_of_two && NonZeroFinite(estimate.value)) {
        // -x*g*scale: a product of two fp32 values, times a power of two, is exact in fp64.
        results.value = RoundExact<kStep>(estimate.value, eval.targets.value_type);
      } else {
        results.value =
            Settle<kStep>(estimate, i, LossKind::kGradTarget, eval.targets.value_type, open);
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
            results.value = SettleRelative16<kStep>(value, i, eval.targets.value_type, open, [&] {
              return Loss64<O64>(x64, t64, w64, p64, log_term, kLogError);
            });
          } else if (eval.targets.store_value) {
            results.value =
                eval.targets.value_type == FloatType::kFloat32
                    ? SettleRelative<kStep>(value, i)
                    : Settle<kStep>(NonNegativeEstimate64<O64>(value, math::kEstimateError64), i,
                                    LossKind::kLoss, eval.targets.value_type, open);
          }
          if (!kOnFp32 && eval.targets.sum) {
            results.sum = SumTerms<kStep>(NonNegativeEstimate64<O64>(value, math::kEstimateError64),
                                          i, &results.bound);
          }
        } else {
          const auto loss = Loss64<O64>(x64, t64, w64, p64, log_term, kLogError);
          if (eval.targets.store_value) {
            results.value = Settle<kStep>(loss, i, LossKind::kLoss, eval.targets.value_type, open);
          }
          if (!kOnFp32 && eval.targets.sum) results.sum = SumTerms<kStep>(loss, i, &results.bound);
        }
      }
      if constexpr (kReciprocal) {
        const auto scale = O64::Set(eval.scale64);
        const auto estimate = GradSelf64<O64>(x64, t64, w64, p64, in.g64, scale, transcendentals.e,
                                              transcendentals.reciprocal, kSigmoidError);
        auto& out = kKind == LossKind::kGradSelf ? results.value : results.gradient;
        out = Settle<kStep>(
            estimate, i, LossKind::kGradSelf,
            kKind == LossKind::kGradSelf ? eval.targets.value_type : eval.targets.gradient_type,
            open);
      }
    }
  }

  // Whether every lane of `value` is finite and not zero. Zeros and non-finite values keep the
  // rounding test, whose exact path gives them the reference's sign and NaN.
  template <size_t kParts>
  static bool NonZeroFinite(const Wide64<kParts>& value) {
    auto lanes = hn::And(hn::IsFinite(value.part[0]), hn::Ne(value.part[0], hn::Zero(D64())));
    for (size_t k = 1; k < kParts; ++k) {
      lanes = hn::And(lanes,
                      hn::And(hn::IsFinite(value.part[k]), hn::Ne(value.part[k], hn::Zero(D64()))));
    }
    return hn::AllTrue(D64(), lanes);
  }

  // Exact fp64 values rounded once to `type`, to nearest even as the exact path rounds: fp32 by
  // the conversion, 16-bit types onto their grid in fp64 (whose points fp32 holds exactly).
  template <size_t kStep>
  static Vectors<kStep> RoundExact(const Wide64<2 * kStep>& value, FloatType type) {
    const Grid grid = GridOf(type);
    const Wide64<2 * kStep> rounded =
        type == FloatType::kFloat32
            ? value
            : WideOps64<2 * kStep>::RoundToGrid(value, grid.precision, grid.min_exponent);
    Vectors<kStep> values;
    for (size_t j = 0; j < kStep; ++j) values[j] = Narrow(rounded, j);
    return values;
  }

  // The estimates of the step at i rounded to `type`, with the lanes whose rounding they leave
  // open recomputed. The rounding test rounds both ends of the error interval to `type` (fp16,
  // bf16: onto its grid in fp64, exactly representable in fp32) and compares them as fp32, bit for
  // bit (-0 and +0 differ) and as numbers (NaN, from a non-finite input, is open): where they are
  // the same, so is every value between them, and the lower end is the result.
  template <size_t kStep>
  Vectors<kStep> Settle(const Estimate64<WideOps64<2 * kStep>>& estimate, int64_t i, LossKind kind,
                        FloatType type, bool* open, const bool* skip = nullptr) const {
    using O64 = WideOps64<2 * kStep>;
    auto [low, high] = ErrorInterval(estimate);
    const Grid grid = GridOf(type);
    const bool on_grid = type != FloatType::kFloat32;
    if (on_grid && !kGridIn32) {
      low = O64::RoundToGrid(low, grid.precision, grid.min_exponent);
      high = O64::RoundToGrid(high, grid.precision, grid.min_exponent);
    }
    Vectors<kStep> values;
    for (size_t j = 0; j < kStep; ++j) {
      if (skip != nullptr && skip[j]) {  // settled already: SettleRelative16 keeps its own value
        values[j] = hn::Zero(D());
        continue;
      }
      V upper;
      if (!on_grid || !GridIn32(low, high, j, grid, &values[j], &upper)) {
        values[j] = Narrow(low, j);
        upper = Narrow(high, j);
      }
      const hn::RebindToSigned<D> di;
      const auto settled =
          hn::And(hn::Eq(values[j], upper),
                  hn::RebindMask(D(), hn::Eq(hn::BitCast(di, values[j]), hn::BitCast(di, upper))));
      if (HWY_LIKELY(hn::AllTrue(D(), settled))) continue;
      if (open != nullptr) {
        *open = true;
        continue;
      }
      values[j] = eval.SettleLanes(kind, type, hn::VecFromMask(D(), settled),
                                   i + static_cast<int64_t>(j) * Eval::kLanes, values[j]);
    }
    return values;
  }

  // Settle for fp32 results of non-negative loss values (NonNegativeEstimate64): where the bit
  // test (FarFromBoundaries, InNormalRange) settles every lane, the values' own rounding;
  // a step that it leaves open (zeros, tiny or huge values, a value near a boundary: about 2^-17
  // of random lanes) takes the interval test, Settle.
  template <size_t kStep>
  Vectors<kStep> SettleRelative(const Wide64<2 * kStep>& value, int64_t i) const {
    Vectors<kStep> values;
    bool settled = true;
    for (size_t j = 0; j < kStep; ++j) {
      values[j] = Narrow(value, j);
      settled =
          settled &&
          hn::AllTrue(D64(),
                      hn::And(FarFromBoundaries<24, math::kLossReach>(value.part[2 * j]),
                              FarFromBoundaries<24, math::kLossReach>(value.part[2 * j + 1]))) &&
          hn::AllTrue(D(), InNormalRange(values[j], kFp32LeastNormalBits, kFp32InfinityBits));
    }
    if (HWY_LIKELY(settled)) return values;
    return Settle<kStep>(NonNegativeEstimate64<WideOps64<2 * kStep>>(value, math::kEstimateError64),
                         i, LossKind::kLoss, FloatType::kFloat32, nullptr);
  }

  // Settle on fp32 transcendentals, for non-negative loss values, whose bound is within
  // kLossError32 of the value, in the 16-bit `type`: the bit test (SettledOnGrid16) per float
  // vector; a vector where it leaves any lane open (about 2^-9 of random fp16 lanes, 2^-12 of bf16
  // ones, and values outside the type's range) takes the interval test of `estimate()`, Settle
  // (where that leaves a lane open: *open, and the step is evaluated again in fp64).
  template <size_t kStep, class EstimateOp>
  Vectors<kStep> SettleRelative16(const Wide64<2 * kStep>& value, int64_t i, FloatType type,
                                  bool* open, EstimateOp estimate) const {
    Vectors<kStep> values;
    bool settled[kStep];
    bool all = true;
    for (size_t j = 0; j < kStep; ++j) {
      settled[j] = SettledOnGrid16(value.part[2 * j], value.part[2 * j + 1], type,
                                   FarFrom16Boundaries, &values[j]);
      all = all && settled[j];
    }
    if (HWY_LIKELY(all)) return values;
    const Vectors<kStep> tested =
        Settle<kStep>(estimate(), i, LossKind::kLoss, type, open, settled);
    for (size_t j = 0; j < kStep; ++j) {
      if (!settled[j]) values[j] = tested[j];
    }
    return values;
  }

  // The loss estimates of the step at i as mean/sum add them, with `bound` their bounds: where an
  // input is not finite (the bound is then not finite) the lanes take the reference value, as
  // BceLossTerm says.
  template <size_t kStep>
  Wide64<2 * kStep> SumTerms(const Estimate64<WideOps64<2 * kStep>>& loss, int64_t i,
                             Wide64<2 * kStep>* bound) const {
    Wide64<2 * kStep> values = loss.value;
    *bound = loss.bound;
    for (size_t j = 0; j < kStep; ++j) {
      V64& lower = values.part[2 * j];
      V64& upper = values.part[2 * j + 1];
      // Not finite: NaN (BceLossTerm), or the bound of a non-finite value.
      const auto first = hn::Not(hn::IsFinite(loss.bound.part[2 * j]));
      const auto second = hn::Not(hn::IsFinite(loss.bound.part[2 * j + 1]));
      if (HWY_LIKELY(hn::AllFalse(D64(), hn::Or(first, second)))) continue;
      const V reference = eval.ReferenceLanes(i + static_cast<int64_t>(j) * Eval::kLanes);
      lower = hn::IfThenElse(first, Lower64(reference), lower);
      upper = hn::IfThenElse(second, Upper64(reference), upper);
    }
    return values;
  }
};

// A loss kind's evaluator of kStep float vectors at once by the fp64 formulas, on operands staged
// as contiguous fp32 (Source).
template <LossKind kKind, bool kFused, bool kUnweighted>
struct Fp64Evaluator : EvaluatorBase<kKind, kFused, kUnweighted, Source> {
  using Base = EvaluatorBase<kKind, kFused, kUnweighted, Source>;
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

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_FP64_EVALUATOR_INL_H_
