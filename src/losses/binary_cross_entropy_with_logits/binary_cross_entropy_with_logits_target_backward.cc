// aclnnBinaryCrossEntropyWithLogitsTargetBackward: the gradient of the loss with respect to the
// target, gradTarget = g * w * (p*softplus(-x) - softplus(x)), scaled by 1/N after a mean.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"

#include <iterator>

#include "losses/binary_cross_entropy_with_logits/bce_with_logits_checks.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("gradOutput", OPENACLNN_ROLE_GRAD_OUTPUT),
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Input("weightOptional", OPENACLNN_ROLE_WEIGHT, {.optional = true}),
    Input("posWeightOptional", OPENACLNN_ROLE_POS_WEIGHT, {.optional = true}),
    Output("gradTarget", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_TARGET),
};

aclnnStatus Validate(const ArgumentChecker& check, const LossOperands& operands, int64_t reduction,
                     uint64_t* workspace_size, aclOpExecutor** executor) {
  return ValidateGradient(check, operands, "gradTarget", reduction, false, workspace_size,
                          executor);
}

}  // namespace

extern const OpDescriptor kBceWithLogitsTargetBackwardOp = {
    .info = {.api = "aclnnBinaryCrossEntropyWithLogitsTargetBackward",
             .family = OPENACLNN_FAMILY_BCE_WITH_LOGITS,
             .kind = OPENACLNN_OP_GRAD_TARGET,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kBceWithLogitsTargetBackwardOp>,
             .launch = aclnnBinaryCrossEntropyWithLogitsTargetBackward,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = Validate,
    .plan = PlanGradientOf<LossKind::kGradTarget, /*kEmptyShapesChecked=*/false>};

}  // namespace openaclnn

using openaclnn::kBceWithLogitsTargetBackwardOp;

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weightOptional, const aclTensor* posWeightOptional, int64_t reduction,
    aclTensor* gradTarget, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput,        self,      target, weightOptional,
                                 posWeightOptional, gradTarget};
  return OpGetWorkspaceSize(kBceWithLogitsTargetBackwardOp, operands, reduction, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackward(void* workspace,
                                                                       uint64_t workspaceSize,
                                                                       aclOpExecutor* executor,
                                                                       aclrtStream stream) {
  return openaclnn::LaunchExecutor(kBceWithLogitsTargetBackwardOp.info.api, workspace,
                                   workspaceSize, executor, stream);
}
