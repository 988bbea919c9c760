#include "losses/mse_loss/mse_loss_checks.h"

#include <vector>

#include "base/tensor.h"

namespace openaclnn {
namespace {

// The shape a forward's out has under a mean or sum.
enum class ReducedOut {
  kZeroD,        // aclnnMseLoss: the total, 0-D ([1] is refused, as CANN)
  kAllButFirst,  // aclnnMseLossOut: the sums over dimension 0
};

// The forwards' checks (CANN's CheckParams of aclnn_mse_loss.cpp and aclnn_mse_loss_out.cpp):
// the output pointers first (as OP_CHECK_COMM_INPUT), nulls, dtypes (the promoted one, then each
// tensor's), the reduction, ranks and views, broadcasting, out's shape.
aclnnStatus ValidateForward(const ArgumentChecker& check, const LossOperands& operands,
                            int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor,
                            ReducedOut reduced) {
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Present({{"self", self}, {"target", target}, {"out", out}}));
  int64_t promoted = 0;
  OPENACLNN_RETURN_IF_ERROR(
      check.Promoted("self and target", self->dtype, target->dtype, &promoted));
  OPENACLNN_RETURN_IF_ERROR(check.PromotedIn("self and target", promoted, FloatTypesOfSoc()));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("target", target));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("out", out));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"self", self}, {"target", target}, {"out", out}}));
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(check.Broadcast("self", self->view_shape, "target", target, &shape));
  if (reduction == 0) {
    return check.ShapeIs("out", out, shape, "the broadcast shape of self and target");
  }
  if (reduced == ReducedOut::kZeroD) return check.RankZero("out", out);
  if (!shape.empty()) shape.erase(shape.begin());
  return check.ShapeIs("out", out, shape,
                       "the broadcast shape of self and target without its first dimension "
                       "(reduction mean or sum)");
}

}  // namespace

aclnnStatus ValidateMseLoss(const ArgumentChecker& check, const LossOperands& operands,
                            int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) {
  return ValidateForward(check, operands, reduction, workspace_size, executor, ReducedOut::kZeroD);
}

aclnnStatus ValidateMseLossOut(const ArgumentChecker& check, const LossOperands& operands,
                               int64_t reduction, uint64_t* workspace_size,
                               aclOpExecutor** executor) {
  return ValidateForward(check, operands, reduction, workspace_size, executor,
                         ReducedOut::kAllButFirst);
}

// CANN's CheckParams of aclnn_mse_loss_backward.cpp: no promotion, gradOutput and target must
// have self's dtype; gradOutput broadcasts with self, target with that, and out has the result.
aclnnStatus ValidateMseLossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                    int64_t reduction, uint64_t* workspace_size,
                                    aclOpExecutor** executor) {
  const aclTensor* grad_output = operands.tensor[kGradOutput];
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Present(
      {{"gradOutput", grad_output}, {"self", self}, {"target", target}, {"out", out}}));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("gradOutput", grad_output, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("target", target, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("out", out));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  OPENACLNN_RETURN_IF_ERROR(check.Layout(
      {{"gradOutput", grad_output}, {"self", self}, {"target", target}, {"out", out}}));
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(
      check.Broadcast("gradOutput", grad_output->view_shape, "self", self, &shape));
  OPENACLNN_RETURN_IF_ERROR(
      check.Broadcast("the broadcast of gradOutput and self", shape, "target", target, &shape));
  return check.ShapeIs("out", out, shape, "the broadcast shape of gradOutput, self and target");
}

}  // namespace openaclnn
