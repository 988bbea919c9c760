// The part of a tile's evaluator that the fp64 and the fp32-lane evaluators share.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <array>
#include <cmath>
#include <cstdint>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_EVALUATOR_BASE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_EVALUATOR_BASE_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_EVALUATOR_BASE_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_EVALUATOR_BASE_INL_H_
#endif

#include "backends/cpu/simd/step_values-inl.h"
#include "hwy/highway.h"
#include "kernels/element_inputs.h"
#include "kernels/loss_problem.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// Whether |scale| is in [2^-64, 2^64] (its fp32 rounding then a normal number).
inline bool InScaleRange(double scale) {
  return std::fabs(scale) >= 0x1p-64 && std::fabs(scale) <= 0x1p64;
}

// What every evaluator shares: the operands a kind reads (sources, each a SourceT), how a step
// loads them, and the per-element paths their rare lanes take out of line, through the family's
// element functions (Family: a family struct, kernels/loss_families.h). kFused (with kLoss): the
// self gradient too. kUnweighted: weight and pos_weight are absent, and read as the constant 1 the
// compiler folds away (x * 1 is x), as is every operand kOperandsRead leaves out.
template <class Family, LossKind kKind, bool kFused, bool kUnweighted, class SourceT,
          OperandsRead kOperandsRead = OperandsReadBy(kKind, kFused, kUnweighted)>
