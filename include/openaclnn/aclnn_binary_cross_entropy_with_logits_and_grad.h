// aclnnBinaryCrossEntropyWithLogitsAndGrad: an OpenACLNN extension, not part of CANN (hence its
// own directory, include/openaclnn/). In one pass over self, target, weight and pos_weight it
// computes what aclnnBinaryCrossEntropyWithLogits (the loss) and then
// aclnnBinaryCrossEntropyWithLogitsBackward (the gradient with respect to self) compute, bitwise
// equal to those two calls, for a training step that reads its inputs once instead of twice.
#ifndef OPENACLNN_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_AND_GRAD_H_
#define OPENACLNN_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_AND_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1. self, target, weightOptional, posWeightOptional, reduction (0 none, 1 mean, 2 sum)
 * and out are the forward's arguments, checked as the forward checks them; then gradOutputOptional
 * and gradSelfOut are checked as the Backward checks its gradOutput and out. gradOutputOptional
 * is the gradient of whatever consumes the loss: NULL means all ones; with reduction mean or sum
 * it must hold one element; with none it broadcasts into self's shape. gradSelfOut has self's
 * shape and target's dtype. Failures return the codes and messages of the two APIs it fuses,
 * naming this one.
 */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsAndGradGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, const aclTensor* gradOutputOptional, int64_t reduction,
    aclTensor* out, aclTensor* gradSelfOut, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsAndGrad(void* workspace,
                                                               uint64_t workspaceSize,
                                                               aclOpExecutor* executor,
                                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_AND_GRAD_H_
