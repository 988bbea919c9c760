// The kernels of the fp32-lane evaluator: each kind's results of 16-bit logits formed wholly in
// fp32 lanes, with a rounding test per lane.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_KERNELS_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_KERNELS_INL_H_
#undef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_KERNELS_INL_H_
#else
#define OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_KERNELS_INL_H_
#endif

#include "backends/cpu/simd/rounding_bits-inl.h"
#include "backends/cpu/simd/step_values-inl.h"
#include "hwy/highway.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_formulas-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The 16-bit (and the exact target gradient's fp32) results of a step wholly in fp32 lanes, one
// kernel per kind and output type kType (fp16 or bf16: its constants are then the instructions'
// own operands; as runtime values they were broadcast from general registers on every step). A
// kernel is constructed once per step, and Vector(in, j, &value) forms vector j's result, rounded
// onto its type's grid, and says whether it settles every lane; SettleInFp32Lanes
// (bce_with_logits_fp32_lane_evaluator-inl.h) takes the open vectors to the fp64 evaluator.

// kType's values of the fp32 v (to nearest even, onto the 16-bit grid).
template <FloatType kType>
HWY_INLINE V RoundOntoGrid(V v) {
  constexpr Grid kGrid = GridOf(kType);
  return HwyOpsOf<D>::RoundToGrid(v, kGrid.precision, kGrid.min_exponent);
}

// The loss without weights, where the step's terms are non-negative (ComputeInFp32 checks):
// max(x, 0) - x*t + log1p(exp(-|x|)), each term >= 0, the log term the fp32 one
// (kLog1pExpError32, |x| <= kExpArgMax32 as the evaluator checks) and two roundings, so within
// 2^-20.6 of the value, which is in (0, 81]: at least log1p(exp(-80)), a normal fp32, and no range
// check (fp16's subnormal grid included). Settled where FarFrom16Boundaries32 says so for every
// lane; open otherwise (about 2^-8.4 of random fp16 lanes, 2^-11.4 of bf16 ones).
template <FloatType kType>
struct Loss16InFp32 {
  Loss16InFp32(double /*scale64*/, float /*biased_reach_floor*/) {}
  template <size_t kStep>
  HWY_INLINE bool Vector(const Operands<kStep, false>& in, size_t j, V* result) const {
    using O32 = HwyOpsOf<D>;
    const V value = UnweightedLoss32<O32>(in.x[j], in.t[j], Log1pExpNeg32<O32>(hn::Abs(in.x[j])));
    *result = RoundOntoGrid<kType>(value);
    return hn::AllTrue(
        D(), FarFrom16Boundaries32<math::kLoss32Reach32>(value, kType == FloatType::kFloat16));
  }
};

// The loss with weight or pos_weight (either may be the constant 1): WeightedLoss32, w * S, whose
// error (kWeightedLoss32Error) is what kWeightedLoss32Reach32 reaches; t, w and p may be fp32 (only
// x is 16-bit). Settled where every lane passes that bit test with its value a normal fp32 below
// the grid's limit and S >= 2^-102, or has w = 0, whose loss is exactly +0 (S is finite for finite
// inputs, though in fp32 its linear term may overflow).
template <FloatType kType>
struct WeightedLoss16InFp32 {
  WeightedLoss16InFp32(double /*scale64*/, float /*biased_reach_floor*/) {}
  template <size_t kStep>
  HWY_INLINE bool Vector(const Operands<kStep, false>& in, size_t j, V* result) const {
    using O32 = HwyOpsOf<D>;
    constexpr bool kFp16 = kType == FloatType::kFloat16;
    const V w = in.w[j];
    const auto [inner, value] =
        WeightedLoss32<O32>(in.x[j], in.t[j], w, in.p[j], Log1pExpNeg32<O32>(hn::Abs(in.x[j])));
    const auto settled = hn::And(
        hn::And(
            FarFrom16Boundaries32<math::kWeightedLoss32Reach32>(value, kFp16),
            InNormalRange(value, kFp32LeastNormalBits, kFp16 ? kFp16LimitBits : kBf16LimitBits)),
        hn::Ge(inner, hn::Set(D(), 0x1p-102f)));
    const auto zero_weight = hn::Eq(w, hn::Zero(D()));
    *result = hn::IfThenZeroElse(zero_weight, RoundOntoGrid<kType>(value));
    return hn::AllTrue(D(), hn::Or(settled, zero_weight));
  }
};

