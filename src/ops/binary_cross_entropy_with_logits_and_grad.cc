// aclnnBinaryCrossEntropyWithLogitsAndGrad (an OpenACLNN extension): the forward's loss and the
// Backward's gradient with respect to self from one pass over the inputs.
#include "openaclnn/aclnn_binary_cross_entropy_with_logits_and_grad.h"

#include "ops/bce_common.h"

using namespace openaclnn;

namespace {

constexpr const char* kApi = "aclnnBinaryCrossEntropyWithLogitsAndGrad";

// What the two calls it replaces would check, in the order they would check it: the forward's
// arguments, then the Backward's (gradSelfOut as its out, a null gradOutput as all ones).
aclnnStatus Validate(const BceOperands& op, int64_t reduction, uint64_t* workspace_size,
                     aclOpExecutor** executor) {
  const ArgumentChecker check{kApi};
  OPENACLNN_RETURN_IF_ERROR(ValidateLoss(check, op, reduction, workspace_size, executor));
  BceOperands gradient = op;
  gradient.tensor[kOut] = op.tensor[kGradSelfOut];
  OPENACLNN_RETURN_IF_ERROR(
      ValidateGradient(check, gradient, "gradSelfOut", reduction, true, workspace_size, executor));
  // A reduced loss is one value, so the gradient flowing into it is one value too.
  const aclTensor* grad_output = op.tensor[kGradOutput];
  if (reduction == 0 || grad_output == nullptr) return ACLNN_SUCCESS;
  return check.SingleElement("gradOutput", grad_output);
}

}  // namespace

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsAndGradGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, const aclTensor* gradOutputOptional, int64_t reduction,
    aclTensor* out, aclTensor* gradSelfOut, uint64_t* workspaceSize, aclOpExecutor** executor) {
  BceOperands op;
  const aclTensor* in_api_order[] = {
      self, target, weightOptional, posWeightOptional, gradOutputOptional, out, gradSelfOut};
  for (int which = 0; which < kOperandCount; ++which) {  // OperandIndex is the API's order
    op.tensor[which] = in_api_order[which];
    op.slot[which] = which;
  }
  OPENACLNN_RETURN_IF_ERROR(Validate(op, reduction, workspaceSize, executor));
  return HandOut(kApi, {self, target, weightOptional, posWeightOptional, gradOutputOptional},
                 {out, gradSelfOut}, workspaceSize, executor, [&](uint64_t* workspace) {
                   return PlanLoss(op, static_cast<Reduction>(reduction), workspace);
                 });
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsAndGrad(void* workspace,
                                                                uint64_t workspaceSize,
                                                                aclOpExecutor* executor,
                                                                aclrtStream stream) {
  return LaunchExecutor(kApi, workspace, workspaceSize, executor, stream);
}
