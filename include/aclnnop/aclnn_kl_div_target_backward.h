// aclnnKlDivTargetBackward: the gradient of aclnnKlDiv's loss with respect to target.
#ifndef OP_API_INC_KL_DIV_TARGET_BACKWARD_H_
#define OP_API_INC_KL_DIV_TARGET_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. gradOutput (ln t - self + 1) (logTarget false; NaN at t <= 0) or gradOutput e^t
 * (t - self + 1) (logTarget true) over the broadcast shape of self and target (gradOutput
 * broadcasts into it), divided by its element count for reduction 1 (mean) or by self's first
 * dimension for 3 (batchmean), and summed back into gradTarget, which has target's shape and
 * dtype.
 */
ACLNN_API aclnnStatus aclnnKlDivTargetBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    bool logTarget, aclTensor* gradTarget, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnKlDivTargetBackward(void* workspace, uint64_t workspaceSize,
                                               aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_KL_DIV_TARGET_BACKWARD_H_
