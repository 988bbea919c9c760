// The loss and gradient math of the BCE-with-logits family, written once for every backend: its
// formulas (bce_formulas.inc) over the element math (math.h), with their error budget
// (bce_error_budget.h), for scalar code. The double-double forms are in bce_exact.h, the fp32
// reference forms in bce_reference.h.
#pragma once

#include "kernels/bce_error_budget.h"
#include "kernels/math.h"

namespace openaclnn::math {

// In a .inc file so that each Highway target can compile its own copy (see the note there).
#include "kernels/bce_formulas.inc"

}  // namespace openaclnn::math
