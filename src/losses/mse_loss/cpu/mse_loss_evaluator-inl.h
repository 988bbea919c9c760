// The MSE family's evaluators (aclnnMseLoss, aclnnMseLossOut, aclnnMseLossBackward): the fp64 one,
// the family's fp64 estimates (losses/mse_loss/mse_loss_formulas.inc) on the fp64 halves of float
// vectors, each result settled by the bit test of its relative bound (SettleRelative,
// SettleRelative16), its rare open lanes by the family's scalar Element; and the fp32-lane one of
// the 16-bit inputs' elements over a divisor of 1, where x - t is exact in fp32 and the fp32
// product is then the correctly rounded result (mse_loss_error_budget.h, (c)). Re-included once
// per Highway target (the toggle guard below); defines its code inside namespace
// openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_LOSSES_MSE_LOSS_CPU_EVALUATOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_MSE_LOSS_CPU_EVALUATOR_INL_H_
#undef OPENACLNN_LOSSES_MSE_LOSS_CPU_EVALUATOR_INL_H_
#else
#define OPENACLNN_LOSSES_MSE_LOSS_CPU_EVALUATOR_INL_H_
#endif

#include "backends/cpu/simd/evaluator_base-inl.h"
#include "backends/cpu/simd/fp64_rounding-inl.h"
#include "backends/cpu/simd/rounding_bits-inl.h"
#include "backends/cpu/simd/vector_ops-inl.h"
#include "hwy/highway.h"
#include "losses/mse_loss/mse_loss_family.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The family's formulas, compiled for this target (see transcendentals.inc); they name the
// element math above (Estimate64, FiniteZero).
#include "losses/mse_loss/mse_loss_formulas.inc"

// An element estimate's reach in fp64 ulps of its magnitude (SettleRelative): its bound,
// kMseElementError of the estimate wherever the inputs are finite (where one is not, neither is
// the value, which the bit test never settles).
inline constexpr uint64_t kMseElementReach = 8;
static_assert(static_cast<double>(kMseElementReach) * 0x1p-53 == math::kMseElementError,
              "the reach is 2^53 times the element's relative bound");

// The reach of the 16-bit results' bit test (SettleRelative16, which rounds through fp32 first:
// a reach below fp32's half ulp, 2^29 fp64 ulps, would not be sound), as the binary cross
// entropy's: 2^-21 + 2^-43 of the value, far wider than the estimates' bound; it leaves open only
// values within about 2^-21 of a 16-bit rounding boundary, which the interval test then settles.
inline constexpr uint64_t kMse16BitReach = (uint64_t{1} << 32) + (uint64_t{1} << 10);
static_assert(kMse16BitReach >= kMseElementReach && kMse16BitReach > (uint64_t{1} << 29));

// The fp64 evaluator of kStep float vectors at once: kLoss (stored, or summed by a mean or sum)
// or kGradSelf, on operands staged as contiguous fp32 (Source). No weights: the family has none.
template <LossKind kKind>
struct MseLossEvaluator : StepsByCompute<MseLossEvaluator<kKind>,
                                         EvaluatorBase<MseLossFamily, kKind, false, true, Source>> {
  using Base = EvaluatorBase<MseLossFamily, kKind, false, true, Source>;
  using SourceT = Source;
  using Base::targets;
  static constexpr SharedType kStoredAs = SharedType::kMixed;
  static constexpr bool kSumsIn32 = false;

  // The step's results: the terms a mean or sum adds (the family's Term, the same formula, so
  // the same bits as the scalar tile's), and stored values settled in their output type or
  // recomputed by the family's Element.
  template <size_t kStep>
  void Compute(const Operands<kStep, true>& in, int64_t i, StepResults<kStep>& results) const {
    using O64 = WideOps64<2 * kStep>;
    const Fp64Rounding<Base> rounding{*this};
    const FloatType type = targets.value_type;
    if constexpr (kKind == LossKind::kLoss) {
      if (targets.sum) {
        const auto term = MseLossTerm64<O64>(in.x64, in.t64);
        results.sum = term.value;
        results.bound = term.bound;
      }
      if (!targets.store_value) return;
      const auto loss = MseLoss64<O64>(in.x64, in.t64, O64::Set(this->scale64));
      results.value = type == FloatType::kFloat32
                          ? rounding.template SettleRelative<kStep, kMseElementReach>(loss.value, i)
                          : rounding.template SettleRelative16<kStep, kMse16BitReach>(
                                loss.value, i, type, nullptr, [&] { return loss; });
    } else {
      const auto gradient =
          MseGradient64<O64>(in.x64, in.t64, in.g64, O64::Set(2.0 * this->scale64));
      results.value = type == FloatType::kFloat32
                          ? rounding.template SettleRelative<kStep, kMseElementReach, true>(
                                gradient.value, i, LossKind::kGradSelf)
                          : rounding.template SettleRelative16<kStep, kMse16BitReach, true>(
                                gradient.value, i, type, nullptr, [&] { return gradient; },
                                LossKind::kGradSelf);
    }
  }
};

