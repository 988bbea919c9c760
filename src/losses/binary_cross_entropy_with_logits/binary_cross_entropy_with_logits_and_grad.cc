// aclnnBinaryCrossEntropyWithLogitsAndGrad (an OpenACLNN extension): the forward's loss and the
// Backward's gradient with respect to self from one pass over the inputs.
#include "openaclnn/aclnn_binary_cross_entropy_with_logits_and_grad.h"

#include <iterator>

#include "losses/binary_cross_entropy_with_logits/bce_with_logits_checks.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Input("weightOptional", OPENACLNN_ROLE_WEIGHT, {.optional = true}),
    Input("posWeightOptional", OPENACLNN_ROLE_POS_WEIGHT, {.optional = true}),
    Input("gradOutputOptional", OPENACLNN_ROLE_GRAD_OUTPUT, {.optional = true, .reduced = true}),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_SELF, {.reduced = true}),
    Output("gradSelfOut", OPENACLNN_ROLE_GRAD_SELF_OUT, OPENACLNN_ROLE_SELF),
};

// What the two calls it replaces would check, in the order they would check it: the forward's
// arguments, then the Backward's (gradSelfOut as its out, a null gradOutput as all ones).
aclnnStatus Validate(const ArgumentChecker& check, const LossOperands& op, int64_t reduction,
                     uint64_t* workspace_size, aclOpExecutor** executor) {
  OPENACLNN_RETURN_IF_ERROR(ValidateLoss(check, op, reduction, workspace_size, executor));
  LossOperands gradient = op;
  gradient.tensor[kOut] = op.tensor[kGradSelfOut];
  OPENACLNN_RETURN_IF_ERROR(
      ValidateGradient(check, gradient, "gradSelfOut", reduction, true, workspace_size, executor));
  // A reduced loss is one value, so the gradient flowing into it is one value too.
  const aclTensor* grad_output = op.tensor[kGradOutput];
  if (reduction == 0 || grad_output == nullptr) return ACLNN_SUCCESS;
  return check.SingleElement("gradOutput", grad_output);
}

}  // namespace

extern const OpDescriptor kBceWithLogitsAndGradOp = {
    .info = {.api = "aclnnBinaryCrossEntropyWithLogitsAndGrad",
             .family = OPENACLNN_FAMILY_BCE_WITH_LOGITS,
             .kind = OPENACLNN_OP_LOSS_AND_GRAD,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kBceWithLogitsAndGradOp>,
             .launch = aclnnBinaryCrossEntropyWithLogitsAndGrad,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = Validate,
    .plan = PlanLoss};

}  // namespace openaclnn

using openaclnn::kBceWithLogitsAndGradOp;

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsAndGradGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, const aclTensor* gradOutputOptional, int64_t reduction,
    aclTensor* out, aclTensor* gradSelfOut, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {
      self, target, weightOptional, posWeightOptional, gradOutputOptional, out, gradSelfOut};
  return OpGetWorkspaceSize(kBceWithLogitsAndGradOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsAndGrad(void* workspace,
                                                                uint64_t workspaceSize,
                                                                aclOpExecutor* executor,
                                                                aclrtStream stream) {
  return openaclnn::LaunchExecutor(kBceWithLogitsAndGradOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
