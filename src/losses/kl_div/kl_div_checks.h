// The KL divergence ops' argument checks: CANN's, in CANN's order, in CANN's words and codes, with
// OpenACLNN's decisions (docs/contract/checks-and-codes.md §12-§14).
#pragma once

#include <cstdint>

#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// aclnnKlDiv's checks of operands self, target and out.
aclnnStatus ValidateKlDiv(const ArgumentChecker& check, const LossOperands& operands,
                          int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor);

// aclnnKlDivBackward's checks of operands gradOutput, self, target and out.
aclnnStatus ValidateKlDivBackward(const ArgumentChecker& check, const LossOperands& operands,
                                  int64_t reduction, uint64_t* workspace_size,
                                  aclOpExecutor** executor);

// aclnnKlDivTargetBackward's checks of operands gradOutput, self, target and gradTarget.
aclnnStatus ValidateKlDivTargetBackward(const ArgumentChecker& check, const LossOperands& operands,
                                        int64_t reduction, uint64_t* workspace_size,
                                        aclOpExecutor** executor);

}  // namespace openaclnn
