// aclnnNLLLossBackward: the gradient of aclnnNLLLoss with respect to self.
#include "aclnnop/aclnn_nll_loss_backward.h"

#include <iterator>

#include "losses/nll_loss/nll_loss_checks.h"
#include "losses/nll_loss/nll_loss_rows.h"
#include "ops/class_axis_plans.h"
#include "ops/op_table.h"

namespace openaclnn {

extern const OpDescriptor kNllLossBackwardOp = {
    .info = {.api = "aclnnNLLLossBackward",
             .family = OPENACLNN_FAMILY_NLL_LOSS,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kNllBackwardOperands),
             .operands = kNllBackwardOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kNllLossBackwardOp>,
             .launch = aclnnNLLLossBackward,
             .attributeCount = std::size(kNllAttributes),
             .attributes = kNllAttributes,
             .layout = OPENACLNN_LAYOUT_CLASS_AXIS},
    .validate = ValidateNllLossBackward,
    .plan = PlanClassAxisOf<LossKind::kGradSelf>};

}  // namespace openaclnn

using openaclnn::kNllLossBackwardOp;

extern "C" aclnnStatus aclnnNLLLossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weight, int64_t reduction, int64_t ignoreIndex, const aclTensor* totalWeight,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, weight, totalWeight, out};
  const int64_t whole[] = {ignoreIndex};
  return OpGetWorkspaceSize(kNllLossBackwardOp, operands, reduction, nullptr, whole, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnNLLLossBackward(void* workspace, uint64_t workspaceSize,
                                            aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kNllLossBackwardOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
