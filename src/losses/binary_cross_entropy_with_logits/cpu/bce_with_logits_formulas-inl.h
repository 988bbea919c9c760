// The family's formulas (bce_with_logits_formulas.inc) compiled for each Highway target over the
// element math of vector_ops-inl.h (whose Estimate64 and FiniteZero they name), for the fp64 and
// the fp32-lane evaluators.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#if defined(OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FORMULAS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FORMULAS_INL_H_
#undef OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FORMULAS_INL_H_
#else
#define OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FORMULAS_INL_H_
#endif

#include "backends/cpu/simd/vector_ops-inl.h"
#include "hwy/highway.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_math.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// In a .inc file so that each target compiles its own copy (see transcendentals.inc).
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_formulas.inc"

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_LOSSES_BCE_WITH_LOGITS_CPU_FORMULAS_INL_H_
