// The loss and gradient math of the BCE-with-logits family, written once for every backend: its
// formulas (bce_with_logits_formulas.inc) over the element math (math.h), with their error budget
// (bce_with_logits_error_budget.h), for scalar code. The double-double forms are in
// bce_with_logits_exact.h, the fp32 reference forms in bce_with_logits_reference.h.
#pragma once

#include "kernels/math.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_error_budget.h"

namespace openaclnn::math {

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_formulas.inc"

}  // namespace openaclnn::math
