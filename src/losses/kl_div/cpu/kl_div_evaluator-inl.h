// The KL divergence family's evaluator (aclnnKlDiv, aclnnKlDivBackward, aclnnKlDivTargetBackward):
// the family's fp64 estimates (losses/kl_div/kl_div_formulas.inc) on the fp64 halves of float
// vectors, each result settled by a rounding test (Fp64Rounding), its rare open lanes by the
// family's scalar Element; and the terms of means, sums and summed-back gradients, bitwise the
// family's Term. Re-included once per Highway target (the toggle guard below); defines its code
// inside namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_LOSSES_KL_DIV_CPU_EVALUATOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_KL_DIV_CPU_EVALUATOR_INL_H_
#undef OPENACLNN_LOSSES_KL_DIV_CPU_EVALUATOR_INL_H_
#else
#define OPENACLNN_LOSSES_KL_DIV_CPU_EVALUATOR_INL_H_
#endif

#include "backends/cpu/simd/evaluator_base-inl.h"
#include "backends/cpu/simd/fp64_rounding-inl.h"
#include "backends/cpu/simd/vector_ops-inl.h"
#include "hwy/highway.h"
#include "losses/kl_div/kl_div_family.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The family's formulas, compiled for this target (see transcendentals.inc); they name the
// element math above (Log64, ExpNeg64, Estimate64, FiniteZero).
#include "losses/kl_div/kl_div_formulas.inc"

// The reaches of the bit test (SettleRelative, signed) in fp64 ulps of the value, where a kind's
// bound is a fraction of its value (kl_div_error_budget.h): -g t s with s inexact, and the log
// targets' loss and self gradient. The probability loss and both target gradients are bounded by
// their terms before cancellation: they take the interval test.
inline constexpr uint64_t kKlDivProductReach = 8;
static_assert(static_cast<double>(kKlDivProductReach) * 0x1p-53 == math::kKlDivProductError64);
inline constexpr uint64_t kKlDivExpReach = 512;
static_assert(static_cast<double>(kKlDivExpReach) * 0x1p-53 == math::kKlDivExpTermError64);

// The family's operands: target always, gradOutput for the gradients; no weights.
constexpr OperandsRead KlDivReads(LossKind kind) {
  return {true, kind != LossKind::kLoss, false, false};
}

