// aclnnL1Loss: the mean absolute error |self - target|, element-wise or averaged or summed.
#ifndef OP_API_INC_L1_LOSS_H_
#define OP_API_INC_L1_LOSS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. self and target broadcast to one shape; their promoted dtype must be FLOAT, FLOAT16,
 * INT64 or (where the SoC has it) BFLOAT16, and integer or bool inputs are allowed where their
 * partner promotes them to one of those. reduction: 0 none (out has the broadcast shape), 1 mean
 * or 2 sum (out 0-D). An INT64 promotion computes in two's-complement integers (none, sum).
 */
ACLNN_API aclnnStatus aclnnL1LossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                  int64_t reduction, aclTensor* out,
                                                  uint64_t* workspaceSize,
                                                  aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnL1Loss(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_L1_LOSS_H_
