// aclnnSmoothL1LossBackward: the gradient of aclnnSmoothL1Loss with respect to self, with
// d = self - target, gradOut * (|d| < beta ? d / beta : sign(d)), divided by the element count
// after a mean.
#ifndef OP_API_INC_SMOOTH_L1_LOSS_BACKWARD_H_
#define OP_API_INC_SMOOTH_L1_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. reduction and beta are the forward's; gradOut, self and target broadcast to one shape,
 * which gradInput has, and their dtypes promote (fp32, fp16, and bf16 where the SoC has it).
 */
ACLNN_API aclnnStatus aclnnSmoothL1LossBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* self, const aclTensor* target, int64_t reduction,
    float beta, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnSmoothL1LossBackward(void* workspace, uint64_t workspaceSize,
                                                aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_SMOOTH_L1_LOSS_BACKWARD_H_