// The self gradient, for a scale in [2^-64, 2^64]: (c - sign*l*m) * g*w*scale, l = 1 without
// weights, as one fused difference and a product (see kSigmoidComplementError32), the rounding
// tested per lane with a reach that grows as the difference cancels (FarFromBoundariesBy). With
// weights, lanes where g or w is 0 (g*w*scale finite) and the difference's sign is certain are
// exact zeros. Open where any lane is (about 1 in 200 fp16 lanes of random soft labels, far fewer
// for hard ones, whose difference hardly cancels) or out of the grid's normal range.
template <bool kUnweighted, FloatType kType>
struct GradSelf16InFp32 {
  V one = hn::Set(D(), 1.0f), zero = hn::Zero(D());
  V scale;
  V per_ratio = hn::Set(
      D(), kUnweighted ? math::kGradSelf32ReachPerRatio : math::kWeightedGradSelf32ReachPerRatio);
  V floor;
  GradSelf16InFp32(double scale64, float biased_reach_floor)
      : scale(hn::Set(D(), static_cast<float>(scale64))), floor(hn::Set(D(), biased_reach_floor)) {}

  template <size_t kStep>
  HWY_INLINE bool Vector(const Operands<kStep, false>& in, size_t j, V* result) const {
    const hn::RebindToUnsigned<D> du;
    const V x = in.x[j], t = in.t[j];
    const V e = ExpNeg32<HwyOpsOf<D>>(hn::Abs(x));
    const V r = one / (one + e);
    const auto x_non_negative = hn::Ge(x, zero);
    // x >= 0: (1 - t) - l*m; x < 0: l*m - p*t.
    V c, scaled_e, coef;
    if constexpr (kUnweighted) {
      c = hn::IfThenElseZero(x_non_negative, one) - t;
      scaled_e = e;
      coef = in.g[j] * scale;
    } else {
      const V pos_part = in.p[j] * t, neg_part = one - t;
      c = hn::IfThenElse(x_non_negative, neg_part, hn::Neg(pos_part));
      scaled_e = (neg_part + pos_part) * e;
      coef = (in.g[j] * in.w[j]) * scale;
    }
    const V d = hn::MulAdd(hn::IfThenElse(x_non_negative, hn::Neg(scaled_e), scaled_e), r, c);
    const V v = d * coef;
    const auto reach = ReachBits(
        hn::MulAdd((scaled_e * r) * hn::ApproximateReciprocal(hn::Abs(d)), per_ratio, floor));
    // g*w*scale a normal fp32 (not rounded below the normal range, nor infinite or NaN).
    const auto settled =
        hn::And(SettledOnGridBy<kType == FloatType::kFloat16>(v, reach),
                InNormalRange(hn::Abs(coef), kFp32LeastNormalBits, kFp32InfinityBits));
    bool all = hn::AllTrue(D(), settled);
    // With weights, the exact zeros (weights of 0 mask elements out), only where a lane is open
    // (without weights the branch alone cost 15% more instructions per step).
    if (!kUnweighted && HWY_UNLIKELY(!all)) {
      // g*w*scale finite too: 0 * inf is NaN, not a zero (the fp64 path gives it its NaN).
      const auto zero_coef =
          hn::And(hn::Or(hn::Eq(in.g[j], zero), hn::Eq(in.w[j], zero)), hn::IsFinite(coef));
      const auto sign_certain = hn::RebindMask(D(), hn::Lt(reach, hn::Set(du, kReachCap32)));
      all = hn::AllTrue(D(), hn::Or(settled, hn::And(zero_coef, sign_certain)));
    }
    *result = RoundOntoGrid<kType>(v);
    return all;
  }
};

// The target gradient with weight or pos_weight, for a scale in [2^-64, 2^64]:
// g*w*scale * ((p - 1)*L + K*|x|) as GradTarget64, the rounding tested per lane with a reach that
// grows as the inner sum cancels (kGradTarget32ReachPerRatio), where g*w*scale is a normal fp32 and
// the inner sum a finite one of at least 2^-100 (K*|x| rounded in fp32's subnormal range, for a
// subnormal fp32 p, is then below 2^-43 of it). Settled too, as exact zeros with the fp64 formula's
// sign: lanes where g or w is 0 (g*w*scale finite) and the inner sum's sign is certain (its reach
// below the cap), and those where x = 0 and p = 1 (the inner sum exactly +0) with g*w*scale finite.
template <FloatType kType>
struct GradTarget16InFp32 {
  V one = hn::Set(D(), 1.0f), zero = hn::Zero(D());
  V scale;
  V floor;
  GradTarget16InFp32(double scale64, float biased_reach_floor)
      : scale(hn::Set(D(), static_cast<float>(scale64))), floor(hn::Set(D(), biased_reach_floor)) {}

