// aclnnCrossEntropyLossGrad: the gradient of aclnnCrossEntropyLoss with respect to its logits, row
// by row from the forward's log-probabilities; a mean's total weight is recomputed, exactly, from
// target and weight.
#include "aclnnop/aclnn_cross_entropy_loss_grad.h"

#include <iterator>

#include "losses/cross_entropy/cross_entropy_checks.h"
#include "losses/cross_entropy/cross_entropy_rows.h"
#include "ops/class_axis_plans.h"
#include "ops/op_table.h"

namespace openaclnn {

extern const OpDescriptor kCrossEntropyLossGradOp = {
    .info = {.api = "aclnnCrossEntropyLossGrad",
             .family = OPENACLNN_FAMILY_CROSS_ENTROPY,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kCrossEntropyGradOperands),
             .operands = kCrossEntropyGradOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kCrossEntropyLossGradOp>,
             .launch = aclnnCrossEntropyLossGrad,
             .attributeCount = kCrossEntropyGradAttributeCount,
             .attributes = kCrossEntropyAttributes,
             .layout = OPENACLNN_LAYOUT_CLASS_AXIS},
    .validate = ValidateCrossEntropyLossGrad,
    .plan = PlanClassAxisOf<LossKind::kGradSelf>};

}  // namespace openaclnn

using openaclnn::kCrossEntropyLossGradOp;

extern "C" aclnnStatus aclnnCrossEntropyLossGradGetWorkspaceSize(
    const aclTensor* gradLoss, const aclTensor* logProb, const aclTensor* target,
    const aclTensor* weightOptional, const aclTensor* gradZlossOptional,
    const aclTensor* lseForZlossOptional, char* reductionOptional, int64_t ignoreIndex,
    double labelSmoothing, double lseSquareScaleForZloss, const aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {
      gradLoss, logProb, target, weightOptional, gradZlossOptional, lseForZlossOptional, out};
  const double attributes[] = {static_cast<double>(ignoreIndex), labelSmoothing,
                               lseSquareScaleForZloss};
  const int64_t whole[] = {ignoreIndex, 0, 0};
  return OpGetWorkspaceSize(kCrossEntropyLossGradOp, operands,
                            openaclnn::ReductionNamed(reductionOptional), attributes, whole,
                            workspaceSize, executor);
}

extern "C" aclnnStatus aclnnCrossEntropyLossGrad(void* workspace, uint64_t workspaceSize,
                                                 aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kCrossEntropyLossGradOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
