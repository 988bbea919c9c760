// What every family's SIMD tiles share at run time: the Highway target they are dispatched to
// (each family's tiles: src/losses/<family>/cpu/), and the thread's staging buffer. Only targets
// with a native fused multiply-add run the SIMD evaluators (their lanes then get the scalar
// code's bits); the others run each family's scalar definition.

#include "backends/cpu/simd/simd_targets.h"  // before Highway

#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/tile_math.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/tile_math_simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits.
#if HWY_NATIVE_FMA
const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }
#else  // no fused multiply-add on this target: the scalar code gives the defined bits
const char* TargetNameImpl() { return "scalar"; }
#endif

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(TargetNameImpl);

TileStaging& ThreadTileStaging() {
  thread_local TileStaging staging;
  return staging;
}

const char* EvaluateTileTarget() { return HWY_DYNAMIC_DISPATCH(TargetNameImpl)(); }

}  // namespace openaclnn
#endif  // HWY_ONCE
