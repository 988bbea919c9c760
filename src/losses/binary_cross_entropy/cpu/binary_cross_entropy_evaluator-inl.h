// The binary cross entropy family's evaluator (aclnnBinaryCrossEntropy and its Backward): the
// family's fp64 estimates (losses/binary_cross_entropy/binary_cross_entropy_loss.inc,
// _gradient.inc) on the fp64 halves of float vectors, each result settled by its rounding test
// (Fp64Rounding), its rare open lanes by the family's scalar Element. Every output type takes the
// fp64 estimates: one log per term, no exp, and the gradient is rational. Re-included once per
// Highway target (the toggle guard below); defines its code inside namespace
// openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_LOSSES_BINARY_CROSS_ENTROPY_CPU_EVALUATOR_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_BINARY_CROSS_ENTROPY_CPU_EVALUATOR_INL_H_
#undef OPENACLNN_LOSSES_BINARY_CROSS_ENTROPY_CPU_EVALUATOR_INL_H_
#else
#define OPENACLNN_LOSSES_BINARY_CROSS_ENTROPY_CPU_EVALUATOR_INL_H_
#endif

#include "backends/cpu/simd/evaluator_base-inl.h"
#include "backends/cpu/simd/fp64_rounding-inl.h"
#include "backends/cpu/simd/vector_ops-inl.h"
#include "hwy/highway.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_family.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The family's formulas, compiled for this target (see transcendentals.inc); they name the
// element math above (Log64, LogOneMinus64, Estimate64, FiniteZero).
#include "losses/binary_cross_entropy/binary_cross_entropy_loss.inc"

#include "losses/binary_cross_entropy/binary_cross_entropy_gradient.inc"

// The loss's reach in fp64 ulps of its value where its terms are non-negative (SettleRelative):
// its bound, kBinaryCrossEntropyLossError64 of the terms, is then that fraction of the value.
inline constexpr uint64_t kBinaryCrossEntropyLossReach = uint64_t{1} << 8;
static_assert(static_cast<double>(kBinaryCrossEntropyLossReach) * 0x1p-53 ==
                  math::kBinaryCrossEntropyLossError64,
              "the reach is 2^53 times the loss's relative bound");
// The gradient's, of its magnitude: its bound is kBinaryCrossEntropyGradientError64 of it wherever
// its inputs are finite (where one is not, so is the value, which the bit tests never settle).
inline constexpr uint64_t kBinaryCrossEntropyGradientReach = 8;
static_assert(static_cast<double>(kBinaryCrossEntropyGradientReach) * 0x1p-53 ==
                  math::kBinaryCrossEntropyGradientError64,
              "the reach is 2^53 times the gradient's relative bound");

// The reach of its 16-bit results' bit test (SettleRelative16), in fp64 ulps of the value (of its
// magnitude for the gradient): a bound of 2^-21 + 2^-43 of it, far wider than either estimate's, so
// sound for both; it leaves open only values within about 2^-21 of a 16-bit rounding boundary
// (about 2^-9 of random fp16 values, 2^-12 of bf16 ones), which the interval test then settles. A
// reach as narrow as the bounds' would be sound too and leave fewer to the interval test.
inline constexpr uint64_t kBinaryCrossEntropy16BitReach = (uint64_t{1} << 32) + (uint64_t{1} << 10);
static_assert(kBinaryCrossEntropy16BitReach >= kBinaryCrossEntropyLossReach &&
              kBinaryCrossEntropy16BitReach >= kBinaryCrossEntropyGradientReach);

