// aclnnMseLossOut: the mean squared error reduced over dimension 0 only (library libopapi_nn).
#ifndef OP_API_INC_MSE_LOSS_OUT_H_
#define OP_API_INC_MSE_LOSS_OUT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. self and target broadcast to one shape B (their dtypes may differ: they promote);
 * reduction: 0 none (out has shape B), 1 mean or 2 sum over B's first dimension (out has shape
 * B without it; a 0-D B gives its one loss). out may have any supported dtype.
 */
ACLNN_API aclnnStatus aclnnMseLossOutGetWorkspaceSize(const aclTensor* self,
                                                      const aclTensor* target, int64_t reduction,
                                                      aclTensor* out, uint64_t* workspaceSize,
                                                      aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnMseLossOut(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_MSE_LOSS_OUT_H_
