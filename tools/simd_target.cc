#include "simd_target.h"

// Must match tile_math_simd.cc: it sets the targets compiled, hence HWY_TARGETS below.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "hwy/highway.h"
#include "hwy/targets.h"

namespace openaclnn::tools {
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

int KernelThreads() {
  if (const char* text = std::getenv("OPENACLNN_NUM_THREADS"); text && std::atoi(text) > 0) {
    return std::atoi(text);
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace openaclnn::tools
