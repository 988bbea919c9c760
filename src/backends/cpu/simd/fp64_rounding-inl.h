// The rounding of a step's fp64 estimates into their output types, over any family's evaluator:
// the interval test (Settle) and the bit tests of non-negative losses (SettleRelative,
// SettleRelative16), the lanes they leave open recomputed by the family's element function, and
// the terms a mean or sum adds (SumTerms).
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_FP64_ROUNDING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_FP64_ROUNDING_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_FP64_ROUNDING_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_FP64_ROUNDING_INL_H_
#endif

#include "backends/cpu/simd/evaluator_base-inl.h"
#include "backends/cpu/simd/rounding_bits-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The rounding of the estimates of an evaluator `eval` (an EvaluatorBase): its targets, and its
// out-of-line lanes (SettleLanes, ReferenceLanes).
template <class Eval>
struct Fp64Rounding {
  const Eval& eval;

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

  // Settle for fp32 results of non-negative loss values within kReach fp64 ulps of the exact loss
  // (a bound of kReach * 2^-53 of the value, NonNegativeEstimate64; each family's reach is in its
  // error budget): where the bit test (FarFromBoundaries, InNormalRange) settles every
  // lane, the values' own rounding; a step that it leaves open (zeros, tiny or huge values, a value
  // near a boundary: about 2^-17 of random lanes) takes the interval test, Settle. kSigned: values
  // of either sign of `kind` (their magnitudes tested: the low bits FarFromBoundaries reads do not
  // depend on the sign), a value that is not finite never settling by the bits.
  template <size_t kStep, uint64_t kReach, bool kSigned = false>
  Vectors<kStep> SettleRelative(const Wide64<2 * kStep>& value, int64_t i,
                                LossKind kind = LossKind::kLoss) const {
    using O64 = WideOps64<2 * kStep>;
    constexpr double kError = static_cast<double>(kReach) * 0x1p-53;
    Vectors<kStep> values;
    bool settled = true;
    for (size_t j = 0; j < kStep; ++j) {
      values[j] = Narrow(value, j);
      settled = settled &&
                hn::AllTrue(D64(), hn::And(FarFromBoundaries<24, kReach>(value.part[2 * j]),
                                           FarFromBoundaries<24, kReach>(value.part[2 * j + 1]))) &&
                hn::AllTrue(D(), InNormalRange(kSigned ? hn::Abs(values[j]) : values[j],
                                               kFp32LeastNormalBits, kFp32InfinityBits));
    }
    if (HWY_LIKELY(settled)) return values;
    const Estimate64<O64> estimate =
        kSigned ? Estimate64<O64>{value, O64::Abs(value) * O64::Set(kError)}
                : NonNegativeEstimate64<O64>(value, kError);
    return Settle<kStep>(estimate, i, kind, FloatType::kFloat32, nullptr);
  }

  // Settle for 16-bit results (of `type`) of non-negative loss values within kReach fp64 ulps of
  // the exact loss (on fp32 transcendentals, say; each family's reach is in its error budget):
  // the bit test (SettledOnGrid16, FarFrom16Boundaries) per float vector; a vector where it
  // leaves any lane open (with a reach of 2^32, about 2^-9 of random fp16 lanes and 2^-12 of bf16
  // ones; and values outside the type's range) takes the interval test of `estimate()`, Settle
  // (where that leaves a lane open: *open, and the step is evaluated again in fp64). kSigned:
  // values of either sign of `kind`, whose bound is a fraction of their magnitude (as
  // SettleRelative).
  template <size_t kStep, uint64_t kReach, bool kSigned = false, class EstimateOp>
  Vectors<kStep> SettleRelative16(const Wide64<2 * kStep>& value, int64_t i, FloatType type,
                                  bool* open, EstimateOp estimate,
                                  LossKind kind = LossKind::kLoss) const {
    Vectors<kStep> values;
    bool settled[kStep];
    bool all = true;
    for (size_t j = 0; j < kStep; ++j) {
      // A lambda, not the function's address: a call through a pointer to an always-inline
      // function fails to compile wherever GCC has not resolved the pointer first.
      settled[j] = SettledOnGrid16<kSigned>(
          value.part[2 * j], value.part[2 * j + 1], type,
          [](V64 v, bool fp16) { return FarFrom16Boundaries<kReach>(v, fp16); }, &values[j]);
      all = all && settled[j];
    }
    if (HWY_LIKELY(all)) return values;
    const Vectors<kStep> tested = Settle<kStep>(estimate(), i, kind, type, open, settled);
    for (size_t j = 0; j < kStep; ++j) {
      if (!settled[j]) values[j] = tested[j];
    }
    return values;
  }

  // The loss estimates of the step at i as mean/sum add them, with `bound` their bounds: where an
  // input is outside the formulas' domain (the bound is then not finite) the lanes take the
  // reference value, as the family's LossTerm says.
  template <size_t kStep>
  Wide64<2 * kStep> SumTerms(const Estimate64<WideOps64<2 * kStep>>& loss, int64_t i,
                             Wide64<2 * kStep>* bound) const {
    Wide64<2 * kStep> values = loss.value;
    *bound = loss.bound;
    for (size_t j = 0; j < kStep; ++j) {
      V64& lower = values.part[2 * j];
      V64& upper = values.part[2 * j + 1];
      // Not finite: NaN (outside the domain), or the bound of a non-finite value.
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

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_FP64_ROUNDING_INL_H_
