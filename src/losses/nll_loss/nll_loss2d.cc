// aclnnNLLLoss2d: aclnnNLLLoss over the pixels of (N, C, H, W) log-probabilities.
#include "aclnnop/aclnn_nll_loss2d.h"

#include <iterator>

#include "losses/nll_loss/nll_loss_checks.h"
#include "losses/nll_loss/nll_loss_rows.h"
#include "ops/class_axis_plans.h"
#include "ops/op_table.h"

namespace openaclnn {

extern const OpDescriptor kNllLoss2dOp = {
    .info = {.api = "aclnnNLLLoss2d",
             .family = OPENACLNN_FAMILY_NLL_LOSS,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kNllForwardOperands),
             .operands = kNllForwardOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kNllLoss2dOp>,
             .launch = aclnnNLLLoss2d,
             .attributeCount = std::size(kNllAttributes),
             .attributes = kNllAttributes,
             .layout = OPENACLNN_LAYOUT_CLASS_AXIS},
    .validate = ValidateNllLoss2d,
    .plan = PlanClassAxisOf<LossKind::kLoss>};

}  // namespace openaclnn

using openaclnn::kNllLoss2dOp;

extern "C" aclnnStatus aclnnNLLLoss2dGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weight, int64_t reduction,
    int64_t ignoreIndex, aclTensor* out, aclTensor* totalWeightOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, weight, out, totalWeightOut};
  const int64_t whole[] = {ignoreIndex};
  return OpGetWorkspaceSize(kNllLoss2dOp, operands, reduction, nullptr, whole, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnNLLLoss2d(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kNllLoss2dOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
