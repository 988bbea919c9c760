// The CPU's kernels of the class-axis families (LossKernels::run_class_axis).
#pragma once

#include "base/executor.h"
#include "kernels/class_axis_problem.h"

namespace openaclnn::cpu {

const char* RunClassAxisCpu(const ClassAxisProblem& problem, const LaunchContext& context);

}  // namespace openaclnn::cpu
