// The MSE ops' argument checks: CANN's, in CANN's order, in CANN's words and codes, with
// OpenACLNN's decisions (docs/contract/checks-and-codes.md §17-§19).
#pragma once

#include <cstdint>

#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// aclnnMseLoss's checks of operands self, target and out (0-D for mean and sum).
aclnnStatus ValidateMseLoss(const ArgumentChecker& check, const LossOperands& operands,
                            int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor);

// aclnnMseLossOut's: as aclnnMseLoss's, but out of the broadcast shape without its first
// dimension for mean and sum (the reduction over dimension 0).
aclnnStatus ValidateMseLossOut(const ArgumentChecker& check, const LossOperands& operands,
                               int64_t reduction, uint64_t* workspace_size,
                               aclOpExecutor** executor);

// aclnnMseLossBackward's checks of operands gradOutput, self, target and out.
aclnnStatus ValidateMseLossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                    int64_t reduction, uint64_t* workspace_size,
                                    aclOpExecutor** executor);

}  // namespace openaclnn
