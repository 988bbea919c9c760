// The cross entropy family (aclnnCrossEntropyLoss, aclnnCrossEntropyLossGrad) as the backends'
// class-axis code sees it (kernels/class_axis_families.h): a position's row of logits read through
// `Row` (At(c); LogSumExp(C): the row's log-sum-exp estimate, as kernels/log_sum_exp.h defines
// it), its class weights through `Weights` (weights(c)), its log-probabilities and gradients
// written through `OutRow` (Set(c, value): value a double whose one rounding to the output type is
// the result; Fill(value); WriteLogProbabilities(row, lse): each rounded once;
// WriteLogSoftmaxGradient(row, weights, target, factors, element): each element rounded once, its
// estimate where the bound settles it, else element(c, e), e = e^lp_c as
// log_sum_exp::ExpOfNonPositive gives it (or within its bound; 0 where lp_c > 0), a double whose
// one rounding is the result).
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/loss_problem.h"
#include "losses/cross_entropy/cross_entropy_math.h"

namespace openaclnn {

struct CrossEntropyFamily {
  static constexpr LossFamily kFamily = LossFamily::kCrossEntropy;
  static constexpr uint64_t kKernelOps =
      KernelOpBit(kFamily, KernelOp::kLoss) | KernelOpBit(kFamily, KernelOp::kGradSelf);
  // A position's loss reads its whole row (the log-sum-exp): work in proportion to C.
  static constexpr bool kLossReadsRows = true;
  static constexpr bool kSparseGradientRows = false;

  // A position's row of log-probabilities into `log_prob` (where there is one) and its loss, an
  // estimate with its bound: a counted position's (target not nullptr), else 0.
  template <class Row, class Weights, class OutRow>
  OPENACLNN_HOST_DEVICE static Estimated LossRow(const Row& self, const Weights& weights,
                                                 OutRow* log_prob, const int64_t* target,
                                                 const RowConstants& k) {
    using namespace cross_entropy;  // NOLINT(build/namespaces)
    const LogSumExp lse = self.LogSumExp(k.classes);
    if (lse.special) {
      if (log_prob != nullptr) log_prob->Fill(kCanonicalNaN);
      return {target != nullptr ? kCanonicalNaN : 0.0, NAN};
    }
    if (log_prob != nullptr) log_prob->WriteLogProbabilities(self, lse);
    if (target == nullptr) return {0.0, 0.0};
    return EstimateLoss(self, weights, lse, *target, k);
  }

  // A counted position's loss in double-double, for the rows whose estimate leaves a reduction's
  // or a none's rounding open.
  template <class Row, class Weights>
  OPENACLNN_HOST_DEVICE static math::exact::DD ExactLossTerm(const Row& self,
                                                             const Weights& weights, int64_t target,
                                                             const RowConstants& k) {
    using namespace cross_entropy;  // NOLINT(build/namespaces)
    return ExactLoss(self, weights, RowMaximum(self, k.classes), target, k);
  }

  // A counted position's row of the gradient with respect to the logits, from its row of
  // log-probabilities (`self`), each element rounded once to `type`.
  template <class Row, class Weights, class OutRow>
  OPENACLNN_HOST_DEVICE static void GradientRow(const Row& self, OutRow& out,
                                                const Weights& weights, int64_t target,
                                                double gradient, const RowConstants& k,
                                                FloatType type) {
    using namespace cross_entropy;  // NOLINT(build/namespaces)
    const double target_weight = weights(target);
    const LogSoftmaxGradient factors = GradientFactorsOf(gradient, target_weight, k);
    out.WriteLogSoftmaxGradient(self, weights, target, factors, [&](int64_t c, double exponential) {
      const GradientInputs in{self.At(c),    exponential, c == target,
                              target_weight, weights(c),  gradient};
      double value;
      if (!Settles(EstimateGradient(in, factors), type, &value)) {
        value = math::exact::RoundToOdd(ExactGradient(in, k));
      }
      return value;
    });
  }
};

}  // namespace openaclnn
