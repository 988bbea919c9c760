// aclnnBinaryCrossEntropy: BCE loss on probabilities, two-phase API (library libopapi_nn).
#ifndef OP_API_INC_BINARY_CROSS_ENTROPY_H_
#define OP_API_INC_BINARY_CROSS_ENTROPY_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

// CANN's header declares the reduction names at global scope, and CANN's programs write
// `Reduction::Mean`; so does this one. (The Backward's header does not: CANN's own tests of the
// Backward declare an enum of this name themselves.)
enum Reduction { None = 0, Mean = 1, Sum = 2 };

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1: checks the arguments, reports the device workspace needed and creates the executor.
 * self holds probabilities in [0, 1] (values outside give NaN), target has self's shape; weight
 * may be NULL (all ones) or broadcast into self's shape. target, weight and out have self's
 * dtype. reduction: 0 none, 1 mean, 2 sum; out has self's shape for none, one element for
 * mean/sum.
 */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weight, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/**
 * Phase 2: queues the computation on stream and returns; synchronize the stream before reading
 * out. Call once per phase-1 executor unless it was made repeatable.
 */
ACLNN_API aclnnStatus aclnnBinaryCrossEntropy(void* workspace, uint64_t workspaceSize,
                                              aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_BINARY_CROSS_ENTROPY_H_
