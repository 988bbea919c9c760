// The CPU backend: host memory (cpu_device.cc) and the host kernels on the CPU's thread pool
// (loss_kernels_cpu.cc).
#pragma once

#include "kernels/loss_problem.h"
#include "runtime/device.h"

namespace openaclnn {

// The kernels of the host's own memory, run on the CPU's thread pool.
extern const LossKernels kCpuLossKernels;

// The backend's factory (backends/registry.cc): one device, these kernels.
void MakeCpuBackend(Backend* backend);

}  // namespace openaclnn
