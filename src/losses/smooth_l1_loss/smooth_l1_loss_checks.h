// The smooth L1 family's argument checks: CANN's aclnnSmoothL1Loss and aclnnSmoothL1LossBackward,
// in CANN's order, words and codes, with OpenACLNN's decisions (docs/contract/checks-and-codes.md
// §20-§23); the Huber extension's are the same, delta > 0 where those take beta >= 0.
#pragma once

#include <cstdint>

#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// aclnnSmoothL1Loss's checks of operands self, target and result; beta is operands.attribute[0].
aclnnStatus ValidateSmoothL1Loss(const ArgumentChecker& check, const LossOperands& operands,
                                 int64_t reduction, uint64_t* workspace_size,
                                 aclOpExecutor** executor);

// aclnnSmoothL1LossBackward's checks of operands gradOut, self, target and gradInput; beta is
// operands.attribute[0].
aclnnStatus ValidateSmoothL1LossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                         int64_t reduction, uint64_t* workspace_size,
                                         aclOpExecutor** executor);

// openaclnnHuberLoss's checks of operands self, target and out; delta is operands.attribute[0].
aclnnStatus ValidateHuberLoss(const ArgumentChecker& check, const LossOperands& operands,
                              int64_t reduction, uint64_t* workspace_size,
                              aclOpExecutor** executor);

// openaclnnHuberLossBackward's checks of operands gradOutput, self, target and gradInput; delta is
// operands.attribute[0].
aclnnStatus ValidateHuberLossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                      int64_t reduction, uint64_t* workspace_size,
                                      aclOpExecutor** executor);

}  // namespace openaclnn
