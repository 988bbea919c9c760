// The CUDA backend's kernel table (kernels/loss_problem.h), defined in loss_kernels_cuda.cu.
#pragma once

#include "kernels/loss_problem.h"

namespace openaclnn {

extern const LossKernels kCudaLossKernels;

}  // namespace openaclnn
