// aclnnBinaryCrossEntropyWithLogitsTargetBackward: gradient of BCE-with-logits w.r.t. the target.
// The guard follows CANN's "BACKEARD" misspelling, as in the sibling backward header.
#ifndef OP_API_INC_BINARY_CROSS_ENTROPY_WITH_LOGITS_TARGET_BACKEARD_H_
#define OP_API_INC_BINARY_CROSS_ENTROPY_WITH_LOGITS_TARGET_BACKEARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. Same arguments as aclnnBinaryCrossEntropyWithLogitsBackward; gradTarget has self's
 * shape and target's dtype.
 */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weightOptional, const aclTensor* posWeightOptional, int64_t reduction,
    aclTensor* gradTarget, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. Unlike its siblings, CANN declares the
 * stream without const here; the two spellings are the same C type. */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackward(void* workspace,
                                                                      uint64_t workspaceSize,
                                                                      aclOpExecutor* executor,
                                                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_BINARY_CROSS_ENTROPY_WITH_LOGITS_TARGET_BACKEARD_H_
