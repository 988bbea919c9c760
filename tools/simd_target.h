// What the library's kernels run on here: the Highway target they dispatch to and their thread
// count (`openaclnn info`, `python -m openaclnn`).
#pragma once

namespace openaclnn::tools {

// The library keeps its choice internal, so this applies the library's rule here: the best
// target of this CPU among those src/kernels/cpu/tile_math_simd.cc compiles, "scalar" for the
// targets without a fused multiply-add (which run the scalar kernel). Keep the two in step.
const char* KernelSimdTarget();

// The library's own rule (thread_pool.cc): OPENACLNN_NUM_THREADS, else the CPUs available.
int KernelThreads();

}  // namespace openaclnn::tools
