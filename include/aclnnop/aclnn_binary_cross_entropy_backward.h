// aclnnBinaryCrossEntropyBackward: gradient of BCE on probabilities w.r.t. the probabilities.
#ifndef OP_API_INC_BINARY_CROSS_ENTROPY_BACKWARD_H_
#define OP_API_INC_BINARY_CROSS_ENTROPY_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. reduction is the one the forward used (0 none, 1 mean, 2 sum); gradOutput, target
 * and the optional weightOptional (NULL = all ones) broadcast to self's shape. The inputs'
 * dtypes may differ (they promote); out has self's shape and any supported dtype.
 */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyBackward(void* workspace, uint64_t workspaceSize,
                                                      aclOpExecutor* executor,
                                                      const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_BINARY_CROSS_ENTROPY_BACKWARD_H_
