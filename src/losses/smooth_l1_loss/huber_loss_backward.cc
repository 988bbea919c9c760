// openaclnnHuberLossBackward (an extension): the gradient of openaclnnHuberLoss with respect to
// self, with d = self - target, gradOutput * (|d| < delta ? d : delta sign(d)) over the broadcast
// shape of the three inputs, divided by the element count of broadcast(self, target) after a mean.
#include <iterator>

#include "losses/smooth_l1_loss/smooth_l1_loss_checks.h"
#include "losses/smooth_l1_loss/smooth_l1_loss_math.h"
#include "openaclnn/aclnn_huber_loss.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("gradOutput", OPENACLNN_ROLE_GRAD_OUTPUT),
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Output("gradInput", OPENACLNN_ROLE_OUT, OPENACLNN_SHAPE_OF_INPUTS),
};

constexpr openaclnnAttribute kAttributes[] = {Attribute("delta", OPENACLNN_ATTRIBUTE_DOUBLE, 1.0)};

std::unique_ptr<Plan> PlanHuberLossBackward(LossFamily family, const LossOperands& operands,
                                            int64_t reduction, uint64_t* workspace_size) {
  return PlanGradient({.family = family,
                       .kind = LossKind::kGradSelf,
                       .parameter = operands.attribute[0],
                       .variant = kHuberVariant},
                      operands, reduction, workspace_size);
}

}  // namespace

extern const OpDescriptor kHuberLossBackwardOp = {
    .info = {.api = "openaclnnHuberLossBackward",
             .family = OPENACLNN_FAMILY_SMOOTH_L1_LOSS,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kHuberLossBackwardOp>,
             .launch = openaclnnHuberLossBackward,
             .attributeCount = std::size(kAttributes),
             .attributes = kAttributes,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateHuberLossBackward,
    .plan = PlanHuberLossBackward};

}  // namespace openaclnn

using openaclnn::kHuberLossBackwardOp;

extern "C" aclnnStatus openaclnnHuberLossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    double delta, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, gradInput};
  const double attributes[] = {delta};
  return OpGetWorkspaceSize(kHuberLossBackwardOp, operands, reduction, attributes, workspaceSize,
                            executor);
}

extern "C" aclnnStatus openaclnnHuberLossBackward(void* workspace, uint64_t workspaceSize,
                                                  aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kHuberLossBackwardOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
