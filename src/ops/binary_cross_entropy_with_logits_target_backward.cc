// aclnnBinaryCrossEntropyWithLogitsTargetBackward: the gradient of the loss with respect to the
// target, gradTarget = g * w * (p*softplus(-x) - softplus(x)), scaled by 1/N after a mean.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"

#include "ops/bce_common.h"

namespace {
constexpr const char* kApi = "aclnnBinaryCrossEntropyWithLogitsTargetBackward";
}  // namespace

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weightOptional, const aclTensor* posWeightOptional, int64_t reduction,
    aclTensor* gradTarget, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return openaclnn::GradientGetWorkspaceSize(
      kApi, openaclnn::LossKind::kGradTarget, "gradTarget", gradOutput, self, target,
      weightOptional, posWeightOptional, reduction, gradTarget, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackward(void* workspace,
                                                                       uint64_t workspaceSize,
                                                                       aclOpExecutor* executor,
                                                                       aclrtStream stream) {
  return openaclnn::LaunchExecutor(kApi, workspace, workspaceSize, executor, stream);
}
