// The smooth L1 family's evaluator (aclnnSmoothL1Loss, its Backward, and the Huber variant): the
// family's fp64 estimates (losses/smooth_l1_loss/smooth_l1_loss_formulas.inc) on the fp64 halves
// of float vectors, each value settled as numerics-smooth-l1-loss.md §5 says: the bit test on the
// value alone (its reach, kSmoothL1Reach); in a vector it leaves open, lane by lane, that test or
// an exact numerator times an exact scale (the value itself, rounded once); the rest by the
// family's scalar Element. A mean's or sum's terms go into the block sums as they are. Re-included
// once per Highway target (the toggle guard below); defines its code inside namespace
// openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_LOSSES_SMOOTH_L1_LOSS_CPU_EVALUATOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_SMOOTH_L1_LOSS_CPU_EVALUATOR_INL_H_
#undef OPENACLNN_LOSSES_SMOOTH_L1_LOSS_CPU_EVALUATOR_INL_H_
#else
#define OPENACLNN_LOSSES_SMOOTH_L1_LOSS_CPU_EVALUATOR_INL_H_
#endif

#include "backends/cpu/simd/evaluator_base-inl.h"
#include "backends/cpu/simd/fp64_rounding-inl.h"
#include "backends/cpu/simd/rounding_bits-inl.h"
#include "backends/cpu/simd/vector_ops-inl.h"
#include "hwy/highway.h"
#include "losses/smooth_l1_loss/smooth_l1_loss_family.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The family's formulas, compiled for this target (see transcendentals.inc); they name
// Estimate64 and FiniteZero (estimate.inc) and the family's constants in openaclnn::math. Called
// with the callee's name in parentheses, as the formulas call each other (see there).
#include "losses/smooth_l1_loss/smooth_l1_loss_formulas.inc"

// The reach of the 16-bit bit test that rounds through fp32 (SettledOnGrid16): the estimates'
// kSmoothL1Reach, plus fp32's half ulp (2^28 fp64 ulps) by which that first rounding moves the
// value, so that it cannot land on a 16-bit boundary (an fp32 number) on the exact value's other
// side. Lanes of a vector it leaves open are tested again at kSmoothL1Reach and rounded onto the
// grid in fp64 (RoundOpen16), where no fp32 rounding comes first.
inline constexpr uint64_t kSmoothL1Reach16 = (uint64_t{1} << 28) + 2 * math::kSmoothL1Reach;

// What a kind reads: self and target always (the target gradient too), gradOutput for the
// gradients; never a weight.
constexpr OperandsRead SmoothL1OperandsReadBy(LossKind kind) {
  return {true, kind != LossKind::kLoss, false, false};
}

