// aclnnSoftMarginLoss: the soft margin (logistic) loss log(1 + exp(-target * self)), two-phase API
// (library libopapi_nn).
#ifndef OP_API_INC_SOFT_MARGIN_LOSS_H_
#define OP_API_INC_SOFT_MARGIN_LOSS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_ops_train
 * Phase 1: checks the arguments, reports the device workspace needed and creates the executor.
 * self and target broadcast to one shape B (target is any real number, usually +-1); their
 * dtypes may differ (fp32, fp16, bf16 where the SoC has it). reduction: 0 none (out has shape
 * B), 1 mean, 2 sum (out is 0-D); any other value is refused. out may have any supported dtype.
 */
ACLNN_API aclnnStatus aclnnSoftMarginLossGetWorkspaceSize(const aclTensor* self,
                                                          const aclTensor* target,
                                                          int64_t reduction, aclTensor* out,
                                                          uint64_t* workspaceSize,
                                                          aclOpExecutor** executor);

/**
 * Phase 2: queues the computation on stream and returns; synchronize the stream before reading
 * out. Call once per phase-1 executor unless it was made repeatable.
 */
ACLNN_API aclnnStatus aclnnSoftMarginLoss(void* workspace, uint64_t workspaceSize,
                                          aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_SOFT_MARGIN_LOSS_H_
