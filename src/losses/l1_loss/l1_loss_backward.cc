// aclnnL1LossBackward: gradInput = gradOutput * sign(self - target) over the broadcast shape of
// the three inputs, divided by the element count of broadcast(self, target) after a mean.
#include "aclnnop/aclnn_l1_loss_backward.h"

#include <iterator>
#include <memory>

#include "losses/l1_loss/l1_loss_checks.h"
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

// Integer inputs are read rounded to the promoted (floating) dtype.
std::unique_ptr<Plan> PlanL1LossBackward(LossFamily family, const LossOperands& operands,
                                         int64_t reduction, uint64_t* workspace_size) {
  return PlanGradient(
      {.family = family, .kind = LossKind::kGradSelf, .promoted = L1LossPromotedType(operands)},
      operands, reduction, workspace_size);
}

}  // namespace

extern const OpDescriptor kL1LossBackwardOp = {
    .info = {.api = "aclnnL1LossBackward",
             .family = OPENACLNN_FAMILY_L1_LOSS,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kL1LossBackwardOp>,
             .launch = aclnnL1LossBackward,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateL1LossBackward,
    .plan = PlanL1LossBackward};

}  // namespace openaclnn

using openaclnn::kL1LossBackwardOp;

extern "C" aclnnStatus aclnnL1LossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, gradInput};
  return OpGetWorkspaceSize(kL1LossBackwardOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnL1LossBackward(void* workspace, uint64_t workspaceSize,
                                           aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kL1LossBackwardOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