// A kind's evaluator of kStep float vectors at once: kLoss (stored and/or summed) or kGradSelf, on
// operands staged as contiguous fp32 (Source). The family has no pos_weight: it is neither staged
// nor loaded.
template <LossKind kKind, bool kUnweighted>
struct BinaryCrossEntropyEvaluator
    : StepsByCompute<BinaryCrossEntropyEvaluator<kKind, kUnweighted>,
                     EvaluatorBase<BinaryCrossEntropyFamily, kKind, false, kUnweighted, Source,
                                   WithoutPosWeight(OperandsReadBy(kKind, false, kUnweighted))>> {
  using Base = EvaluatorBase<BinaryCrossEntropyFamily, kKind, false, kUnweighted, Source,
                             WithoutPosWeight(OperandsReadBy(kKind, false, kUnweighted))>;
  using SourceT = Source;
  using Base::targets;
  static constexpr SharedType kStoredAs = SharedType::kMixed;
  static constexpr bool kSumsIn32 = false;

  // The step's results: each settled in its output type, or its lane recomputed by the family's
  // Element (Settle); the sums the estimates and bounds the family's LossTerm adds.
  template <size_t kStep>
  void Compute(const Operands<kStep, true>& in, int64_t i, StepResults<kStep>& results) const {
    using O64 = WideOps64<2 * kStep>;
    const Fp64Rounding<Base> rounding{*this};
    const auto &x64 = in.x64, &t64 = in.t64, &w64 = in.w64;
    if constexpr (kKind == LossKind::kLoss) {
      const auto log_x = ClampedLog64<O64>(x64), log_one_minus_x = ClampedLogOneMinus64<O64>(x64);
      const auto loss = BinaryCrossEntropyLoss64<O64>(x64, t64, w64, log_x, log_one_minus_x);
      // Non-negative terms (every input finite, x and t in [0, 1], w >= +0): the estimate's bound
      // is its terms |a L1| + |b L2| times kBinaryCrossEntropyLossError64 plus FiniteZero, which
      // is then +0, and a = w t is >= +0: the same bits from two operations fewer than a dozen
      // (determinism_test compares the sums bit for bit), and no lane takes the reference.
      const bool non_negative = NonNegativeTerms(in);
      if (targets.sum && non_negative) {
        const auto second = (w64 * (O64::Set(1.0) - t64)) * log_one_minus_x;
        results.sum = loss.value;
        results.bound = O64::MulAdd(w64 * t64, O64::Abs(log_x), O64::Abs(second)) *
                        O64::Set(math::kBinaryCrossEntropyLossError64);
      } else if (targets.sum) {
        results.sum = rounding.template SumTerms<kStep>(loss, i, &results.bound);
      }
      if (targets.store_value) {
        // Non-negative terms: the bit tests on the value alone (whose bound is then a fraction of
        // it); otherwise, and where they leave a lane open, the interval test.
        if (non_negative && targets.value_type == FloatType::kFloat32) {
          results.value =
              rounding.template SettleRelative<kStep, kBinaryCrossEntropyLossReach>(loss.value, i);
        } else if (non_negative) {
          results.value = rounding.template SettleRelative16<kStep, kBinaryCrossEntropy16BitReach>(
              loss.value, i, targets.value_type, nullptr, [&] { return loss; });
        } else {
          results.value = rounding.template Settle<kStep>(loss, i, LossKind::kLoss,
                                                          targets.value_type, nullptr);
        }
      }
    }
    if constexpr (kKind == LossKind::kGradSelf) {
      const auto gradient =
          BinaryCrossEntropyGradient64<O64>(x64, t64, w64, in.g64, O64::Set(this->scale64));
      if (targets.value_type == FloatType::kFloat32) {
        results.value =
            rounding.template SettleRelative<kStep, kBinaryCrossEntropyGradientReach, true>(
                gradient.value, i, LossKind::kGradSelf);
      } else {
        results.value =
            rounding.template SettleRelative16<kStep, kBinaryCrossEntropy16BitReach, true>(
                gradient.value, i, targets.value_type, nullptr, [&] { return gradient; },
                LossKind::kGradSelf);
      }
    }
  }

  // Whether both loss terms of every lane of the step are non-negative: x and t in [0, 1], w
  // finite and >= 0 (unsigned ranges of the bits: -0 and NaN are outside).
  template <size_t kStep>
  static bool NonNegativeTerms(const Operands<kStep, true>& in) {
    auto lanes = hn::And(Base::NonNegativeLanes(in, 0), Base::AtMostBits(in.x[0], kOneBits));
    for (size_t j = 1; j < kStep; ++j) {
      lanes = hn::And(lanes,
                      hn::And(Base::NonNegativeLanes(in, j), Base::AtMostBits(in.x[j], kOneBits)));
    }
    return hn::AllTrue(D(), lanes);
  }
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_BINARY_CROSS_ENTROPY_CPU_EVALUATOR_INL_H_
