// aclnnCrossEntropyLossGrad: the gradient of aclnnCrossEntropyLoss with respect to its logits,
// computed from the forward's log-probabilities. CANN generates this API from its op definition;
// the declarations are the generated ones.
#ifndef ACLNN_CROSS_ENTROPY_LOSS_GRAD_H_
#define ACLNN_CROSS_ENTROPY_LOSS_GRAD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1. gradLoss: the incoming gradient, [N] for "none", one element (0-D or [1]) for "mean"
 * and "sum". logProb: the forward's log-probabilities (N, C). target: class indices (N), INT64 (or
 * INT32 where the SoC has it); ignoreIndex and out-of-range targets as the forward. weightOptional:
 * (C), FLOAT, or NULL for ones. reductionOptional: "none", "mean" (the default, also for NULL; the
 * total weight is recomputed from target and weight) or "sum". labelSmoothing: in [0, 1].
 * gradZlossOptional and lseForZlossOptional: never read; lseSquareScaleForZloss ignored. out:
 * (N, C), logProb's dtype, which gradLoss shares: FLOAT, FLOAT16 or BFLOAT16; each element
 * exp(lp) (a + b W) - a [c = t] - b w_c (a = s (1 - eps) w_t, b = s eps / C, W the sum of the
 * weights, s the incoming gradient, divided by the total weight for a mean), rounded once.
 */
__attribute__((visibility("default"))) aclnnStatus aclnnCrossEntropyLossGradGetWorkspaceSize(
    const aclTensor* gradLoss, const aclTensor* logProb, const aclTensor* target,
    const aclTensor* weightOptional, const aclTensor* gradZlossOptional,
    const aclTensor* lseForZlossOptional, char* reductionOptional, int64_t ignoreIndex,
    double labelSmoothing, double lseSquareScaleForZloss, const aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
__attribute__((visibility("default"))) aclnnStatus aclnnCrossEntropyLossGrad(
    void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNN_CROSS_ENTROPY_LOSS_GRAD_H_
