// What the active backend's kernels run on, for `openaclnn info`, the Python package and
// OPENACLNN_VERBOSE: the kernel table says (the CPU's: the SIMD target its dispatch chose and its
// thread pool's size). "-" and 0 where the backend has no device.
#include "kernels/loss_problem.h"
#include "openaclnn/op_table.h"

extern "C" const char* openaclnnKernelSimdTarget(void) {
  const openaclnn::LossKernels* kernels = openaclnn::CurrentLossKernels();
  return kernels == nullptr ? "-" : kernels->simd_target();
}

extern "C" int openaclnnKernelThreads(void) {
  const openaclnn::LossKernels* kernels = openaclnn::CurrentLossKernels();
  return kernels == nullptr ? 0 : kernels->threads();
}
