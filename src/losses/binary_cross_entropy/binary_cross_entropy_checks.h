// The binary-cross-entropy ops' argument checks: CANN's, in CANN's order, in CANN's words and
// codes, with OpenACLNN's decisions (docs/contract/checks-and-codes.md §10, §11).
#pragma once

#include <cstdint>

#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// aclnnBinaryCrossEntropy's checks of operands self, target, weight and out.
aclnnStatus ValidateBinaryCrossEntropy(const ArgumentChecker& check, const LossOperands& operands,
                                       int64_t reduction, uint64_t* workspace_size,
                                       aclOpExecutor** executor);

// aclnnBinaryCrossEntropyBackward's checks of operands gradOutput, self, target, weight and out.
aclnnStatus ValidateBinaryCrossEntropyBackward(const ArgumentChecker& check,
                                               const LossOperands& operands, int64_t reduction,
                                               uint64_t* workspace_size, aclOpExecutor** executor);

}  // namespace openaclnn
