// aclnnNLLLoss: -weight[t] self[t] per position of a (C) or (N, C) self, or their sum or mean over
// the weights, and the total weight.
#include "aclnnop/aclnn_nll_loss.h"

#include <iterator>

#include "losses/nll_loss/nll_loss_checks.h"
#include "losses/nll_loss/nll_loss_rows.h"
#include "ops/class_axis_plans.h"
#include "ops/op_table.h"

namespace openaclnn {

extern const OpDescriptor kNllLossOp = {
    .info = {.api = "aclnnNLLLoss",
             .family = OPENACLNN_FAMILY_NLL_LOSS,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kNllForwardOperands),
             .operands = kNllForwardOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kNllLossOp>,
             .launch = aclnnNLLLoss,
             .attributeCount = std::size(kNllAttributes),
             .attributes = kNllAttributes,
             .layout = OPENACLNN_LAYOUT_CLASS_AXIS},
    .validate = ValidateNllLoss,
    .plan = PlanClassAxisOf<LossKind::kLoss>};

}  // namespace openaclnn

using openaclnn::kNllLossOp;

extern "C" aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                    const aclTensor* weight, int64_t reduction,
                                                    int64_t ignoreIndex, aclTensor* out,
                                                    aclTensor* totalWeightOut,
                                                    uint64_t* workspaceSize,
                                                    aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, weight, out, totalWeightOut};
  const int64_t whole[] = {ignoreIndex};
  return OpGetWorkspaceSize(kNllLossOp, operands, reduction, nullptr, whole, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnNLLLoss(void* workspace, uint64_t workspaceSize,
                                    aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kNllLossOp.info.api, workspace, workspaceSize, executor, stream);
}
