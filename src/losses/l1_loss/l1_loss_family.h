// The L1 family (aclnnL1Loss, aclnnL1LossBackward) as the backends' generic code sees it: the
// loss |x - t| and the gradient w.r.t. self g sign(x - t), each correctly rounded once
// (l1_loss_math.h); a mean's or sum's terms and their exact pass; and the integer loss CANN
// computes where the promoted dtype is INT64. The family has no kGradTarget: the target's gradient
// is the Backward with self and target swapped.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/loss_problem.h"
#include "kernels/rounded_element.h"
#include "losses/l1_loss/l1_loss_error_budget.h"
#include "losses/l1_loss/l1_loss_math.h"

namespace openaclnn {

struct L1LossFamily {
  static constexpr LossFamily kFamily = LossFamily::kL1Loss;
  // Relative error bound of Term's estimate; Term's bound is exactly this fraction of its value.
  static constexpr double kTermError = math::kL1Error64;

  // One element of kLoss or kGradSelf divided by p.divisor, correctly rounded once to `type`
  // (returned as the fp32 that holds it). Special values and zero signs: L1LossElement,
  // L1GradientElement.
  OPENACLNN_HOST_DEVICE static float Element(LossKind kind, const ElementParameters& p,
                                             const ElementInputs& in, FloatType type) {
    return kind == LossKind::kLoss ? L1LossElement(p, in, type) : L1GradientElement(p, in, type);
  }

  // A mean's or sum's term (not divided): the fp64 estimate and its bound, kTermError of its value;
  // the bound NaN where an input is not finite, the value then the reference value (the loss +inf
  // or NaN, the gradient +-g, +-inf or NaN).
  OPENACLNN_HOST_DEVICE static ElementEstimate Term(LossKind kind, const ElementParameters&,
                                                    const ElementInputs& in, bool, bool) {
    return kind == LossKind::kLoss ? L1LossEstimate(in, 1.0) : L1GradientEstimate(in, 1.0);
  }

  // Adds the term's exact value to `sum`: |x - t| as an exact double-double, g sign(x - t) as the
  // double it is. Where an input is not finite, the reference value where it is finite (the
  // gradient's +-g, or 0, for an infinite x or t with a finite g); a loss term with such an input
  // is +inf or NaN, whose total never takes the exact pass, and adds nothing.
  OPENACLNN_HOST_DEVICE static void AddExactTerm(LossKind kind, const ElementParameters&,
                                                 const ElementInputs& in,
                                                 math::exact::ExactSum& sum) {
    if (kind == LossKind::kLoss) {
      if (std::isfinite(in.x) && std::isfinite(in.t)) {
        sum.Add(math::exact::AbsoluteDifference(in.x, in.t));
      }
      return;
    }
    const double n = math::L1GradientNumerator<math::ScalarOps64>(in.x, in.t, in.g);
    if (std::isfinite(n)) sum.Add(n);
  }

  // Every exact term is the term itself: the total is sum / count.
  OPENACLNN_HOST_DEVICE static double TermDenominator(const ElementParameters&) { return 1.0; }

  OPENACLNN_HOST_DEVICE static constexpr bool SumsFp32Terms(FloatType, FloatType, bool, FloatType) {
    return false;
  }

  // The loss where the promoted dtype is INT64 (both inputs integer or bool, an int64 among them):
  // |x - t| in two's-complement arithmetic, as CANN's Sub and Abs and torch compute it: the
  // difference wraps modulo 2^64, and |INT64_MIN| is INT64_MIN. Computed in uint64_t, so that no
  // step overflows a signed type; the conversion back is modular (C++20).
  OPENACLNN_HOST_DEVICE static int64_t IntegerElement(int64_t x, int64_t t) {
    const uint64_t difference = static_cast<uint64_t>(x) - static_cast<uint64_t>(t);
    const uint64_t magnitude = (difference >> 63) != 0 ? uint64_t{0} - difference : difference;
    return static_cast<int64_t>(magnitude);
  }
};

// Every op of the family: the loss and the gradient w.r.t. self (the target's is the Backward with
// self and target swapped).
inline constexpr uint64_t kL1LossKernelOps = KernelOpBit(LossFamily::kL1Loss, KernelOp::kLoss) |
                                             KernelOpBit(LossFamily::kL1Loss, KernelOp::kGradSelf);

}  // namespace openaclnn
