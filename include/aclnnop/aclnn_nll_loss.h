// aclnnNLLLoss: the negative log likelihood -weight[t] self[t] of log-probabilities self,
// per position or averaged over the weights or summed; with the total weight.
#ifndef OP_API_INC_NLL_LOSS_H_
#define OP_API_INC_NLL_LOSS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1. self: log-probabilities (C) with a 0-D target, or (N, C) with a target (N); FLOAT,
 * FLOAT16 or (where the SoC has it) BFLOAT16. target: class indices, INT64, INT32 or UINT8; a
 * target equal to ignoreIndex counts for nothing, any other outside [0, C) makes the launch fail
 * (the stream's synchronization reports it). weight: (C), self's dtype (required). reduction: 0
 * none (out [N]; one element for a 1-D self), 1 mean (sum / total weight) or 2 sum (out one
 * element). totalWeightOut: one element, the sum of the weights of the targets that count (0 for
 * none). out and totalWeightOut: FLOAT, FLOAT16 or BFLOAT16, each result rounded once into it.
 */
ACLNN_API aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                   const aclTensor* weight, int64_t reduction,
                                                   int64_t ignoreIndex, aclTensor* out,
                                                   aclTensor* totalWeightOut,
                                                   uint64_t* workspaceSize,
                                                   aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnNLLLoss(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_NLL_LOSS_H_
