// The L1 family's argument checks: CANN's, in CANN's order, in CANN's codes, with OpenACLNN's
// decisions (docs/contract/checks-and-codes.md §12, §13).
#pragma once

#include <cstdint>

#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// aclnnL1Loss's checks of operands self, target and out.
aclnnStatus ValidateL1Loss(const ArgumentChecker& check, const LossOperands& operands,
                           int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor);

// aclnnL1LossBackward's checks of operands gradOutput, self, target and gradInput (role out).
aclnnStatus ValidateL1LossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                   int64_t reduction, uint64_t* workspace_size,
                                   aclOpExecutor** executor);

// The dtype the op computes in: PromoteType of self and target, or the Backward's of gradOutput
// and self, then target (CANN's order); the checks made sure it exists.
int64_t L1LossPromotedType(const LossOperands& operands);

}  // namespace openaclnn
