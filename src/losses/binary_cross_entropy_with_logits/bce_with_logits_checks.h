// The BCE-with-logits ops' argument checks: CANN's, in CANN's order, in CANN's words and codes.
#pragma once

#include <cstdint>

#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// The forward's checks (docs/contract/checks-and-codes.md §2) of operands self, target, weight,
// posWeight and out, under `check`'s API name.
aclnnStatus ValidateLoss(const ArgumentChecker& check, const LossOperands& operands,
                         int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor);

// The gradient ops' checks (docs/contract/checks-and-codes.md §3) of operands gradOutput, self,
// target, weight, posWeight and out (named `out_name`). A null gradOutput passes when
// `grad_output_optional`.
aclnnStatus ValidateGradient(const ArgumentChecker& check, const LossOperands& operands,
                             const char* out_name, int64_t reduction, bool grad_output_optional,
                             uint64_t* workspace_size, aclOpExecutor** executor);

}  // namespace openaclnn
