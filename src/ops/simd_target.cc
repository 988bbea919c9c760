// Which Highway target the CPU kernels dispatch to. The kernels keep their choice internal, so
// this applies their rule: the best target of this CPU among those
// src/kernels/cpu/tile_math_simd.cc compiles, "scalar" for the targets without a fused
// multiply-add (which run the scalar kernel). Keep the two in step.
#include "ops/simd_target.h"

// Must match tile_math_simd.cc: it sets the targets compiled, hence HWY_TARGETS below.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "hwy/targets.h"
#include "openaclnn/op_table.h"

namespace openaclnn {
namespace {

// tile_math_simd.cc's OPENACLNN_FMA_TARGET.
bool HasFmaKernel(int64_t target) {
  if (target == HWY_AVX2 || target == HWY_AVX3 || target == HWY_AVX3_DL) return true;
  return HWY_ARCH_ARM_A64 && target == HWY_NEON;
}

}  // namespace

const char* KernelSimdTarget() {
  const int64_t candidates = hwy::SupportedTargets() & HWY_TARGETS;
  const int64_t best = candidates & -candidates;  // Highway: lower bit = better target
  return best != 0 && HasFmaKernel(best) ? hwy::TargetName(best) : "scalar";
}

}  // namespace openaclnn

extern "C" const char* openaclnnKernelSimdTarget(void) { return openaclnn::KernelSimdTarget(); }
