// The MSE family (aclnnMseLoss, aclnnMseLossOut, aclnnMseLossBackward) as the backends' generic
// code sees it: d = x - t (self minus target), the loss d^2 (kLoss) and the gradient w.r.t. self
// 2 g d (kGradSelf), each divided by the element's divisor and correctly rounded once; its means
// and sums add fp64 terms whose exact forms are sums of exact products of doubles. The formulas,
// bounds and exact forms: mse_loss_math.h, mse_loss_error_budget.h.
//
// Domain: x, t, g fp32 values (16-bit inputs widened exactly); p.divisor in [1, 2^63). Where an
// input the kind reads is not finite (the loss reads x and t, the gradient g too), the result is
// what IEEE arithmetic gives the formula: +-inf, or NaN (inf - inf, 0 * inf), NaN made
// kCanonicalNaN. Zeros: the loss's is +0; the gradient's has the sign of the product of g's and
// d's signs, d = -0 only for (-0) - (+0); a nonzero value that underflows keeps its own sign.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/loss_problem.h"
#include "kernels/rounded_element.h"
#include "losses/mse_loss/mse_loss_math.h"

namespace openaclnn {

struct MseLossFamily {
  static constexpr LossFamily kFamily = LossFamily::kMseLoss;
  // Both kinds' terms (mse_loss_error_budget.h).
  static constexpr double kTermError = math::kMseTermError;

  // One element of `kind` (kLoss, or else kGradSelf: the family has no other) correctly rounded
  // once to `type`: RN(term / p.divisor). A power-of-two divisor with an exact difference (nearly
  // every element of none and sum) is exact at once (MseScaledProductToOdd); elsewhere the fp64
  // estimate where its rounding is certain, and the exact quotient (RoundedQuotient) for the rest.
  OPENACLNN_HOST_DEVICE static float Element(LossKind kind, const ElementParameters& p,
                                             const ElementInputs& in, FloatType type) {
    const bool loss = kind == LossKind::kLoss;
    if (!InputsFinite(loss, in)) return RoundedTo(Estimate(kind, p, in).value, type);
    double value = 0.0;
    if ((p.divisor & (p.divisor - 1)) == 0 &&
        math::exact::MseScaledProductToOdd(loss, in.x, in.t, in.g, p.scale, &value)) {
      return RoundedTo(value, type);
    }
    if (SettledIn(Estimate(kind, p, in), type, &value)) return RoundedTo(value, type);
    // Not a zero (that one settles: bound 0), so the quotient's +0 for a zero sum never applies.
    math::exact::ExactSum sum;
    AddExactTerm(kind, p, in, sum);
    return RoundedTo(
        math::exact::RoundedQuotient(sum, math::exact::DivisorOf(1.0, p.divisor), type), type);
  }

  // A mean's or sum's term of `kind`, not divided: its fp64 estimate within kTermError of its
  // magnitude; where an input is not finite, IEEE arithmetic's value (+inf, or NaN, or +-inf for
  // the gradient: the class the total takes) with a NaN bound.
  OPENACLNN_HOST_DEVICE static ElementEstimate Term(LossKind kind, const ElementParameters&,
                                                    const ElementInputs& in, bool, bool) {
    using O64 = math::ScalarOps64;
    return kind == LossKind::kLoss ? math::MseLossTerm64<O64>(in.x, in.t)
                                   : math::MseGradientTerm64<O64>(in.x, in.t, in.g);
  }

  // The term's exact value added to `sum`, exactly (mse_loss_math.h). An input that is not finite
  // makes the term, and so the total, not finite: the exact pass never sees one, and adds nothing.
  OPENACLNN_HOST_DEVICE static void AddExactTerm(LossKind kind, const ElementParameters&,
                                                 const ElementInputs& in,
                                                 math::exact::ExactSum& sum) {
    const bool loss = kind == LossKind::kLoss;
    if (!InputsFinite(loss, in)) return;
    if (loss) {
      math::exact::AddMseLoss(in.x, in.t, sum);
    } else {
      math::exact::AddMseGradient(in.x, in.t, in.g, sum);
    }
  }

  // The element's fp64 estimate, over p.divisor: within kMseElementError of its magnitude; where an
  // input is not finite, the value IEEE arithmetic gives the formula (its class is the result).
  OPENACLNN_HOST_DEVICE static ElementEstimate Estimate(LossKind kind, const ElementParameters& p,
                                                        const ElementInputs& in) {
    using O64 = math::ScalarOps64;
    return kind == LossKind::kLoss ? math::MseLoss64<O64>(in.x, in.t, p.scale)
                                   : math::MseGradient64<O64>(in.x, in.t, in.g, 2.0 * p.scale);
  }

  // Every term is an exact sum of doubles: no common denominator.
  OPENACLNN_HOST_DEVICE static double TermDenominator(const ElementParameters&) { return 1.0; }

  OPENACLNN_HOST_DEVICE static constexpr bool SumsFp32Terms(FloatType, FloatType, bool, FloatType) {
    return false;
  }

 private:
  // Whether the inputs `kind` reads (the loss: x and t; the gradient: g too) are finite.
  OPENACLNN_HOST_DEVICE static bool InputsFinite(bool loss, const ElementInputs& in) {
    return std::isfinite(in.x) && std::isfinite(in.t) && (loss || std::isfinite(in.g));
  }
};

// Every op of the family: MseLoss and MseLossOut are its loss, MseLossBackward its self gradient.
inline constexpr uint64_t kMseLossKernelOps =
    KernelOpBit(LossFamily::kMseLoss, KernelOp::kLoss) |
    KernelOpBit(LossFamily::kMseLoss, KernelOp::kGradSelf);

}  // namespace openaclnn
