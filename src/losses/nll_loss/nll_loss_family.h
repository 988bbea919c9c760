// The negative log likelihood family (aclnnNLLLoss, aclnnNLLLoss2d and their Backwards) as the
// backends' class-axis code sees it (kernels/class_axis_families.h): a position's loss term and
// its row of the gradient, on a row of self read through `Row` (At(c): the value at class c) and
// written through `OutRow` (Zero(), Set(c, value): value a double whose one rounding to the
// output type is the result).
#pragma once

#include <cstdint>

#include "base/dtype.h"
#include "kernels/class_axis_row.h"
#include "kernels/loss_problem.h"
#include "losses/nll_loss/nll_loss_math.h"

namespace openaclnn {

struct NllLossFamily {
  static constexpr LossFamily kFamily = LossFamily::kNllLoss;
  static constexpr uint64_t kKernelOps =
      KernelOpBit(kFamily, KernelOp::kLoss) | KernelOpBit(kFamily, KernelOp::kGradSelf);
  // A position's loss reads one element of its row.
  static constexpr bool kLossReadsRows = false;
  // A gradient row is zero but at its target (GradientRow's out.Zero() first).
  static constexpr bool kSparseGradientRows = true;

  // A position's loss (kernels/class_axis_families.h), exact: -w x_t for a counted one (target
  // not nullptr), else 0. A sum's term is this value, a mean's too (divided by the total weight
  // once, at the end). NLL has no row output.
  template <class Row, class Weights, class OutRow>
  OPENACLNN_HOST_DEVICE static Estimated LossRow(const Row& self, const Weights& weights, OutRow*,
                                                 const int64_t* target, const RowConstants&) {
    if (target == nullptr) return {0.0, 0.0};
    return {nll::NegatedProduct(weights(*target), self.At(*target)), 0.0};
  }
  template <class Row, class Weights>
  OPENACLNN_HOST_DEVICE static math::exact::DD ExactLossTerm(const Row& self,
                                                             const Weights& weights, int64_t target,
                                                             const RowConstants&) {
    return {nll::NegatedProduct(weights(target), self.At(target)), 0.0};
  }

  // A counted position's row of the gradient: -g w at the target class, divided by the divisor
  // (a mean's total weight, the op's totalWeight; 1 otherwise), and 0 elsewhere.
  template <class Row, class Weights, class OutRow>
  OPENACLNN_HOST_DEVICE static void GradientRow(const Row&, OutRow& out, const Weights& weights,
                                                int64_t target, double gradient,
                                                const RowConstants& k, FloatType type) {
    out.Zero();
    const double product = nll::NegatedProduct(gradient, weights(target));
    const double divisor = k.divisor.hi;
    out.Set(target, divisor == 1.0 ? product : nll::RoundedQuotient(product, divisor, type));
  }
};

}  // namespace openaclnn
