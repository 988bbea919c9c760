// The element math written once for every backend: exp, log1p, ln and 1/(1 + e)
// (transcendentals.inc) and estimates with their rounding tests (estimate.inc), over the tables of
// math_tables.h.
//
// Each function is a template over an "arithmetic" policy O that supplies the vector type
// O::V (float for scalar code, a SIMD vector for Highway kernels) and the few operations C++
// operators do not cover. Every step is an IEEE-exact operation (+, -, *, /, fused multiply-add,
// min/max, select, exponent-field arithmetic), so the scalar, SIMD and CUDA instantiations
// return the same bits for every finite input, whatever the vector width. This header gives them
// to scalar code with its policy (scalar_ops.h: ScalarOps, ScalarOps64); the double-double forms
// are in double_double.h, the fp32 reference forms in reference_math.h.
#pragma once

#include "kernels/math_tables.h"
#include "kernels/scalar_ops.h"

namespace openaclnn::math {

// In .inc files so that each Highway target can compile its own copy (see the note there).
#include "kernels/transcendentals.inc"

#include "kernels/estimate.inc"

}  // namespace openaclnn::math
