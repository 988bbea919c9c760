// The CUDA kernel of the class-axis families (LossKernels::run_class_axis), defined in
// class_axis_cuda.cu.
#pragma once

#include "base/executor.h"
#include "kernels/class_axis_problem.h"

namespace openaclnn::cuda {

const char* RunClassAxisCuda(const ClassAxisProblem& problem, const LaunchContext& context);

}  // namespace openaclnn::cuda
