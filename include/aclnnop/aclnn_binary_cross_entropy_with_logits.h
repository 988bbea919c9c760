// aclnnBinaryCrossEntropyWithLogits: BCE loss on logits, two-phase API (library libopapi_nn).
#ifndef OP_API_INC_BINARY_CROSS_ENTROPY_WITH_LOGITS_H_
#define OP_API_INC_BINARY_CROSS_ENTROPY_WITH_LOGITS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1: checks the arguments, reports the device workspace needed and creates the executor.
 * weightOptional and posWeightOptional may be NULL (treated as all ones). reduction: 0 none,
 * 1 mean, 2 sum. out has target's dtype; self's shape for none, one element for mean/sum.
 */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/**
 * Phase 2: queues the computation on stream and returns; synchronize the stream before reading
 * out. Call once per phase-1 executor unless it was made repeatable.
 */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogits(void* workspace, uint64_t workspaceSize,
                                                        aclOpExecutor* executor,
                                                        const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_BINARY_CROSS_ENTROPY_WITH_LOGITS_H_
