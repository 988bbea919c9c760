// aclnnSmoothL1Loss: the smooth L1 loss of self against target, with d = self - target,
// |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta (beta = 0: |d|), element-wise or averaged or summed.
#ifndef OP_API_INC_LEVEL2_ACLNN_SMOOTH_L1_LOSS_H_
#define OP_API_INC_LEVEL2_ACLNN_SMOOTH_L1_LOSS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. self and target broadcast to one shape and their dtypes promote (fp32, fp16, and bf16
 * where the SoC has it); reduction is 0 none (result has the broadcast shape), 1 mean or 2 sum
 * (result holds one element); beta >= 0. result may have any supported dtype.
 */
ACLNN_API aclnnStatus aclnnSmoothL1LossGetWorkspaceSize(const aclTensor* self,
                                                        const aclTensor* target, int64_t reduction,
                                                        float beta, aclTensor* result,
                                                        uint64_t* workspaceSize,
                                                        aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnSmoothL1Loss(void* workspace, uint64_t workspaceSize,
                                        aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_LEVEL2_ACLNN_SMOOTH_L1_LOSS_H_
