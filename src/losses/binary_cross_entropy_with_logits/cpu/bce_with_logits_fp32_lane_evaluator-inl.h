// The fp32-lane evaluator: 16-bit results of 16-bit logits formed in fp32 lanes (the kernels), one
// driver loop over a step's vectors, and the fp64 evaluator as the fallback of what they leave
// open.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_EVALUATOR_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_EVALUATOR_INL_H_
#undef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_EVALUATOR_INL_H_
#else
#define OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_EVALUATOR_INL_H_
#endif

#include "hwy/highway.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_fp32_lane_kernels-inl.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_fp64_evaluator-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The loop of an fp32-lane kernel (Fp32LaneKernel) over a step's vectors: each vector's result
// where the kernel settles all its lanes, else `fallback(j)`'s (the fp64 evaluator's, out of line).
// A step's other vectors are usually settled (on the ramp inputs about one step in seven or eight
// has an open one), and per vector fp64 costs twice what fp32 does: the fallback takes only the
// open vectors.
template <size_t kStep, class Kernel, class Fallback>
HWY_INLINE void SettleInFp32Lanes(const Kernel& kernel, const Operands<kStep, false>& in,
                                  Vectors<kStep>& out, Fallback fallback) {
  bool open_vectors[kStep];
  bool all = true;
  for (size_t j = 0; j < kStep; ++j) {
    open_vectors[j] = !kernel.Vector(in, j, &out[j]);
    all = all && !open_vectors[j];
  }
  for (size_t j = 0; !all && j < kStep; ++j) {
    if (open_vectors[j]) out[j] = fallback(j);
  }
}

// What the fp64 fallback forms: the values (and the fused pass's gradients), or the mean/sum terms.
enum class Fp64Part { kValues, kSumTerms };

template <bool kFused, bool kUnweighted, SharedType kShared>
using Fp32LaneSource = std::conditional_t<kUnweighted || !kFused, NarrowSource<kShared>, Source>;

