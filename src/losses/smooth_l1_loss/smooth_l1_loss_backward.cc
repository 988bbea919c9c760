// aclnnSmoothL1LossBackward: the gradient of aclnnSmoothL1Loss with respect to self, with
// d = self - target, gradOut * (|d| < beta ? d / beta : sign(d)) over the broadcast shape of the
// three inputs, divided by the element count of broadcast(self, target) after a mean.
#include "aclnnop/aclnn_smooth_l1_loss_backward.h"

#include <iterator>

#include "losses/smooth_l1_loss/smooth_l1_loss_checks.h"
#include "losses/smooth_l1_loss/smooth_l1_loss_math.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("gradOut", OPENACLNN_ROLE_GRAD_OUTPUT),
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Output("gradInput", OPENACLNN_ROLE_OUT, OPENACLNN_SHAPE_OF_INPUTS),
};

constexpr openaclnnAttribute kAttributes[] = {Attribute("beta", OPENACLNN_ATTRIBUTE_FLOAT, 1.0)};

std::unique_ptr<Plan> PlanSmoothL1LossBackward(LossFamily family, const LossOperands& operands,
                                               int64_t reduction, uint64_t* workspace_size) {
  return PlanGradient({.family = family,
                       .kind = LossKind::kGradSelf,
                       .parameter = operands.attribute[0],
                       .variant = kSmoothL1Variant},
                      operands, reduction, workspace_size);
}

}  // namespace

extern const OpDescriptor kSmoothL1LossBackwardOp = {
    .info = {.api = "aclnnSmoothL1LossBackward",
             .family = OPENACLNN_FAMILY_SMOOTH_L1_LOSS,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kSmoothL1LossBackwardOp>,
             .launch = aclnnSmoothL1LossBackward,
             .attributeCount = std::size(kAttributes),
             .attributes = kAttributes,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateSmoothL1LossBackward,
    .plan = PlanSmoothL1LossBackward};

}  // namespace openaclnn

using openaclnn::kSmoothL1LossBackwardOp;

extern "C" aclnnStatus aclnnSmoothL1LossBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* self, const aclTensor* target, int64_t reduction,
    float beta, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOut, self, target, gradInput};
  const double attributes[] = {beta};
  return OpGetWorkspaceSize(kSmoothL1LossBackwardOp, operands, reduction, attributes, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnSmoothL1LossBackward(void* workspace, uint64_t workspaceSize,
                                                 aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kSmoothL1LossBackwardOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