struct EvaluatorBase {
  static constexpr OperandsRead kReads = kOperandsRead;
  static constexpr bool kWithGradient = kFused;
  static constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(D()));
  template <size_t kStep>
  static constexpr int64_t kStepLanes = static_cast<int64_t>(kStep) * kLanes;

  std::array<SourceT, kOut> sources;  // from StageInputs: the operands the kind reads
  int64_t count;                      // elements of the tile
  ElementParameters parameters;
  Targets targets;
  double scale64 = parameters.scale;  // what estimates multiply by (about 1 / parameters.divisor)
  // Decided once per tile, not on every step: whether scale64 is 1 / divisor itself, a power of two
  // 2^-k, k <= 62 (ScaleIsExact: a product of two fp32 values times it is then the exact quotient
  // in fp64, neither overflow nor underflow reaching it), and whether it is in range
  // (InScaleRange).
  bool scale_is_exact = ScaleIsExact(parameters);
  bool scale_in_range = InScaleRange(scale64);

  // The operands of the whole step at i; kWide: with their fp64 parts.
  template <size_t kStep, bool kWide>
  Operands<kStep, kWide> LoadStep(int64_t i) const {
    return Load<kStep, kWide>([&](const auto& source, int64_t at) { return source.Load(at); }, i,
                              true);
  }
  // The n < kStep * lanes elements from i, the step's other lanes 0.
  template <size_t kStep, bool kWide>
  Operands<kStep, kWide> LoadPartial(int64_t i, int64_t n) const {
    return Load<kStep, kWide>(
        [&](const auto& source, int64_t at) {
          return source.LoadPartial(at, std::clamp<int64_t>(n - (at - i), 0, kLanes));
        },
        i, false);
  }

  // The operands of the step at i, by `load`; those the kind does not read are 1. Where the
  // step is `whole`, the fp64 parts are converted straight from memory: a conversion that
  // loads its half vector needs no shuffle to split a float vector in registers (x86: one
  // vector instruction instead of two or three).
  template <size_t kStep, bool kWide, class LoadOp>
  Operands<kStep, kWide> Load(LoadOp load, int64_t i, bool whole) const {
    Operands<kStep, kWide> in;
    const V one = hn::Set(D(), 1.0f);
    for (size_t j = 0; j < kStep; ++j) {
      const int64_t at = i + static_cast<int64_t>(j) * kLanes;
      in.x[j] = load(sources[kSelf], at);
      in.t[j] = kReads.target ? load(sources[kTarget], at) : one;
      in.g[j] = kReads.grad_output ? load(sources[kGradOutput], at) : one;
      in.w[j] = kReads.weight ? load(sources[kWeight], at) : one;
      in.p[j] = kReads.pos_weight ? load(sources[kPosWeight], at) : one;
    }
    if constexpr (kWide) WidenInto(in, i, whole);
    return in;
  }
  // The fp64 parts of the operands of the step at i.
  template <size_t kStep>
  void WidenInto(Operands<kStep, true>& in, int64_t i, bool whole) const {
    const auto widen = [&](const Vectors<kStep>& v, int which, bool read) {
      if (!read) return WideOps64<2 * kStep>::Set(1.0);
      if (!whole || SourceT::kNarrow) return Widen(v);  // a NarrowSource may not be fp32 in memory
      return EachPart<2 * kStep>([&](size_t k) {
        const float* half = static_cast<const float*>(sources[which].data) + i +
                            static_cast<int64_t>(k * kLanes / 2);
        return hn::PromoteTo(D64(), hn::LoadU(hn::Half<D>(), half));
      });
    };
    in.x64 = widen(in.x, kSelf, true);
    in.t64 = widen(in.t, kTarget, kReads.target);
    in.g64 = widen(in.g, kGradOutput, kReads.grad_output);
    in.w64 = widen(in.w, kWeight, kReads.weight);
    in.p64 = widen(in.p, kPosWeight, kReads.pos_weight);
  }

  // Whether the step's loss terms are all non-negative: t in [0, 1], w and p (where read) finite
  // and >= 0 (NonNegativeLoss64), each an unsigned range of the float's bits (-0 is outside it).
  template <size_t kStep, bool kWide>
  static bool NonNegativeTerms(const Operands<kStep, kWide>& in) {
    auto lanes = NonNegativeLanes(in, 0);
    for (size_t j = 1; j < kStep; ++j) lanes = hn::And(lanes, NonNegativeLanes(in, j));
    return hn::AllTrue(D(), lanes);
  }
  template <size_t kStep, bool kWide>
  static hn::Mask<D> NonNegativeLanes(const Operands<kStep, kWide>& in, size_t j) {
    const auto lanes = AtMostBits(in.t[j], kOneBits);  // element_inputs.h's ranges
    if constexpr (kUnweighted) return lanes;
    const auto weight = AtMostBits(in.w[j], kLargestFiniteBits);
    if constexpr (!kReads.pos_weight) return hn::And(lanes, weight);
    return hn::And(lanes, hn::And(weight, AtMostBits(in.p[j], kLargestFiniteBits)));
  }
  // Lanes whose bits, unsigned, are at most `high`: v in [+0, the float of `high`].
  static hn::Mask<D> AtMostBits(V v, uint32_t high) {
    const hn::RebindToUnsigned<D> du;  // Highway 1.0 has no unsigned Le
    return hn::RebindMask(D(), hn::Lt(hn::BitCast(du, v), hn::Set(du, high + 1)));
  }

  // The lanes of the vector at `at` by the family's scalar fp64 loss term (out of line: the rare
  // case of an input outside the formulas' domain); lanes past the tile are 0.
  HWY_NOINLINE V ReferenceLanes(int64_t at) const {
    HWY_ALIGN float values[kLanes] = {};
    for (int64_t lane = 0; lane < kLanes && at + lane < count; ++lane) {
      values[lane] = static_cast<float>(
          Family::Term(LossKind::kLoss, parameters, ElementAt(at + lane), false, kUnweighted)
              .value);
    }
    return hn::Load(D(), values);
  }

  // The lanes of the vector at `at` that the estimates left unsettled (settled lanes 0)
  // recomputed by the family's scalar element function from the inputs in memory; out of line, so
  // the common path keeps its registers. Lanes past the tile are left as they are.
  HWY_NOINLINE V SettleLanes(LossKind kind, FloatType type, V settled, int64_t at,
                             V rounded) const {
    HWY_ALIGN float values[kLanes];
    HWY_ALIGN float settled_lanes[kLanes];
    hn::Store(rounded, D(), values);
    hn::Store(settled, D(), settled_lanes);
    for (int64_t lane = 0; lane < kLanes && at + lane < count; ++lane) {
      if (BitCast<uint32_t>(settled_lanes[lane]) != 0) continue;
      values[lane] = Family::Element(kind, parameters, ElementAt(at + lane), type);
    }
    return hn::Load(D(), values);
  }

  // Element k's inputs, those the kind does not read as 1.
  ElementInputs ElementAt(int64_t k) const {
    ElementInputs element;
    element.x = sources[kSelf].Element(k);
    element.t = kReads.target ? sources[kTarget].Element(k) : 1.0f;
    element.g = kReads.grad_output ? sources[kGradOutput].Element(k) : 1.0f;
    element.w = kReads.weight ? sources[kWeight].Element(k) : 1.0f;
    element.p = kReads.pos_weight ? sources[kPosWeight].Element(k) : 1.0f;
    return element;
  }
};

// At and AtPartial, what the tile loops call, for an evaluator (CRTP: Evaluator derives from this,
// this from its EvaluatorBase) whose step is Compute(operands, i, results) on its operands loaded
// whole, or the n < kStep * lanes elements from i with the step's other lanes 0 (kWide: with
// their fp64 parts).
template <class Evaluator, class Base, bool kWide = true>
struct StepsByCompute : Base {
  template <size_t kStep>
  StepResults<kStep> At(int64_t i) const {
    StepResults<kStep> results;
    Self().template Compute<kStep>(this->template LoadStep<kStep, kWide>(i), i, results);
    return results;
  }
  template <size_t kStep>
  StepResults<kStep> AtPartial(int64_t i, int64_t n) const {
    StepResults<kStep> results;
    Self().template Compute<kStep>(this->template LoadPartial<kStep, kWide>(i, n), i, results);
    return results;
  }

 private:
  const Evaluator& Self() const { return static_cast<const Evaluator&>(*this); }
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_EVALUATOR_BASE_INL_H_
