// aclnnBinaryCrossEntropyWithLogits: loss = w * (p*t*softplus(-x) + (1-t)*softplus(x)),
// optionally averaged or summed.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

#include <iterator>

#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    {"self", OPENACLNN_ROLE_SELF, 0, 0, 0, OPENACLNN_ROLE_SELF},
    {"target", OPENACLNN_ROLE_TARGET, 0, 0, 0, OPENACLNN_ROLE_TARGET},
    {"weightOptional", OPENACLNN_ROLE_WEIGHT, 1, 0, 0, OPENACLNN_ROLE_WEIGHT},
    {"posWeightOptional", OPENACLNN_ROLE_POS_WEIGHT, 1, 0, 0, OPENACLNN_ROLE_POS_WEIGHT},
    {"out", OPENACLNN_ROLE_OUT, 0, 1, 1, OPENACLNN_ROLE_SELF},
};

}  // namespace

extern const OpDescriptor kBceWithLogitsOp = {
    {"aclnnBinaryCrossEntropyWithLogits", OPENACLNN_OP_LOSS, std::size(kOperands), kOperands,
     TableGetWorkspaceSize<kBceWithLogitsOp>, aclnnBinaryCrossEntropyWithLogits},
    ValidateLoss,
    PlanLoss};

}  // namespace openaclnn

using openaclnn::kBceWithLogitsOp;

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, weightOptional, posWeightOptional, out};
  return OpGetWorkspaceSize(kBceWithLogitsOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogits(void* workspace, uint64_t workspaceSize,
                                                         aclOpExecutor* executor,
                                                         const aclrtStream stream) {
  return openaclnn::LaunchExecutor(kBceWithLogitsOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
