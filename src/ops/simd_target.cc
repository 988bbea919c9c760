// What the CPU kernels run on, for `openaclnn info`, the Python package and OPENACLNN_VERBOSE: the
// SIMD target the kernels' own dispatch chose and their thread pool's size.
#include "kernels/cpu/thread_pool.h"
#include "kernels/cpu/tile_math.h"
#include "openaclnn/op_table.h"

extern "C" const char* openaclnnKernelSimdTarget(void) { return openaclnn::EvaluateTileTarget(); }

extern "C" int openaclnnKernelThreads(void) {
  return openaclnn::cpu::ThreadPool::Instance().threads();
}
