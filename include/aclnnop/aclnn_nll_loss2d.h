// aclnnNLLLoss2d: aclnnNLLLoss over every pixel of a batch of class maps.
#ifndef OP_API_INC_NLLLOSS2DFORWARD_H_
#define OP_API_INC_NLLLOSS2DFORWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. self (N, C, H, W) log-probabilities, target (N, H, W) class indices; otherwise as
 * aclnnNLLLoss: out has target's shape for reduction 0 and one element for 1 (mean) and 2 (sum).
 */
ACLNN_API aclnnStatus aclnnNLLLoss2dGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                     const aclTensor* weight, int64_t reduction,
                                                     int64_t ignoreIndex, aclTensor* out,
                                                     aclTensor* totalWeightOut,
                                                     uint64_t* workspaceSize,
                                                     aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnNLLLoss2d(void* workspace, uint64_t workspaceSize,
                                     aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_NLLLOSS2DFORWARD_H_
