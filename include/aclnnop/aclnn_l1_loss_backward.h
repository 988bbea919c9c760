// aclnnL1LossBackward: the gradient of aclnnL1Loss w.r.t. self, gradOutput * sign(self - target).
#ifndef OP_API_INC_L1_LOSS_BACKWARD_H_
#define OP_API_INC_L1_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. reduction is the one the forward used (0 none, 1 mean: divided by the element count
 * of the broadcast of self and target, 2 sum). gradOutput, self and target broadcast to one
 * shape, gradInput's; their promoted dtype must be FLOAT, FLOAT16 or (where the SoC has it)
 * BFLOAT16.
 */
ACLNN_API aclnnStatus aclnnL1LossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnL1LossBackward(void* workspace, uint64_t workspaceSize,
                                          aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_L1_LOSS_BACKWARD_H_
