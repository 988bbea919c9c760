// openaclnnHuberLoss and its Backward: an OpenACLNN extension, not part of CANN (hence its own
// directory, include/openaclnn/): PyTorch's huber_loss, with d = self - target,
// |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta). Its checks are aclnnSmoothL1Loss's and
// aclnnSmoothL1LossBackward's, delta > 0 (+inf included) where those take beta >= 0.
#ifndef OPENACLNN_ACLNN_HUBER_LOSS_H_
#define OPENACLNN_ACLNN_HUBER_LOSS_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1. self and target broadcast to one shape and their dtypes promote (fp32, fp16, and bf16
 * where the SoC has it); reduction is 0 none (out has the broadcast shape), 1 mean or 2 sum (out
 * holds one element); delta > 0. out may have any supported dtype.
 */
ACLNN_API aclnnStatus openaclnnHuberLossGetWorkspaceSize(const aclTensor* self,
                                                         const aclTensor* target, int64_t reduction,
                                                         double delta, aclTensor* out,
                                                         uint64_t* workspaceSize,
                                                         aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus openaclnnHuberLoss(void* workspace, uint64_t workspaceSize,
                                         aclOpExecutor* executor, aclrtStream stream);

/**
 * Phase 1 of the gradient with respect to self, gradOutput * (|d| < delta ? d : delta sign(d)),
 * divided by the element count after a mean. reduction and delta are the forward's; gradOutput,
 * self and target broadcast to one shape, which gradInput has.
 */
ACLNN_API aclnnStatus openaclnnHuberLossBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    double delta, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus openaclnnHuberLossBackward(void* workspace, uint64_t workspaceSize,
                                                 aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNN_HUBER_LOSS_H_
