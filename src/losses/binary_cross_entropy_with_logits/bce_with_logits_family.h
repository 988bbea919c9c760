// One element of every BCE-with-logits kind, as a host/device function: the definition that the
// CPU's scalar path runs, that every SIMD target must match bit for bit (its SIMD lanes that do not
// settle come here), and that a GPU thread runs. Inputs are already widened to fp32; absent
// operands (weight, pos_weight, gradOutput) read as 1.
#pragma once

#include <cmath>

#include "kernels/element_inputs.h"
#include "kernels/loss_problem.h"
#include "kernels/rounded_element.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_exact.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_math.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_reference.h"

namespace openaclnn {

// Whether every input of `kind` at this element is finite (the exact formulas' domain).
OPENACLNN_HOST_DEVICE inline bool AllFinite(LossKind kind, const ElementInputs& in) {
  const bool shared = std::isfinite(in.x) && std::isfinite(in.w) && std::isfinite(in.p);
  const bool target = kind == LossKind::kGradTarget || std::isfinite(in.t);
  const bool gradient = kind == LossKind::kLoss || std::isfinite(in.g);
  return shared && target && gradient;
}

// The fp64 estimate of `kind` at one element and its error bound (bce_with_logits_math.h); the
// bound is NaN where an input is not finite. For a gradient, times `gradient_scale` (1/N for mean).
OPENACLNN_HOST_DEVICE inline ElementEstimate BceEstimate(LossKind kind, double gradient_scale,
                                                         const ElementInputs& in) {
  using O64 = math::ScalarOps64;
  const double x = in.x, t = in.t, w = in.w, p = in.p, g = in.g, a = std::fabs(x);
  switch (kind) {
    case LossKind::kLoss:
      return math::Loss64<O64>(x, t, w, p, math::Log1pExpNeg64<O64>(a));
    case LossKind::kGradSelf: {
      const double e = math::ExpNeg64<O64>(a);
      const double reciprocal = math::Reciprocal1pSplit<O64>(math::SplitUnit<O64>(e));
      return math::GradSelf64<O64>(x, t, w, p, g, gradient_scale, e, reciprocal);
    }
    default:
      // p = 1 (no pos_weight): the log term's coefficient is 0, skip computing it.
      const double log_term = in.p == 1.0f ? 0.0 : math::Log1pExpNeg64<O64>(a);
      return math::GradTarget64<O64>(x, w, p, g, gradient_scale, log_term);
  }
}

// The same formula in double-double (finite inputs), for the rare estimate that does not settle.
OPENACLNN_HOST_DEVICE inline math::exact::DD BceExact(LossKind kind, double gradient_scale,
                                                      const ElementInputs& in) {
  switch (kind) {
    case LossKind::kLoss:
      return math::exact::Loss(in.x, in.t, in.w, in.p);
    case LossKind::kGradSelf:
      return math::exact::GradSelf(in.x, in.t, in.w, in.p, in.g, gradient_scale);
    default:
      return math::exact::GradTarget(in.x, in.w, in.p, in.g, gradient_scale);
  }
}

// Where an input is not finite: the reference formula in fp32, which decides the class (NaN,
// +inf, -inf) of the result, a NaN made kCanonicalNaN (only such inputs give NaN).
OPENACLNN_HOST_DEVICE inline double BceReference(LossKind kind, double gradient_scale,
                                                 const ElementInputs& in) {
  using O = math::ScalarOps;
  const float scale = static_cast<float>(gradient_scale);
  switch (kind) {
    case LossKind::kLoss:
      return CanonicalNaN(math::ReferenceLoss<O>(in.x, in.t, in.w, in.p));
    case LossKind::kGradSelf:
      return CanonicalNaN(math::ReferenceGradSelf<O>(in.x, in.t, in.w, in.p, in.g) * scale);
    default:
      return CanonicalNaN(math::ReferenceGradTarget<O>(in.x, in.w, in.p, in.g) * scale);
  }
}

// The value of `kind` at one element divided by parameters.divisor (N for a mean's gradient),
// correctly rounded once to the output type `type` (returned as fp32, exactly): the fp64 estimate
// (times parameters.scale, whose own rounding is inside kEstimateError64's margin) where its
// rounding is certain, else the double-double formula divided exactly (RoundedQuotient: a
// rational value, x = 0 say, may lie exactly on a rounding boundary); the reference formula where
// an input is not finite.
OPENACLNN_HOST_DEVICE inline float BceElement(LossKind kind, const ElementParameters& parameters,
                                              const ElementInputs& in, FloatType type) {
  if (!AllFinite(kind, in)) return RoundedTo(BceReference(kind, parameters.scale, in), type);
  double settled = 0.0;
  if (SettledIn(BceEstimate(kind, parameters.scale, in), type, &settled)) {
    return RoundedTo(settled, type);
  }
  return RoundedTo(math::exact::RoundedQuotient(BceExact(kind, 1.0, in), parameters.divisor, type),
                   type);
}

// What mean and sum add for one element of the loss: its estimate and bound, or where an input
// is not finite the reference value (with a NaN bound).
OPENACLNN_HOST_DEVICE inline ElementEstimate BceLossTerm(const ElementInputs& in) {
  if (!AllFinite(LossKind::kLoss, in)) {
    return {BceReference(LossKind::kLoss, 1.0, in), BitCast<double>(~uint64_t{0})};
  }
  return BceEstimate(LossKind::kLoss, 1.0, in);
}

// What a mean or sum adds for one element of the loss where SumsFp32Terms says so: the loss in
// fp32 with a bound of kLossTerm32Bound of its value, where its error holds: |x| <=
// kExpArgMax32 and t in [+0, 1] (as a bit range: -0 is outside); `unweighted` (weight and
// pos_weight absent, as every backend sees them) UnweightedLoss32, else WeightedLoss32 for w and
// p in [+0, FLT_MAX] with S >= 2^-102 and w * S a normal fp32 above 2^-126, or w = +0 with S
// finite (the term then exactly +0); BceLossTerm's fp64 term otherwise. An 11- or 8-bit total needs
// no more: its rounding test fails for about 1 fp16 total in 400 and 1 bf16 total in 3000 (random
// logits within +-8), which the fp64 terms then settle.
OPENACLNN_HOST_DEVICE inline ElementEstimate BceLossTerm32(const ElementInputs& in,
                                                           bool unweighted) {
  using O32 = math::ScalarOps;
  const float a = std::fabs(in.x);
  const bool in_domain = a <= math::kExpArgMax32 && BitCast<uint32_t>(in.t) <= kOneBits &&
                         (unweighted || (BitCast<uint32_t>(in.w) <= kLargestFiniteBits &&
                                         BitCast<uint32_t>(in.p) <= kLargestFiniteBits));
  if (!in_domain) return BceLossTerm(in);
  if (unweighted) {
    const double value = math::UnweightedLoss32<O32>(in.x, in.t, math::Log1pExpNeg32<O32>(a));
    return {value, value * math::kLossTerm32Bound};
  }
  const auto loss = math::WeightedLoss32<O32>(in.x, in.t, in.w, in.p, math::Log1pExpNeg32<O32>(a));
  const bool bounded =
      (loss.inner >= 0x1p-102f && loss.value > 0x1p-126f && loss.value <= 0x1.fffffep127f) ||
      (in.w == 0.0f && std::isfinite(loss.inner));
  if (!bounded) return BceLossTerm(in);
  const double value = loss.value;
  return {value, value * math::kLossTerm32Bound};
}

// What the exact pass of mean and sum adds for one element: its loss in double-double, or where
// an input is not finite the reference value (as BceLossTerm).
OPENACLNN_HOST_DEVICE inline math::exact::DD BceExactLossTerm(const ElementInputs& in) {
  if (!AllFinite(LossKind::kLoss, in)) return {BceReference(LossKind::kLoss, 1.0, in), 0.0};
  return BceExact(LossKind::kLoss, 1.0, in);
}

// Every op of the with-logits family.
inline constexpr uint64_t kBceWithLogitsKernelOps =
    KernelOpBit(LossFamily::kBceWithLogits, KernelOp::kLoss) |
    KernelOpBit(LossFamily::kBceWithLogits, KernelOp::kGradSelf) |
    KernelOpBit(LossFamily::kBceWithLogits, KernelOp::kGradTarget) |
    KernelOpBit(LossFamily::kBceWithLogits, KernelOp::kLossAndGrad);

// The with-logits family as the backends' generic code sees it (kernels/loss_families.h).
struct BceWithLogitsFamily {
  static constexpr LossFamily kFamily = LossFamily::kBceWithLogits;
  // The relative error bound of every loss term's estimate (reduction.h: PartialsTotal).
  static constexpr double kTermError = math::kEstimateError64;
  OPENACLNN_HOST_DEVICE static float Element(LossKind kind, const ElementParameters& parameters,
                                             const ElementInputs& in, FloatType type) {
    return BceElement(kind, parameters, in, type);
  }
  // Whether a mean or sum adds fp32 terms in its first pass (BceLossTerm32): where the logits and
  // the result are 16-bit, and so is the gradient where one is computed in the same pass
  // (`fused`, of type `gradient`). Every backend chooses by this rule, so that their blocks' sums
  // are the same bits; where the total's rounding test fails, the partials are formed again with
  // BceLossTerm's fp64 terms (ReductionPass::kFp64Terms, no gradient stored again) before any
  // exact pass.
  OPENACLNN_HOST_DEVICE static constexpr bool SumsFp32Terms(FloatType self, FloatType result,
                                                            bool fused, FloatType gradient) {
    return self != FloatType::kFloat32 && result != FloatType::kFloat32 &&
           (!fused || gradient != FloatType::kFloat32);
  }
  // What a mean or sum adds for one element of the loss (the family sums nothing else): fp32
  // terms where SumsFp32Terms said so.
  OPENACLNN_HOST_DEVICE static ElementEstimate Term(LossKind, const ElementParameters&,
                                                    const ElementInputs& in, bool fp32_terms,
                                                    bool unweighted) {
    return fp32_terms ? BceLossTerm32(in, unweighted) : BceLossTerm(in);
  }
  OPENACLNN_HOST_DEVICE static void AddExactTerm(LossKind, const ElementParameters&,
                                                 const ElementInputs& in,
                                                 math::exact::ExactSum& sum) {
    sum.Add(BceExactLossTerm(in));
  }
  OPENACLNN_HOST_DEVICE static double TermDenominator(const ElementParameters&) { return 1.0; }
};

}  // namespace openaclnn
