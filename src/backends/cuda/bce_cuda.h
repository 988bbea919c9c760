// The CUDA backend's kernel table (kernels/loss_problem.h), defined in bce_cuda.cu.
#pragma once

#include "kernels/loss_problem.h"

namespace openaclnn {

extern const LossKernels kCudaLossKernels;

}  // namespace openaclnn
