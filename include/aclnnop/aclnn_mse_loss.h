// aclnnMseLoss: the mean squared error (self - target)^2, two-phase API (library libopapi_nn).
#ifndef OP_API_INC_MSE_LOSS_H_
#define OP_API_INC_MSE_LOSS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1: checks the arguments, reports the device workspace needed and creates the executor.
 * self and target broadcast to one shape B (their dtypes may differ: they promote); reduction:
 * 0 none (out has shape B), 1 mean, 2 sum (out is 0-D). out may have any supported dtype.
 */
ACLNN_API aclnnStatus aclnnMseLossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                   int64_t reduction, aclTensor* out,
                                                   uint64_t* workspaceSize,
                                                   aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnMseLoss(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_MSE_LOSS_H_
