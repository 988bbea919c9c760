// aclnnCrossEntropyLoss: the cross entropy of logits along a class axis (log-softmax, then the
// negative log likelihood of the target class, with class weights and label smoothing), per row
// or averaged over the weights or summed; with the rows' log-probabilities. CANN generates this
// API from its op definition; the declarations are the generated ones.
#ifndef ACLNN_CROSS_ENTROPY_LOSS_H_
#define ACLNN_CROSS_ENTROPY_LOSS_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1. input: logits (N, C), FLOAT, FLOAT16 or BFLOAT16. target: class indices (N), INT64 (or
 * INT32 where the SoC has it); a target equal to ignoreIndex counts for nothing, any other outside
 * [0, C) makes the launch fail (the stream's synchronization reports it). weightOptional: (C),
 * FLOAT, or NULL for ones. reductionOptional: "none" (lossOut [N]), "mean" (sum / total weight of
 * the targets that count; the default, also for NULL) or "sum" (lossOut one element).
 * labelSmoothing: in [0, 1], used as the double passed. lossOut and logProbOut ((N, C)): input's
 * dtype, each result rounded once into it. zlossOut and lseForZlossOut: required, never written;
 * lseSquareScaleForZloss and returnZloss are accepted and ignored (as CANN).
 */
__attribute__((visibility("default"))) aclnnStatus aclnnCrossEntropyLossGetWorkspaceSize(
    const aclTensor* input, const aclTensor* target, const aclTensor* weightOptional,
    char* reductionOptional, int64_t ignoreIndex, double labelSmoothing,
    double lseSquareScaleForZloss, bool returnZloss, const aclTensor* lossOut,
    const aclTensor* logProbOut, const aclTensor* zlossOut, const aclTensor* lseForZlossOut,
    uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
__attribute__((visibility("default"))) aclnnStatus aclnnCrossEntropyLoss(void* workspace,
                                                                         uint64_t workspaceSize,
                                                                         aclOpExecutor* executor,
                                                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNN_CROSS_ENTROPY_LOSS_H_
