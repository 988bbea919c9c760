// aclnnBinaryCrossEntropyWithLogitsBackward: gradient of BCE-with-logits w.r.t. the logits.
// The guard keeps CANN's "BACKEARD" misspelling so code testing that macro behaves the same.
#ifndef OP_API_INC_BINARY_CROSS_ENTROPY_WITH_LOGITS_BACKEARD_H_
#define OP_API_INC_BINARY_CROSS_ENTROPY_WITH_LOGITS_BACKEARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. reduction is the one the forward used (0 none, 1 mean, 2 sum); gradOutput, and the
 * optional weightOptional/posWeightOptional (NULL = all ones), broadcast to self's shape. out has
 * self's shape and target's dtype.
 */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weightOptional, const aclTensor* posWeightOptional, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackward(void* workspace,
                                                                uint64_t workspaceSize,
                                                                aclOpExecutor* executor,
                                                                const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_BINARY_CROSS_ENTROPY_WITH_LOGITS_BACKEARD_H_
