// aclnnBinaryCrossEntropyWithLogitsBackward: the gradient of the loss with respect to the
// logits, out = g * w * ((1 + (p-1)*t) * sigmoid(x) - p*t), scaled by 1/N after a mean.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"

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
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_SELF),
};

aclnnStatus Validate(const ArgumentChecker& check, const LossOperands& operands, int64_t reduction,
                     uint64_t* workspace_size, aclOpExecutor** executor) {
  return ValidateGradient(check, operands, "out", reduction, false, workspace_size, executor);
}

}  // namespace

extern const OpDescriptor kBceWithLogitsBackwardOp = {
    .info = {.api = "aclnnBinaryCrossEntropyWithLogitsBackward",
             .family = OPENACLNN_FAMILY_BCE_WITH_LOGITS,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kBceWithLogitsBackwardOp>,
             .launch = aclnnBinaryCrossEntropyWithLogitsBackward,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = Validate,
    .plan = PlanGradientOf<LossKind::kGradSelf, /*kEmptyShapesChecked=*/false>};

}  // namespace openaclnn

using openaclnn::kBceWithLogitsBackwardOp;

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weightOptional, const aclTensor* posWeightOptional, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, weightOptional, posWeightOptional, out};
  return OpGetWorkspaceSize(kBceWithLogitsBackwardOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackward(void* workspace,
                                                                 uint64_t workspaceSize,
                                                                 aclOpExecutor* executor,
                                                                 const aclrtStream stream) {
  return openaclnn::LaunchExecutor(kBceWithLogitsBackwardOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
