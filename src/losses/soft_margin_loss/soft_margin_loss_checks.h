// The soft margin ops' argument checks: CANN's, in CANN's order, in CANN's words and codes, with
// OpenACLNN's decisions (docs/contract/checks-and-codes.md, the soft margin sections).
#pragma once

#include <cstdint>

#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// aclnnSoftMarginLoss's checks of operands self, target and out.
aclnnStatus ValidateSoftMarginLoss(const ArgumentChecker& check, const LossOperands& operands,
                                   int64_t reduction, uint64_t* workspace_size,
                                   aclOpExecutor** executor);

// aclnnSoftMarginLossBackward's checks of operands gradOutput, self, target and out.
aclnnStatus ValidateSoftMarginLossBackward(const ArgumentChecker& check,
                                           const LossOperands& operands, int64_t reduction,
                                           uint64_t* workspace_size, aclOpExecutor** executor);

}  // namespace openaclnn