// A kind's evaluator of kStep float vectors at once: kLoss (stored and/or summed), kGradSelf or
// kGradTarget (the self gradient of -g), on operands staged as contiguous fp32 (Source).
template <LossKind kKind>
struct SmoothL1Evaluator : StepsByCompute<SmoothL1Evaluator<kKind>,
                                          EvaluatorBase<SmoothL1LossFamily, kKind, false, true,
                                                        Source, SmoothL1OperandsReadBy(kKind)>> {
  using Base =
      EvaluatorBase<SmoothL1LossFamily, kKind, false, true, Source, SmoothL1OperandsReadBy(kKind)>;
  using SourceT = Source;
  using Base::targets;
  static constexpr SharedType kStoredAs = SharedType::kMixed;
  static constexpr bool kSumsIn32 = false;
  static constexpr bool kGradient = kKind != LossKind::kLoss;

  // The problem's constants: an element's (divided by N) and a mean's or sum's term's.
  math::SmoothL1Constants element = SmoothL1ElementConstants(this->parameters);
  math::SmoothL1Constants term = SmoothL1TermConstants(this->parameters);

  template <size_t kStep>
  void Compute(const Operands<kStep, true>& in, int64_t i, StepResults<kStep>& results) const {
    using O64 = WideOps64<2 * kStep>;
    const auto &x64 = in.x64, &t64 = in.t64;
    if constexpr (kGradient) {
      const auto g64 = kKind == LossKind::kGradTarget ? O64::Neg(in.g64) : in.g64;
      const auto gradient = (SmoothL1Gradient64<O64>)(x64, t64, g64, element);
      results.value = Round<kStep, true>(NaNWhereDIs(gradient.value, x64 - t64), i, [&] {
        return ExactLanes(x64, t64, (SmoothL1GradientRest64<O64>)(x64, t64, g64, element));
      });
    } else {
      if (targets.sum) {
        const Fp64Rounding<Base> rounding{*this};
        results.sum = rounding.template SumTerms<kStep>((SmoothL1Loss64<O64>)(x64, t64, term), i,
                                                        &results.bound);
      }
      if (targets.store_value) {
        const auto loss = (SmoothL1Loss64<O64>)(x64, t64, element);
        results.value = Round<kStep, false>(loss.value, i, [&] {
          return ExactLanes(x64, t64, (SmoothL1LossRest64<O64>)(x64, t64, element));
        });
      }
    }
  }

  // `value`, NaN where d is: the linear branch's g sign(d) is finite there, which no test may
  // settle (the result is NaN: the family's Element gives it).
  template <size_t kParts>
  static Wide64<kParts> NaNWhereDIs(Wide64<kParts> value, const Wide64<kParts>& d) {
    for (size_t k = 0; k < kParts; ++k) {
      value.part[k] = hn::IfThenElse(hn::IsNaN(d.part[k]), d.part[k], value.part[k]);
    }
    return value;
  }

  // The lanes whose value is exact: a numerator whose rest is 0 on a branch whose scale is
  // exactly 1 / its divisor (SmoothL1Constants::quadratic_exact, linear_exact).
  template <size_t kParts>
  WideMask64<kParts> ExactLanes(const Wide64<kParts>& x64, const Wide64<kParts>& t64,
                                const Wide64<kParts>& rest) const {
    const V64 zero = hn::Zero(D64()), threshold = hn::Set(D64(), element.threshold);
    WideMask64<kParts> exact;
    for (size_t k = 0; k < kParts; ++k) {
      const auto quadratic = hn::Lt(hn::Abs(x64.part[k] - t64.part[k]), threshold);
      const auto all = hn::Eq(zero, zero), none = hn::Ne(zero, zero);
      const auto scale_exact = element.quadratic_exact
                                   ? (element.linear_exact ? all : quadratic)
                                   : (element.linear_exact ? hn::Not(quadratic) : none);
      exact.part[k] = hn::And(hn::Eq(rest.part[k], zero), scale_exact);
    }
    return exact;
  }

  // The step's values rounded to the output type: vectors the bit test settles whole as they are;
  // in the rest, lane by lane, the bit test or an exact value (`exact_lanes()`, its value rounded
  // once), the others by the family's Element. kSigned: a gradient, tested by its magnitude.
  template <size_t kStep, bool kSigned, class ExactLanesOp>
  Vectors<kStep> Round(const Wide64<2 * kStep>& value, int64_t i, ExactLanesOp exact_lanes) const {
    const FloatType type = targets.value_type;
    Vectors<kStep> values;
    bool open[kStep];
    bool any_open = false;
    for (size_t j = 0; j < kStep; ++j) {
      const V64 lower = value.part[2 * j], upper = value.part[2 * j + 1];
      if (type == FloatType::kFloat32) {
        values[j] = Narrow(lower, upper);
        open[j] = !hn::AllTrue(D64(), hn::And(Settles32(lower), Settles32(upper)));
      } else {
        open[j] = !SettledOnGrid16<kSigned>(lower, upper, type,
                                            FarFrom16Boundaries<kSmoothL1Reach16>, &values[j]);
      }
      any_open = any_open || open[j];
    }
    if (HWY_LIKELY(!any_open)) return values;
    const auto exact = exact_lanes();
    for (size_t j = 0; j < kStep; ++j) {
      if (!open[j]) continue;
      const V64 lower = value.part[2 * j], upper = value.part[2 * j + 1];
      const int64_t at = i + static_cast<int64_t>(j) * Base::kLanes;
      if (type != FloatType::kFloat32) {
        values[j] =
            RoundOpen16<kSigned>(lower, upper, exact.part[2 * j], exact.part[2 * j + 1], at, type);
        continue;
      }
      // fp32: an exact value's conversion is its one rounding, as a far one's is.
      const auto settled_lower = hn::Or(Settles32(lower), exact.part[2 * j]);
      const auto settled_upper = hn::Or(Settles32(upper), exact.part[2 * j + 1]);
      if (hn::AllTrue(D64(), hn::And(settled_lower, settled_upper))) continue;
      values[j] =
          this->SettleLanes(kKind, type, LanesOf(settled_lower, settled_upper), at, values[j]);
    }
    return values;
  }

  // Lanes of fp64 v (a value within kSmoothL1Reach fp64 ulps of the exact one) whose conversion
  // to fp32 is the exact value's rounding: farther than the reach from every rounding boundary of
  // v's binade (FarFromBoundaries), which is one of fp32's normal binades (|v| from 2^-126, where
  // the boundaries below are as far apart; to fp32's largest, beyond which it overflows).
  static hn::Mask<D64> Settles32(V64 v) {
    const V64 magnitude = hn::Abs(v);
    const auto normal = hn::And(hn::Ge(magnitude, hn::Set(D64(), 0x1p-126)),
                                hn::Le(magnitude, hn::Set(D64(), 0x1.fffffep127)));
    return hn::And(FarFromBoundaries<24, math::kSmoothL1Reach>(v), normal);
  }

  // A 16-bit vector (its fp64 halves) the bit test through fp32 left open: its value rounded once
  // onto the grid in fp64 (correct where it is exact or far from every boundary, now at
  // kSmoothL1Reach), the lanes neither settles by the family's Element.
  template <bool kSigned>
  HWY_NOINLINE V RoundOpen16(V64 lower, V64 upper, hn::Mask<D64> exact_lower,
                             hn::Mask<D64> exact_upper, int64_t at, FloatType type) const {
    const bool fp16 = type == FloatType::kFloat16;
    const auto magnitude = [](V64 v) { return kSigned ? hn::Abs(v) : v; };
    const V far = LanesOf(FarFrom16Boundaries<math::kSmoothL1Reach>(magnitude(lower), fp16),
                          FarFrom16Boundaries<math::kSmoothL1Reach>(magnitude(upper), fp16));
    const V exact = LanesOf(exact_lower, exact_upper);
    const hn::Mask<D> settled =
        hn::Or(hn::And(hn::Ne(far, hn::Zero(D())), InRange16<kSigned>(Narrow(lower, upper), type)),
               hn::Ne(exact, hn::Zero(D())));
    const Grid grid = GridOf(type);
    const V rounded = Narrow(HwyOpsOf<D64>::RoundToGrid(lower, grid.precision, grid.min_exponent),
                             HwyOpsOf<D64>::RoundToGrid(upper, grid.precision, grid.min_exponent));
    if (hn::AllTrue(D(), settled)) return rounded;
    return this->SettleLanes(kKind, type, hn::VecFromMask(D(), settled), at, rounded);
  }

  // Two fp64 masks (of a float vector's lower and upper half) as a float vector, nonzero in their
  // lanes (what SettleLanes reads).
  static V LanesOf(hn::Mask<D64> lower, hn::Mask<D64> upper) {
    const V64 one = hn::Set(D64(), 1.0);
    return Narrow(hn::IfThenElseZero(lower, one), hn::IfThenElseZero(upper, one));
  }
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_SMOOTH_L1_LOSS_CPU_EVALUATOR_INL_H_
