// The cross entropy ops' argument checks: CANN's generated glue's (nulls, then the op
// definition's dtypes), then what CANN's infershape and tiling check late (561002), here at phase 1
// as 161002 (docs/contract/checks-and-codes.md §30-§31). Attribute 0 is the ops' ignoreIndex
// (LossOperands::whole), attribute 1 their labelSmoothing.
#pragma once

#include <cstdint>

#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

// A reductionOptional string as the table's reduction: NULL and "mean" 1, "none" 0, "sum" 2, and
// kUnknownReduction for any other (which the checks refuse after the null checks).
inline constexpr int64_t kUnknownReduction = -1;
int64_t ReductionNamed(const char* name);

// aclnnCrossEntropyLoss: input (N, C), target (N), weightOptional (C) fp32; lossOut [N] (none) or
// one element; logProbOut (N, C); zlossOut and lseForZlossOut present, input's dtype.
aclnnStatus ValidateCrossEntropyLoss(const ArgumentChecker& check, const LossOperands& operands,
                                     int64_t reduction, uint64_t* workspace_size,
                                     aclOpExecutor** executor);

// aclnnCrossEntropyLossGrad: gradLoss [N] (none) or one element, logProb (N, C), target (N),
// weightOptional (C) fp32; out (N, C); the optional zloss inputs, where given, logProb's dtype.
aclnnStatus ValidateCrossEntropyLossGrad(const ArgumentChecker& check, const LossOperands& operands,
                                         int64_t reduction, uint64_t* workspace_size,
                                         aclOpExecutor** executor);

}  // namespace openaclnn
