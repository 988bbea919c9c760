// Which Highway target the library's kernels dispatch to on this CPU.
#pragma once

namespace openaclnn::tools {

// The library keeps its choice internal, so this applies the library's rule here: the best
// target of this CPU among those src/kernels/cpu/tile_math_simd.cc compiles, "scalar" for the
// targets without a fused multiply-add (which run the scalar kernel). Keep the two in step.
const char* KernelSimdTarget();

}  // namespace openaclnn::tools
