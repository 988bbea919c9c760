// aclnnCrossEntropyLoss: per row of (N, C) logits its log-probabilities and the weighted, smoothed
// negative log likelihood of its target class; the losses per row, or their sum, or their mean
// over the weights of the targets that count.
#include "aclnnop/aclnn_cross_entropy_loss.h"

#include <iterator>

#include "losses/cross_entropy/cross_entropy_checks.h"
#include "losses/cross_entropy/cross_entropy_rows.h"
#include "ops/class_axis_plans.h"
#include "ops/op_table.h"

namespace openaclnn {

extern const OpDescriptor kCrossEntropyLossOp = {
    .info = {.api = "aclnnCrossEntropyLoss",
             .family = OPENACLNN_FAMILY_CROSS_ENTROPY,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kCrossEntropyOperands),
             .operands = kCrossEntropyOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kCrossEntropyLossOp>,
             .launch = aclnnCrossEntropyLoss,
             .attributeCount = std::size(kCrossEntropyAttributes),
             .attributes = kCrossEntropyAttributes,
             .layout = OPENACLNN_LAYOUT_CLASS_AXIS},
    .validate = ValidateCrossEntropyLoss,
    .plan = PlanClassAxisOf<LossKind::kLoss>};

}  // namespace openaclnn

using openaclnn::kCrossEntropyLossOp;

extern "C" aclnnStatus aclnnCrossEntropyLossGetWorkspaceSize(
    const aclTensor* input, const aclTensor* target, const aclTensor* weightOptional,
    char* reductionOptional, int64_t ignoreIndex, double labelSmoothing,
    double lseSquareScaleForZloss, bool returnZloss, const aclTensor* lossOut,
    const aclTensor* logProbOut, const aclTensor* zlossOut, const aclTensor* lseForZlossOut,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {input,      target,   weightOptional, lossOut,
                                 logProbOut, zlossOut, lseForZlossOut};
  const double attributes[] = {static_cast<double>(ignoreIndex), labelSmoothing,
                               lseSquareScaleForZloss, returnZloss ? 1.0 : 0.0};
  const int64_t whole[] = {ignoreIndex, 0, 0, 0};
  return OpGetWorkspaceSize(kCrossEntropyLossOp, operands,
                            openaclnn::ReductionNamed(reductionOptional), attributes, whole,
                            workspaceSize, executor);
}

extern "C" aclnnStatus aclnnCrossEntropyLoss(void* workspace, uint64_t workspaceSize,
                                             aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kCrossEntropyLossOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
