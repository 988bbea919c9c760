// aclnnBinaryCrossEntropyWithLogitsBackward: the gradient of the loss with respect to the
// logits, out = g * w * ((1 + (p-1)*t) * sigmoid(x) - p*t), scaled by 1/N after a mean.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"

#include <iterator>

#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    {"gradOutput", OPENACLNN_ROLE_GRAD_OUTPUT, 0, 0, 0, OPENACLNN_ROLE_GRAD_OUTPUT},
    {"self", OPENACLNN_ROLE_SELF, 0, 0, 0, OPENACLNN_ROLE_SELF},
    {"target", OPENACLNN_ROLE_TARGET, 0, 0, 0, OPENACLNN_ROLE_TARGET},
    {"weightOptional", OPENACLNN_ROLE_WEIGHT, 1, 0, 0, OPENACLNN_ROLE_WEIGHT},
    {"posWeightOptional", OPENACLNN_ROLE_POS_WEIGHT, 1, 0, 0, OPENACLNN_ROLE_POS_WEIGHT},
    {"out", OPENACLNN_ROLE_OUT, 0, 1, 0, OPENACLNN_ROLE_SELF},
};

aclnnStatus Validate(const ArgumentChecker& check, const BceOperands& operands, int64_t reduction,
                     uint64_t* workspace_size, aclOpExecutor** executor) {
  return ValidateGradient(check, operands, "out", reduction, false, workspace_size, executor);
}

std::unique_ptr<Plan> MakePlan(const BceOperands& operands, int64_t reduction,
                               uint64_t* workspace_size) {
  return PlanGradient(LossKind::kGradSelf, operands, reduction, workspace_size);
}

}  // namespace

extern const OpDescriptor kBceWithLogitsBackwardOp = {
    {"aclnnBinaryCrossEntropyWithLogitsBackward", OPENACLNN_OP_GRAD_SELF, std::size(kOperands),
     kOperands, TableGetWorkspaceSize<kBceWithLogitsBackwardOp>,
     aclnnBinaryCrossEntropyWithLogitsBackward},
    Validate,
    MakePlan};

}  // namespace openaclnn

using openaclnn::kBceWithLogitsBackwardOp;

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weightOptional, const aclTensor* posWeightOptional, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, weightOptional, posWeightOptional, out};
  return OpGetWorkspaceSize(kBceWithLogitsBackwardOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackward(void* workspace,
                                                                 uint64_t workspaceSize,
                                                                 aclOpExecutor* executor,
                                                                 const aclrtStream stream) {
  return openaclnn::LaunchExecutor(kBceWithLogitsBackwardOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
