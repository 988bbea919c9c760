// aclnnSoftMarginLossBackward: the gradient of the soft margin loss with respect to self,
// out = -t g sigmoid(-t x) over the broadcast shape of gradOutput g, self x and target t, divided
// by the element count of broadcast(x, t) after a mean.
#include "aclnnop/aclnn_soft_margin_loss_backward.h"

#include <iterator>

#include "losses/soft_margin_loss/soft_margin_loss_checks.h"
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

extern const OpDescriptor kSoftMarginLossBackwardOp = {
    .info = {.api = "aclnnSoftMarginLossBackward",
             .family = OPENACLNN_FAMILY_SOFT_MARGIN_LOSS,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kSoftMarginLossBackwardOp>,
             .launch = aclnnSoftMarginLossBackward,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateSoftMarginLossBackward,
    .plan = PlanGradientOf<LossKind::kGradSelf>};

}  // namespace openaclnn

using openaclnn::kSoftMarginLossBackwardOp;

extern "C" aclnnStatus aclnnSoftMarginLossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, out};
  return OpGetWorkspaceSize(kSoftMarginLossBackwardOp, operands, reduction, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnSoftMarginLossBackward(void* workspace, uint64_t workspaceSize,
                                                   aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kSoftMarginLossBackwardOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
