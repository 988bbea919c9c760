// aclnnBinaryCrossEntropyWithLogits: loss = w * (p*t*softplus(-x) + (1-t)*softplus(x)),
// optionally averaged or summed.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

#include "ops/bce_common.h"

using namespace openaclnn;

namespace {
constexpr const char* kApi = "aclnnBinaryCrossEntropyWithLogits";
}  // namespace

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  BceOperands op;
  op.tensor[kSelf] = self;
  op.tensor[kTarget] = target;
  op.tensor[kWeight] = weightOptional;
  op.tensor[kPosWeight] = posWeightOptional;
  op.tensor[kOut] = out;
  for (int which : {kSelf, kTarget, kWeight, kPosWeight}) op.slot[which] = which;
  op.slot[kOut] = 4;
  OPENACLNN_RETURN_IF_ERROR(
      ValidateLoss(ArgumentChecker{kApi}, op, reduction, workspaceSize, executor));
  return HandOut(kApi, {self, target, weightOptional, posWeightOptional}, {out}, workspaceSize,
                 executor, [&](uint64_t* workspace) {
                   return PlanLoss(op, static_cast<Reduction>(reduction), workspace);
                 });
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogits(void* workspace, uint64_t workspaceSize,
                                                         aclOpExecutor* executor,
                                                         const aclrtStream stream) {
  return LaunchExecutor(kApi, workspace, workspaceSize, executor, stream);
}
