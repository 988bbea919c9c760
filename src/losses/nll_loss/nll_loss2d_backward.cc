// aclnnNLLLoss2dBackward: the gradient of aclnnNLLLoss2d with respect to self.
#include "aclnnop/aclnn_nll_loss2d_backward.h"

#include <iterator>

#include "losses/nll_loss/nll_loss_checks.h"
#include "losses/nll_loss/nll_loss_rows.h"
#include "ops/class_axis_plans.h"
#include "ops/op_table.h"

namespace openaclnn {

extern const OpDescriptor kNllLoss2dBackwardOp = {
    .info = {.api = "aclnnNLLLoss2dBackward",
             .family = OPENACLNN_FAMILY_NLL_LOSS,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kNllBackwardOperands),
             .operands = kNllBackwardOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kNllLoss2dBackwardOp>,
             .launch = aclnnNLLLoss2dBackward,
             .attributeCount = std::size(kNllAttributes),
             .attributes = kNllAttributes,
             .layout = OPENACLNN_LAYOUT_CLASS_AXIS},
    .validate = ValidateNllLoss2dBackward,
    .plan = PlanClassAxisOf<LossKind::kGradSelf>};

}  // namespace openaclnn

using openaclnn::kNllLoss2dBackwardOp;

extern "C" aclnnStatus aclnnNLLLoss2dBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weight, int64_t reduction, int64_t ignoreIndex, aclTensor* totalWeight,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, weight, totalWeight, out};
  const int64_t whole[] = {ignoreIndex};
  return OpGetWorkspaceSize(kNllLoss2dBackwardOp, operands, reduction, nullptr, whole,
                            workspaceSize, executor);
}

extern "C" aclnnStatus aclnnNLLLoss2dBackward(void* workspace, uint64_t workspaceSize,
                                              aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kNllLoss2dBackwardOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
