// aclnnBinaryCrossEntropyWithLogitsBackward: the gradient of the loss with respect to the
// logits, out = g * w * ((1 + (p-1)*t) * sigmoid(x) - p*t), scaled by 1/N after a mean.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"

#include "ops/bce_common.h"

namespace {
constexpr const char* kApi = "aclnnBinaryCrossEntropyWithLogitsBackward";
}  // namespace

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weightOptional, const aclTensor* posWeightOptional, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return openaclnn::GradientGetWorkspaceSize(
      kApi, openaclnn::LossKind::kGradSelf, "out", gradOutput, self, target, weightOptional,
      posWeightOptional, reduction, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackward(void* workspace,
                                                                 uint64_t workspaceSize,
                                                                 aclOpExecutor* executor,
                                                                 const aclrtStream stream) {
  return openaclnn::LaunchExecutor(kApi, workspace, workspaceSize, executor, stream);
}
