// aclnnMseLossBackward: the gradient of the loss with respect to self, out = 2 g (self - target)
// over the broadcast shape of gradOutput, self and target, divided after a mean by the element
// count of broadcast(self, target) (the forward's N).
#include "aclnnop/aclnn_mse_loss_backward.h"

#include <iterator>

#include "losses/mse_loss/mse_loss_checks.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("gradOutput", OPENACLNN_ROLE_GRAD_OUTPUT),
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_SHAPE_OF_INPUTS),
};

}  // namespace

extern const OpDescriptor kMseLossBackwardOp = {
    .info = {.api = "aclnnMseLossBackward",
             .family = OPENACLNN_FAMILY_MSE_LOSS,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kMseLossBackwardOp>,
             .launch = aclnnMseLossBackward,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateMseLossBackward,
    .plan = PlanGradientOf<LossKind::kGradSelf>};

}  // namespace openaclnn

using openaclnn::kMseLossBackwardOp;

extern "C" aclnnStatus aclnnMseLossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, out};
  return OpGetWorkspaceSize(kMseLossBackwardOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnMseLossBackward(void* workspace, uint64_t workspaceSize,
                                            aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kMseLossBackwardOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
