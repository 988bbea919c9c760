// The plans every loss op hands to the executor: the work for operands that passed the checks,
// on the active backend's kernels, for the op's family. The iteration space is the broadcast shape
// of the op's tensor inputs; the output holds each element's result, or sums of them (a mean or
// sum, or a reduction into the output's smaller shape).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/executor.h"
#include "kernels/loss_problem.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// What an op asks the kernels for, besides its operands and reduction.
struct LossRequest {
  LossFamily family = LossFamily::kBceWithLogits;
  LossKind kind = LossKind::kLoss;
  double parameter = 0.0;  // the family's scalar attribute (ElementParameters)
  int variant = 0;         // the family's variant (ElementParameters)
  // The dtype the inputs are promoted to (an aclDataType): the type integer inputs are rounded to
  // as they are read, or integer arithmetic where it is INT64; ACL_DT_UNDEFINED: floating inputs
  // only (read exactly, whatever their types).
  int64_t promoted = -1;
  // Whether the op's checks compare out's shape when the iteration space is empty; where they do
  // not (CANN's binary cross entropies), a gradient over no elements writes nothing.
  bool empty_shapes_checked = true;
};

// The forward's plan for reduction 0 (none: out has the iteration shape), 1 (mean: out one
// element, the sum over N elements divided by N), 2 (sum) or 3 (batchmean: the sum divided by
// self's first dimension, 1 for a 0-D self). Over no elements: mean NaN, sum 0, batchmean NaN
// where self's first dimension is 0 (else 0), none nothing. With operands' kGradSelfOut present,
// the same pass also writes the gradient with respect to self.
std::unique_ptr<Plan> PlanLoss(const LossRequest& request, const LossOperands& operands,
                               int64_t reduction, uint64_t* workspace_size);

// aclnnMseLossOut's forward: for mean and sum, out is the iteration shape without its first
// dimension, each element the sum over that dimension (divided by its size for mean); none as
// PlanLoss. Over no elements: mean NaN and sum 0 into a non-empty out.
std::unique_ptr<Plan> PlanLossOverFirstDimension(const LossRequest& request,
                                                 const LossOperands& operands, int64_t reduction,
                                                 uint64_t* workspace_size);

// A gradient op's plan: the gradient `request.kind`, element-wise over the iteration space, or
// summed into out's shape where that is smaller (the dimensions out was broadcast along); a mean's
// gradient divided by the element count of broadcast(self, target), a batchmean's by self's first
// dimension. Over no elements: nothing, or 0 into a non-empty out (a sum of nothing) where the
// checks compared out's shape.
std::unique_ptr<Plan> PlanGradient(const LossRequest& request, const LossOperands& operands,
                                   int64_t reduction, uint64_t* workspace_size);

// The plans of a family's ops without attributes and with floating inputs, as an op descriptor's
// `plan`.
inline std::unique_ptr<Plan> PlanLoss(LossFamily family, const LossOperands& operands,
                                      int64_t reduction, uint64_t* workspace_size) {
  return PlanLoss({.family = family}, operands, reduction, workspace_size);
}
template <LossKind kKind, bool kEmptyShapesChecked = true>
std::unique_ptr<Plan> PlanGradientOf(LossFamily family, const LossOperands& operands,
                                     int64_t reduction, uint64_t* workspace_size) {
  return PlanGradient(
      {.family = family, .kind = kKind, .empty_shapes_checked = kEmptyShapesChecked}, operands,
      reduction, workspace_size);
}

}  // namespace openaclnn
