// aclnnKlDiv: the Kullback-Leibler divergence of log-probabilities self from target.
#ifndef OP_API_INC_KL_DIV_H_
#define OP_API_INC_KL_DIV_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @domain aclnn_math
 * Phase 1. Element-wise t (ln t - self) (logTarget false: target holds probabilities, t = 0
 * gives 0) or e^t (t - self) (logTarget true: target holds log-probabilities), over the
 * broadcast shape of self and target; reduction 0 none (out has that shape), 1 mean, 2 sum,
 * 3 batchmean (the sum divided by self's first dimension), each into a one-element out.
 */
ACLNN_API aclnnStatus aclnnKlDivGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                 int64_t reduction, bool logTarget, aclTensor* out,
                                                 uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: queues the computation on stream and returns. */
ACLNN_API aclnnStatus aclnnKlDiv(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_KL_DIV_H_
