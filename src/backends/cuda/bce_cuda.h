// The CUDA backend's kernel table (kernels/bce.h), defined in bce_cuda.cu.
#pragma once

#include "kernels/bce.h"

namespace openaclnn {

extern const BceKernels kCudaBceKernels;

}  // namespace openaclnn