// The fp32-lane evaluator of stored elements over a divisor of 1 (none; a sum's gradient), for
// 16-bit inputs, whose differences fp32 nearly always holds: d = fl32(x - t), exact where the
// Fast2Sum pair test says so (x - d == t and d + t == x: false for every input that is not finite
// and where d overflows), and then r = fl32(d * d), or fl32((g + g) * d) with g + g finite, is
// the correctly rounded fp32 result; rounded onto a 16-bit grid it is that type's unless r is one
// of its rounding boundaries and not the exact value (its fused residual is not 0), or lies
// beyond the grid rounding's range. A step with any lane outside those conditions is evaluated
// again by the fp64 evaluator.
template <LossKind kKind>
struct MseLossFp32Evaluator : MseLossEvaluator<kKind> {
  using Fp64 = MseLossEvaluator<kKind>;

  template <size_t kStep>
  StepResults<kStep> At(int64_t i) const {
    const Operands<kStep, false> in = this->template LoadStep<kStep, false>(i);
    StepResults<kStep> results;
    if (HWY_LIKELY(Fp32Values<kStep>(in, results.value))) return results;
    return Fp64::template At<kStep>(i);
  }

  // Each vector's products, rounded onto the output type's grid; false where a lane needs fp64.
  template <size_t kStep>
  bool Fp32Values(const Operands<kStep, false>& in, Vectors<kStep>& values) const {
    const FloatType type = this->targets.value_type;
    auto fine = hn::FirstN(D(), hn::MaxLanes(D()));
    for (size_t j = 0; j < kStep; ++j) {
      const V d = hn::Sub(in.x[j], in.t[j]);
      fine = hn::And(fine, hn::And(hn::Eq(hn::Sub(in.x[j], d), in.t[j]),
                                   hn::Eq(hn::Add(d, in.t[j]), in.x[j])));
      const V factor = kKind == LossKind::kLoss ? d : hn::Add(in.g[j], in.g[j]);
      if constexpr (kKind != LossKind::kLoss) fine = hn::And(fine, hn::IsFinite(factor));
      const V r = hn::Mul(factor, d);
      values[j] = r;
      if (type == FloatType::kFloat32) continue;
      fine = hn::And(fine, OnGrid16(r, hn::MulSub(factor, d, r), type, &values[j]));
    }
    return hn::AllTrue(D(), fine);
  }

  // Lanes whose fp32 result r (residual: the fused product minus r) rounds onto the 16-bit grid
  // of `type` as the exact value does, *rounded holding that rounding: r is no rounding boundary
  // of the type (on fp16's subnormal grid too: OntoFp16NormalGrid, whose sum can only make more
  // lanes boundaries), or is the exact value (residual 0 where |r| >= 2^-100: the exact residual
  // is a multiple of the factors' ulps' product, at least 2^-46 |r|, so it does not underflow to
  // 0 in fp32; below, a bf16 boundary takes fp64); and |r| is below the range of RoundToGrid in
  // fp32 lanes (fp16: where it overflows; bf16: 2^100).
  static hn::Mask<D> OnGrid16(V r, V residual, FloatType type, V* rounded) {
    const hn::RebindToUnsigned<D> du;
    const bool fp16 = type == FloatType::kFloat16;
    const V magnitude = hn::Abs(r);
    const auto no_boundary = fp16 ? FarFromBoundaries<11, 0, D>(OntoFp16NormalGrid<D>(magnitude))
                                  : FarFromBoundaries<8, 0, D>(magnitude);
    const auto exact =
        hn::And(hn::Eq(residual, hn::Zero(D())), hn::Ge(magnitude, hn::Set(D(), 0x1p-100f)));
    const auto in_range = hn::RebindMask(
        D(),
        hn::Lt(hn::BitCast(du, magnitude), hn::Set(du, fp16 ? kFp16LimitBits : kBf16LimitBits)));
    const Grid grid = GridOf(type);
    *rounded = HwyOpsOf<D>::RoundToGrid(r, grid.precision, grid.min_exponent);
    return hn::And(in_range, hn::Or(no_boundary, exact));
  }
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_MSE_LOSS_CPU_EVALUATOR_INL_H_