// A kind's evaluator of kStep float vectors at once, for probability targets (kVariant 0) or log
// targets (kKlDivLogTarget): its results stored and/or summed, on operands staged as contiguous
// fp32 (Source).
template <LossKind kKind, int kVariant>
struct KlDivEvaluator
    : StepsByCompute<KlDivEvaluator<kKind, kVariant>,
                     EvaluatorBase<KlDivFamily, kKind, false, true, Source, KlDivReads(kKind)>> {
  using Base = EvaluatorBase<KlDivFamily, kKind, false, true, Source, KlDivReads(kKind)>;
  using SourceT = Source;
  using Base::targets;
  static constexpr SharedType kStoredAs = SharedType::kMixed;
  static constexpr bool kSumsIn32 = false;
  static constexpr bool kLogTargets = kVariant == kKlDivLogTarget;
  // The results whose bound is a fraction of their value (the bit test's), but -g t s with an
  // exact scale, which is exact.
  static constexpr bool kRelative =
      kKind == LossKind::kGradSelf || (kLogTargets && kKind == LossKind::kLoss);
  static constexpr uint64_t kReach = kLogTargets ? kKlDivExpReach : kKlDivProductReach;

  template <size_t kStep>
  void Compute(const Operands<kStep, true>& in, int64_t i, StepResults<kStep>& results) const {
    if (targets.sum) results.sum = Terms<kStep>(in, i, &results.bound);
    if (targets.store_value) results.value = Values<kStep>(in, i);
  }

  // The estimate of the kind times `scale` (KlDivEstimate): -g t s exact where `exact_scale`.
  template <size_t kStep>
  static Estimate64<WideOps64<2 * kStep>> Estimate(const Operands<kStep, true>& in,
                                                   Wide64<2 * kStep> scale, bool exact_scale) {
    using O64 = WideOps64<2 * kStep>;
    const auto &x = in.x64, &t = in.t64, &g = in.g64;
    if constexpr (kLogTargets && kKind == LossKind::kLoss) {
      return KlDivLogTargetLoss64<O64>(x, t, scale);
    } else if constexpr (kLogTargets && kKind == LossKind::kGradSelf) {
      return KlDivLogTargetGradSelf64<O64>(t, g, scale);
    } else if constexpr (kLogTargets) {
      return KlDivLogTargetGradTarget64<O64>(x, t, g, scale);
    } else if constexpr (kKind == LossKind::kLoss) {
      return KlDivLoss64<O64>(x, t, scale);
    } else if constexpr (kKind == LossKind::kGradSelf) {
      const double error = exact_scale ? 0.0 : math::kKlDivProductError64;
      return KlDivGradSelf64<O64>(t, g, scale, O64::Set(error));
    } else {
      return KlDivGradTarget64<O64>(x, t, g, scale);
    }
  }

  // The step's results, each rounded once to the output type (KlDivElement): -g t s with a
  // power-of-two s by the conversion of its exact value; the bit test where the bound is a
  // fraction of the value; else, and for 16-bit results, the interval test. A value beyond
  // kKlDivBeyondRange (whose infinity KlDivElement takes before any test) gets a NaN bound, so
  // that its lane goes to Element (as does every lane outside the domain, whose bound is NaN).
  template <size_t kStep>
  Vectors<kStep> Values(const Operands<kStep, true>& in, int64_t i) const {
    using O64 = WideOps64<2 * kStep>;
    const Fp64Rounding<Base> rounding{*this};
    const FloatType type = targets.value_type;
    constexpr bool kProduct = !kLogTargets && kKind == LossKind::kGradSelf;
    const bool exact = kProduct && this->scale_is_exact;
    auto estimate = Estimate<kStep>(in, O64::Set(this->scale64), exact);
    if (exact && rounding.NonZeroFinite(estimate.value)) {
      return rounding.template RoundExact<kStep>(estimate.value, type);
    }
    estimate.bound = O64::IfThenElse(O64::Set(math::kKlDivBeyondRange) < O64::Abs(estimate.value),
                                     O64::Set(kCanonicalNaN), estimate.bound);
    if (kRelative && type == FloatType::kFloat32 && Finite(estimate.bound)) {
      return rounding.template SettleRelative<kStep, kReach, true>(estimate.value, i, kKind);
    }
    return rounding.template Settle<kStep>(estimate, i, kKind, type, nullptr);
  }

  // The step's terms of a mean, sum or summed-back gradient, with their bounds in `bound`: the
  // estimate with scale 1 and its bound raised by kKlDivTermError of its magnitude (log targets
  // below kKlDivExpTargetMin by 2 more), as KlDivTerm forms them; lanes outside the domain (a NaN
  // bound) or with a NaN value (g e^t overflowed beside an exact zero) take KlDivTerm itself.
  template <size_t kStep>
  Wide64<2 * kStep> Terms(const Operands<kStep, true>& in, int64_t i,
                          Wide64<2 * kStep>* bound) const {
    using O64 = WideOps64<2 * kStep>;
    const auto estimate = Estimate<kStep>(in, O64::Set(1.0), true);
    auto factor = O64::Set(math::kKlDivTermError);
    if constexpr (kLogTargets) {
      factor = O64::IfThenElse(in.t64 < O64::Set(math::kKlDivExpTargetMin),
                               O64::Set(2.0 + math::kKlDivTermError), factor);
    }
    Wide64<2 * kStep> value = estimate.value;
    *bound = estimate.bound + O64::Abs(estimate.value) * factor;
    for (size_t j = 0; j < kStep; ++j) {
      const size_t lower = 2 * j, upper = 2 * j + 1;
      const auto first =
          hn::Or(hn::Not(hn::IsFinite(bound->part[lower])), hn::IsNaN(value.part[lower]));
      const auto second =
          hn::Or(hn::Not(hn::IsFinite(bound->part[upper])), hn::IsNaN(value.part[upper]));
      if (HWY_LIKELY(hn::AllFalse(D64(), hn::Or(first, second)))) continue;
      HWY_ALIGN double values[Base::kLanes];
      HWY_ALIGN double bounds[Base::kLanes];
      TermLanes(i + static_cast<int64_t>(j) * Base::kLanes, values, bounds);
      constexpr size_t kHalf = static_cast<size_t>(Base::kLanes) / 2;
      value.part[lower] = hn::IfThenElse(first, hn::Load(D64(), values), value.part[lower]);
      value.part[upper] =
          hn::IfThenElse(second, hn::Load(D64(), values + kHalf), value.part[upper]);
      bound->part[lower] = hn::IfThenElse(first, hn::Load(D64(), bounds), bound->part[lower]);
      bound->part[upper] =
          hn::IfThenElse(second, hn::Load(D64(), bounds + kHalf), bound->part[upper]);
    }
    return value;
  }

  // The family's Term of the lanes of the vector at `at` (out of line: the rare case); lanes past
  // the tile 0.
  HWY_NOINLINE void TermLanes(int64_t at, double* values, double* bounds) const {
    for (int64_t lane = 0; lane < Base::kLanes; ++lane) {
      values[lane] = bounds[lane] = 0.0;
      if (at + lane >= this->count) continue;
      const ElementEstimate term =
          KlDivFamily::Term(kKind, this->parameters, this->ElementAt(at + lane), false, true);
      values[lane] = term.value;
      bounds[lane] = term.bound;
    }
  }

  // Whether every lane of `bound` is finite.
  template <size_t kParts>
  static bool Finite(const Wide64<kParts>& bound) {
    auto lanes = hn::IsFinite(bound.part[0]);
    for (size_t k = 1; k < kParts; ++k) lanes = hn::And(lanes, hn::IsFinite(bound.part[k]));
    return hn::AllTrue(D64(), lanes);
  }
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_KL_DIV_CPU_EVALUATOR_INL_H_
