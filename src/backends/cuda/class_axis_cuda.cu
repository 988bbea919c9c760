// The CUDA kernel of the class-axis families: the steps of class_axis_cuda_steps.h in four
// kernels on the launch's stream (the counted weights, where a mean's gradient needs them; the
// rows' constants; the positions; the finish), over scratch memory allocated on the stream. A
// target out of range is reported as the CPU reports it, so the call waits for the stream to learn
// whether there was one.
#include "backends/cuda/class_axis_cuda.h"

#include <cuda_runtime.h>

#include "backends/cuda/class_axis_cuda_steps.h"

namespace openaclnn::cuda {
namespace {

__global__ void __launch_bounds__(kClassAxisThreads)
    CountedWeightsKernel(const ClassAxisLaunch launch) {
  const int64_t thread = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread >= launch.view.problem.positions) return;  // nothing to add
  math::exact::ExactSum sum;
  AddCountedWeights(launch, thread, sum);
  sum.AtomicAddTo(launch.counted_weights);  // exact: the same in any order
}

__global__ void ConstantsKernel(const ClassAxisLaunch launch) { ComputeConstants(launch); }

// Each thread's positions, then its block's threads' partials folded in thread order by thread 0.
template <class Family>
__global__ void __launch_bounds__(kClassAxisThreads) PositionsKernel(const ClassAxisLaunch launch) {
  // Raw storage: a __shared__ variable cannot have a constructor.
  __shared__ alignas(
      ClassAxisPartial) unsigned char storage[sizeof(ClassAxisPartial) * kClassAxisThreads];
  auto* threads = reinterpret_cast<ClassAxisPartial*>(storage);
  const RowConstants k = *launch.constants;
  threads[threadIdx.x] =
      RunThread<Family>(launch, k, static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) launch.partials[blockIdx.x] = Folded(threads, kClassAxisThreads);
}

template <class Family>
__global__ void FinishKernel(const ClassAxisLaunch launch) {
  Finish<Family>(launch);
}

const char* Status(cudaError_t status) {
  if (status == cudaSuccess) return nullptr;
  cudaGetLastError();
  return cudaGetErrorString(status);
}

}  // namespace

const char* RunClassAxisCuda(const ClassAxisProblem& problem, const LaunchContext& context) {
  auto stream = static_cast<cudaStream_t>(context.queue);
  void* scratch = nullptr;
  if (const char* why = Status(
          cudaMallocAsync(&scratch, ClassAxisScratchBytes(ClassAxisBlocks(problem)), stream))) {
    return why;
  }
  const ClassAxisLaunch launch = MakeClassAxisLaunch(problem, context, scratch);
  const auto blocks = static_cast<unsigned>(launch.blocks);
  if (class_axis::NeedsCountedWeights(problem)) {
    cudaMemsetAsync(launch.counted_weights, 0, sizeof(math::exact::ExactSum), stream);
    CountedWeightsKernel<<<blocks, kClassAxisThreads, 0, stream>>>(launch);
  }
  ConstantsKernel<<<1, 1, 0, stream>>>(launch);
  WithClassAxisFamily(problem.family, [&](auto family) {
    using Family = decltype(family);
    PositionsKernel<Family><<<blocks, kClassAxisThreads, 0, stream>>>(launch);
    FinishKernel<Family><<<1, 1, 0, stream>>>(launch);
  });
  const char* launched = Status(cudaGetLastError());
  class_axis::Fault fault;
  if (launched == nullptr) {
    launched =
        Status(cudaMemcpyAsync(&fault, launch.fault, sizeof fault, cudaMemcpyDeviceToHost, stream));
  }
  cudaFreeAsync(scratch, stream);
  if (launched != nullptr) return launched;
  if (const char* why = Status(cudaStreamSynchronize(stream))) return why;
  return fault.Any() ? class_axis::FaultText(problem, fault) : nullptr;
}

}  // namespace openaclnn::cuda
