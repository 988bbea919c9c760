// aclnnNLLLossBackward: the gradient of aclnnNLLLoss with respect to self.
#ifndef OP_API_INC_NLL_LOSS_BACKWARD_H_
#define OP_API_INC_NLL_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. out (self's shape) is -gradOutput * weight[t] at each counted position's target class
 * (divided by totalWeight, as given, for reduction 1 mean) and 0 elsewhere. gradOutput: [N] for
 * reduction 0 with a 2-D self, else one element; gradOutput, weight and totalWeight (one element)
 * have self's dtype; self, target, weight and ignoreIndex as aclnnNLLLoss's.
 */
ACLNN_API aclnnStatus aclnnNLLLossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weight, int64_t reduction, int64_t ignoreIndex, const aclTensor* totalWeight,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnNLLLossBackward(void* workspace, uint64_t workspaceSize,
                                           aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_NLL_LOSS_BACKWARD_H_
