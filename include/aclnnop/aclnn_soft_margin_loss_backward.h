// aclnnSoftMarginLossBackward: the soft margin loss's gradient with respect to self (library
// libopapi_nn).
#ifndef OP_API_INC_SOFT_MARGIN_LOSS_BACKWARD_H_
#define OP_API_INC_SOFT_MARGIN_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. reduction is the one the forward used (0 none, 1 mean, 2 sum; any other value is
 * refused); gradOutput, self and target broadcast to one shape B, which out has:
 * out = -target * gradOutput * sigmoid(-target * self), divided by the element count of
 * broadcast(self, target) for mean. Any supported dtypes (fp32, fp16, bf16 where the SoC has it).
 */
ACLNN_API aclnnStatus aclnnSoftMarginLossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnSoftMarginLossBackward(void* workspace, uint64_t workspaceSize,
                                                  aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_SOFT_MARGIN_LOSS_BACKWARD_H_
