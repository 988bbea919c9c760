// The negative log likelihood family (aclnnNLLLoss, aclnnNLLLoss2d and their Backwards) as the
// backends' class-axis code sees it (kernels/class_axis_families.h): a position's loss term and
// its row of the gradient, on a row of self read through `Row` (At(c): the value at class c) and
// written through `OutRow` (Zero(), Set(c, value): value a double whose one rounding to the
// output type is the result).
#pragma once

#include <cstdint>

#include "base/dtype.h"
#include "kernels/loss_problem.h"
#include "losses/nll_loss/nll_loss_math.h"

namespace openaclnn {

struct NllLossFamily {
  static constexpr LossFamily kFamily = LossFamily::kNllLoss;
  static constexpr uint64_t kKernelOps =
      KernelOpBit(kFamily, KernelOp::kLoss) | KernelOpBit(kFamily, KernelOp::kGradSelf);

  // A counted position's loss, exact: -w x_t. A sum's term is this value, a mean's too (divided
  // by the total weight once, at the end).
  template <class Row>
  OPENACLNN_HOST_DEVICE static double LossTerm(const Row& self, int64_t target, double weight) {
    return nll::NegatedProduct(weight, self.At(target));
  }

  // A counted position's row of the gradient: -g w at the target class, divided by `divisor`
  // (a mean's total weight; 1 otherwise), and 0 elsewhere.
  template <class Row, class OutRow>
  OPENACLNN_HOST_DEVICE static void GradientRow(const Row&, OutRow& out, int64_t target,
                                                double weight, double gradient, double divisor,
                                                FloatType type) {
    out.Zero();
    const double product = nll::NegatedProduct(gradient, weight);
    out.Set(target, divisor == 1.0 ? product : nll::RoundedQuotient(product, divisor, type));
  }
};

}  // namespace openaclnn