// A loss kind's evaluator of 16-bit logits (or, for the exact target gradient, any logits) wholly
// in fp32 lanes: the 16-bit results by the kind's Fp32LaneKernel, a 16-bit mean or sum by fp32
// terms (SumTerms32: BceLossTerm32), and the fused pass that stores the loss by the fp64 formulas
// on Fp32Transcendentals. A step where |x| > kExpArgMax32, whose loss terms may be negative, whose
// scale is out of range, or whose rounding the fused pass leaves open, is evaluated again in full
// by the fp64 evaluator; an open vector of a kernel alone. kShared: the one type every operand and
// output lies in memory as (SharedTypeOf), or kMixed.
// The operands are read in place (NarrowSource), but those of the fused pass with weights, whose
// fp64 formulas convert each operand's halves from memory: staging them costs less than converting
// them in the loop (traced fp16 loop of the weighted loss in fp64: 221 vector instructions against
// 237).
template <LossKind kKind, bool kFused, bool kUnweighted, SharedType kShared>
struct Fp32LaneEvaluator : EvaluatorBase<BceWithLogitsFamily, kKind, kFused, kUnweighted,
                                         Fp32LaneSource<kFused, kUnweighted, kShared>> {
  using SourceT = Fp32LaneSource<kFused, kUnweighted, kShared>;
  using Base = EvaluatorBase<BceWithLogitsFamily, kKind, kFused, kUnweighted, SourceT>;
  using Base::kLanes;
  using Base::targets;
  static constexpr SharedType kStoredAs = kShared;
  // The target gradient without weights: exact products (ExactGradTargetInFp32).
  static constexpr bool kExactTarget = kKind == LossKind::kGradTarget && kUnweighted;
  // A 16-bit mean or sum (the loss, fused or not) adds SumTerms32's fp32 terms; without a gradient
  // nothing is stored, and SumsAt gives the step's sum terms alone (RunSums32).
  static constexpr bool kSumsIn32 = kKind == LossKind::kLoss;
  // Every such term's bound, as a fraction of its value (RunSums32 forms the bounds from the sums).
  static constexpr double kTermBound32 = math::kLossTerm32Bound;
  // Only the fused pass's fp64 formulas read the operands' fp64 parts, converted where it takes
  // that path (WithFp64): converted on every step, they cost 16 conversions a step on AVX2, and
  // held the operands in memory (traced bf16 target gradient with pos_weight).
  template <size_t kStep>
  using In = Operands<kStep, false>;

  // The step at i. One named result, computed in place (ComputeInto) and returned as itself:
  // merged from the fast path and its fallback by assignment, GCC copied all of it, 12 AVX-512
  // registers' worth, through the stack on every step.
  template <size_t kStep>
  StepResults<kStep> At(int64_t i) const {
    const In<kStep> in = this->template LoadStep<kStep, false>(i);
    StepResults<kStep> results;
    if constexpr (kSumsIn32) {
      if (targets.sum) SumTerms32<kStep>(in, i, Base::template kStepLanes<kStep>, results);
    }
    bool open = !kExactTarget && !InRange32(in);  // the target gradient needs no exp
    if (HWY_LIKELY(!open)) ComputeInto(in, i, results, &open);
    if (HWY_UNLIKELY(open)) {
      TakeValues(InFp64<kStep>(i, Base::template kStepLanes<kStep>, Fp64Part::kValues), results);
    }
    return results;
  }
  template <size_t kStep>
  StepResults<kStep> SumsAt(int64_t i, bool* open = nullptr) const {
    StepResults<kStep> results;
    SumTerms32<kStep>(this->template LoadStep<kStep, false>(i), i, Base::template kStepLanes<kStep>,
                      results, open);
    return results;
  }
  // The n < kStep * lanes elements from i, in a step whose other lanes read 0.
  template <size_t kStep>
  StepResults<kStep> AtPartial(int64_t i, int64_t n) const {
    StepResults<kStep> results;
    if (targets.sum) {
      SumTerms32<kStep>(this->template LoadPartial<kStep, false>(i, n), i, n, results);
    }
    if (kFused || targets.store_value) TakeValues(InFp64<kStep>(i, n, Fp64Part::kValues), results);
    return results;
  }

 private:
  // The fallback: the fp64 evaluator's `part` of the n <= kStep * lanes elements from i, copied in
  // fp32 to `local` (its sources, the inputs of its exact path too), which it indexes from 0; the
  // values' sums stay this evaluator's own (SumTerms32). Returned, not written through a reference:
  // a step's results whose address escapes live on the stack.
  template <size_t kStep>
  struct Local {
    HWY_ALIGN float values[kOut][kStep * kLanes];
  };
  template <size_t kStep>
  HWY_NOINLINE StepResults<kStep> InFp64(int64_t i, int64_t n, Fp64Part part) const {
    Local<kStep> local;
    Fp64Evaluator<kKind, kFused, kUnweighted> fp64{{{}, n, this->parameters, targets}};
    for (int which = kSelf; which < kOut; ++which) {
      if (this->sources[which].data == nullptr) continue;  // not read
      for (int64_t at = 0; at < static_cast<int64_t>(kStep) * kLanes; at += kLanes) {
        const int64_t remaining = std::clamp<int64_t>(n - at, 0, kLanes);
        const V v = remaining == kLanes ? this->sources[which].Load(i + at)
                                        : this->sources[which].LoadPartial(i + at, remaining);
        hn::Store(v, D(), local.values[which] + at);
      }
      fp64.sources[which].data = local.values[which];
    }
    if (part == Fp64Part::kValues) {
      fp64.targets.sum = false;
    } else {
      fp64.targets.store_value = false;
    }
    return n == Base::template kStepLanes<kStep> ? fp64.template At<kStep>(0)
                                                 : fp64.template AtPartial<kStep>(0, n);
  }
  template <size_t kStep>
  static void TakeValues(const StepResults<kStep>& from, StepResults<kStep>& results) {
    results.value = from.value;
    if constexpr (kFused) results.gradient = from.gradient;
  }

  // The gradients' reach floor in fp32 ulps, biased by 2^23 for ReachBits: their roundings, and
  // where the scale is not 1/N itself (N not a power of two) its own error and that of g*scale.
  float BiasedReachFloor() const {
    return math::kGradSelf32ReachFloor + 0x1p23f +
           (this->scale_is_exact ? 0.0f : math::kGradSelf32ScaleReach);
  }

  // The mean/sum terms of the step at i, n of whose elements are the tile's, lane for lane
  // as BceLossTerm32 forms them: UnweightedLoss32 or WeightedLoss32 (kUnweighted: weight and
  // pos_weight absent) and its bound in its domain; a vector with a lane outside it takes the fp64
  // evaluator's terms there (about 1 vector in 2^15 on random inputs), or where `open` is given
  // sets it instead.
  template <size_t kStep>
  void SumTerms32(const In<kStep>& in, int64_t i, int64_t n, StepResults<kStep>& results,
                  bool* open = nullptr) const {
    using O32 = HwyOpsOf<D>;
    const V zero = hn::Zero(D());
    const V64 error = hn::Set(D64(), math::kLossTerm32Bound);
    Wide64<2 * kStep> sum, bound;
    for (size_t j = 0; j < kStep; ++j) {
      const V a = hn::Abs(in.x[j]);
      auto in_domain =
          hn::And(hn::Le(a, hn::Set(D(), math::kExpArgMax32)), Base::NonNegativeLanes(in, j));
      V value;
      if constexpr (kUnweighted) {
        value = UnweightedLoss32<O32>(in.x[j], in.t[j], Log1pExpNeg32<O32>(a));
      } else {
        const auto loss =
            WeightedLoss32<O32>(in.x[j], in.t[j], in.w[j], in.p[j], Log1pExpNeg32<O32>(a));
        const auto bounded =
            hn::Or(hn::And(hn::Ge(loss.inner, hn::Set(D(), 0x1p-102f)),
                           InNormalRange(loss.value, kFp32LeastNormalBits, kFp32InfinityBits)),
                   hn::And(hn::Eq(in.w[j], zero), hn::IsFinite(loss.inner)));
        in_domain = hn::And(in_domain, bounded);
        value = loss.value;
      }
      sum.part[2 * j] = Lower64(value);
      sum.part[2 * j + 1] = Upper64(value);
      bound.part[2 * j] = sum.part[2 * j] * error;
      bound.part[2 * j + 1] = sum.part[2 * j + 1] * error;
      const int64_t at = static_cast<int64_t>(j) * kLanes;
      if (HWY_LIKELY(hn::AllTrue(D(), in_domain)) || at >= n) continue;
      if (open != nullptr) {
        *open = true;
        continue;
      }
      const StepResults<1> fp64 = InFp64<1>(i + at, std::min(n - at, kLanes), Fp64Part::kSumTerms);
      const V fast = hn::IfThenElseZero(in_domain, hn::Set(D(), 1.0f));
      for (size_t half = 0; half < 2; ++half) {
        const auto keep = hn::Eq(half == 0 ? Lower64(fast) : Upper64(fast), hn::Set(D64(), 1.0));
        const size_t k = 2 * j + half;
        sum.part[k] = hn::IfThenElse(keep, sum.part[k], fp64.sum.part[half]);
        bound.part[k] = hn::IfThenElse(keep, bound.part[k], fp64.bound.part[half]);
      }
    }
    results.sum = sum;
    results.bound = bound;
  }

  // Whether every |x| of the step is at most kExpArgMax32 (NaN is not).
  template <size_t kStep>
  static bool InRange32(const In<kStep>& in) {
    auto in_range = hn::Le(hn::Abs(in.x[0]), hn::Set(D(), math::kExpArgMax32));
    for (size_t j = 1; j < kStep; ++j) {
      in_range = hn::And(in_range, hn::Le(hn::Abs(in.x[j]), hn::Set(D(), math::kExpArgMax32)));
    }
    return hn::AllTrue(D(), in_range);
  }

  // The step's results; where the kernel or the fp64 formulas leave it open, *open.
  template <size_t kStep>
  void ComputeInto(const In<kStep>& in, int64_t i, StepResults<kStep>& results, bool* open) const {
    if constexpr (kFused) {
      // The fused pass of a 16-bit mean or sum too: SumTerms32 formed the loss terms, and the
      // gradient is the self gradient's kernel's.
      if (!targets.store_value) return ComputeInFp32(in, i, results, open);
      using FormulasOnFp32Transcendentals =
          Fp64Formulas<kKind, kFused, kUnweighted, SourceT, Fp32Transcendentals>;
      FormulasOnFp32Transcendentals{*this}.template Compute<kStep>(WithFp64(in, i), i, results,
                                                                   open);
    } else {
      ComputeInFp32(in, i, results, open);
    }
  }
  // The kind's (the fused pass's: the self gradient's) results by its Fp32LaneKernel. The
  // unweighted target gradient only for an exact scale, N a power of two (RouteTile). A step whose
  // loss terms may be negative, or whose scale is out of range, is open.
  template <size_t kStep>
  void ComputeInFp32(const In<kStep>& in, int64_t i, StepResults<kStep>& results,
                     bool* open) const {
    constexpr LossKind kKernelKind = kFused ? LossKind::kGradSelf : kKind;
    if (kKernelKind == LossKind::kLoss ? !Base::NonNegativeTerms(in) : !this->scale_in_range) {
      *open = true;
      return;
    }
    auto& out = kFused ? results.gradient : results.value;
    const FloatType type = kFused ? targets.gradient_type : targets.value_type;
    const auto settle = [&](auto type_constant) {
      using Kernel = Fp32LaneKernel<kKernelKind, kUnweighted, decltype(type_constant)::value>;
      SettleInFp32Lanes<kStep>(Kernel(this->scale64, BiasedReachFloor()), in, out, [&](size_t j) {
        const StepResults<1> fp64 =
            InFp64<1>(i + static_cast<int64_t>(j) * kLanes, kLanes, Fp64Part::kValues);
        return kFused ? fp64.gradient[0] : fp64.value[0];
      });
    };
    using Type = FloatType;
    if constexpr (kExactTarget) {
      if (type == Type::kFloat32) return settle(std::integral_constant<Type, Type::kFloat32>{});
    }
    if (type == Type::kFloat16) return settle(std::integral_constant<Type, Type::kFloat16>{});
    settle(std::integral_constant<Type, Type::kBFloat16>{});
  }
  // The step's operands with their fp64 parts (the fused pass, where it stores the loss).
  template <size_t kStep>
  Operands<kStep, true> WithFp64(const In<kStep>& in, int64_t i) const {
    Operands<kStep, true> wide;
    wide.x = in.x;
    wide.t = in.t;
    wide.w = in.w;
    wide.p = in.p;
    wide.g = in.g;
    this->WidenInto(wide, i, true);
    return wide;
  }
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_EVALUATOR_INL_H_
