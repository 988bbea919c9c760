// The NLL ops' argument checks: CANN's, in CANN's order, in CANN's words and codes, with
// OpenACLNN's decisions (docs/contract/checks-and-codes.md §26-§29). Each op's attribute 0 is its
// ignoreIndex (LossOperands::whole).
#pragma once

#include <cstdint>

#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// aclnnNLLLoss: self (C) with a 0-D target or (N, C) with target (N); weight (C); out [N] (none
// with a 2-D self) or one element; totalWeightOut one element.
aclnnStatus ValidateNllLoss(const ArgumentChecker& check, const LossOperands& operands,
                            int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor);

// aclnnNLLLoss2d: self (N, C, H, W), target (N, H, W), weight of C; out target's shape (none) or
// one element; totalWeightOut one element.
aclnnStatus ValidateNllLoss2d(const ArgumentChecker& check, const LossOperands& operands,
                              int64_t reduction, uint64_t* workspace_size,
                              aclOpExecutor** executor);

// aclnnNLLLossBackward: gradOutput [N] (none with a 2-D self) or one element, self and target as
// the forward's, weight (C), totalWeight one element; out self's shape.
aclnnStatus ValidateNllLossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                    int64_t reduction, uint64_t* workspace_size,
                                    aclOpExecutor** executor);

// aclnnNLLLoss2dBackward: gradOutput target's shape (none) or one element, self and target as
// aclnnNLLLoss2d's; out self's shape.
aclnnStatus ValidateNllLoss2dBackward(const ArgumentChecker& check, const LossOperands& operands,
                                      int64_t reduction, uint64_t* workspace_size,
                                      aclOpExecutor** executor);

}  // namespace openaclnn