  template <size_t kStep>
  HWY_INLINE bool Vector(const Operands<kStep, false>& in, size_t j, V* result) const {
    using O32 = HwyOpsOf<D>;
    const hn::RebindToUnsigned<D> du;
    constexpr uint32_t kLeastInnerBits = 0x0d800000u;  // 2^-100
    const V x = in.x[j], p = in.p[j], g = in.g[j], w = in.w[j];
    const V a = hn::Abs(x);
    const V log_term = Log1pExpNeg32<O32>(a);
    const V log_coef = p - one;
    const V linear = a * hn::IfThenElse(hn::Lt(x, zero), p, hn::Neg(one));
    const V inner = hn::MulAdd(log_coef, log_term, linear);
    const V terms = hn::MulAdd(hn::Abs(log_coef), log_term, hn::Abs(linear));
    const V coef = (g * w) * scale;
    const V v = coef * inner;
    const auto reach = ReachBits(hn::MulAdd(terms * hn::ApproximateReciprocal(hn::Abs(inner)),
                                            hn::Set(D(), math::kGradTarget32ReachPerRatio), floor));
    const auto inner_in_range = InNormalRange(hn::Abs(inner), kLeastInnerBits, kFp32InfinityBits);
    const auto settled =
        hn::And(hn::And(SettledOnGridBy<kType == FloatType::kFloat16>(v, reach), inner_in_range),
                InNormalRange(hn::Abs(coef), kFp32LeastNormalBits, kFp32InfinityBits));
    const auto sign_certain = hn::RebindMask(D(), hn::Lt(reach, hn::Set(du, kReachCap32)));
    const auto zero_coef =
        hn::And(hn::And(hn::Or(hn::Eq(g, zero), hn::Eq(w, zero)), hn::IsFinite(coef)),
                hn::And(sign_certain, inner_in_range));
    const auto zero_inner = hn::And(hn::And(hn::Eq(x, zero), hn::Eq(p, one)), hn::IsFinite(coef));
    *result = RoundOntoGrid<kType>(v);
    return hn::AllTrue(D(), hn::Or(settled, hn::Or(zero_coef, zero_inner)));
  }
};

// The target gradient without weights, for N = 2^k (k <= 62; RouteTile): -x*g*2^-k, no
// transcendental. g*scale is exact where it is a normal fp32. A 16-bit result (`kType`) of 16-bit
// logits and gradOutput: the product of two 16-bit values (at most 22 bits) is exact too wherever
// the value is a normal fp32, and its rounding onto the grid is then the result. An fp32 result:
// the product's own rounding is the result (IEEE rounds it once, correctly), here where it is a
// normal fp32. Formed as GradTarget64 forms it (x >= 0: 0 - |x|), so that the exact zeros (x or g
// zero, x and g*scale finite) get its sign.
template <FloatType kType>
struct ExactGradTargetInFp32 {
  V zero = hn::Zero(D());
  V scale;
  ExactGradTargetInFp32(double scale64, float /*biased_reach_floor*/)
      : scale(hn::Set(D(), static_cast<float>(scale64))) {}

  template <size_t kStep>
  HWY_INLINE bool Vector(const Operands<kStep, false>& in, size_t j, V* result) const {
    constexpr uint32_t kLimitBits = kType == FloatType::kFloat32   ? kFp32InfinityBits
                                    : kType == FloatType::kFloat16 ? kFp16LimitBits
                                                                   : kBf16LimitBits;
    const V x = in.x[j], g = in.g[j];
    const V a = hn::Abs(x);
    const V scaled_g = g * scale;
    const V v = scaled_g * hn::IfThenElse(hn::Lt(x, zero), a, zero - a);
    const auto exact =
        hn::And(InNormalRange(hn::Abs(v), kFp32LeastNormalBits, kLimitBits),
                InNormalRange(hn::Abs(scaled_g), kFp32LeastNormalBits, kFp32InfinityBits));
    const auto exact_zero = hn::And(hn::Or(hn::Eq(x, zero), hn::Eq(g, zero)),
                                    hn::And(hn::IsFinite(scaled_g), hn::IsFinite(x)));
    if constexpr (kType == FloatType::kFloat32) {
      *result = v;
    } else {
      *result = RoundOntoGrid<kType>(v);
    }
    return hn::AllTrue(D(), hn::Or(exact, exact_zero));
  }
};

// The kernel of a kind (the fused pass: kGradSelf) with or without weights, for output type kType.
template <LossKind kKind, bool kUnweighted, FloatType kType>
using Fp32LaneKernel = std::conditional_t<
    kKind == LossKind::kLoss,
    std::conditional_t<kUnweighted, Loss16InFp32<kType>, WeightedLoss16InFp32<kType>>,
    std::conditional_t<
        kKind == LossKind::kGradSelf, GradSelf16InFp32<kUnweighted, kType>,
        std::conditional_t<kUnweighted, ExactGradTargetInFp32<kType>, GradTarget16InFp32<kType>>>>;

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FP32_LANE_KERNELS_INL_H_
