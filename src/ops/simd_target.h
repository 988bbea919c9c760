// The SIMD target the CPU kernels run (openaclnnKernelSimdTarget).
#pragma once

namespace openaclnn {

// A Highway target name ("AVX2", "NEON", ...) or "scalar".
const char* KernelSimdTarget();

}  // namespace openaclnn
