// The CUDA kernels of every loss family (WithFamily): one fused pass per launch (the one-pass loss
// and self gradient writes both results from it). Element-wise results come from a grid-stride
// kernel that reads 4 elements per operand at once (one vector load where the operand is contiguous
// and aligned, gathers through strides otherwise, one value for broadcast operands); fp16/bf16 are
// widened in registers. Mean and sum follow the CPU's reduction order exactly (reduction.h): one
// thread block per reduction block writes that block's partial (fp64 sum and error bound) to the
// workspace, one thread combines the partials in block order, and where the total's rounding is in
// doubt the exact pass runs (two more kernels, which return at once otherwise).
#include <cuda_runtime.h>

#include "backends/cuda/class_axis_cuda.h"
#include "backends/cuda/loss_kernels_cuda.h"
#include "backends/cuda/loss_kernels_cuda_block.h"
#include "kernels/class_axis_families.h"

namespace openaclnn {
namespace {

using cuda::Access;
using cuda::DeviceLaunch;
using cuda::DeviceOperand;
using cuda::kVector;

constexpr int kThreads = 256;
// Enough blocks of the grid-stride kernels to fill any current GPU several times over.
constexpr int64_t kMaxGrid = 65535;

// Four consecutive elements of an operand, from flat index `first`, widened to fp32.
__device__ inline void ReadFour(const DeviceLaunch& launch, int which, int64_t first,
                                float (&values)[kVector]) {
  const DeviceOperand& operand = launch.operand[which];
  if (operand.vector_aligned) {
    const int64_t element = operand.layout.offset + first;
    if (operand.layout.type == FloatType::kFloat32) {
      const float4 four =
          *reinterpret_cast<const float4*>(static_cast<const float*>(operand.base) + element);
      values[0] = four.x, values[1] = four.y, values[2] = four.z, values[3] = four.w;
      return;
    }
    const uint2 four =
        *reinterpret_cast<const uint2*>(static_cast<const uint16_t*>(operand.base) + element);
    const uint16_t halves[kVector] = {
        static_cast<uint16_t>(four.x), static_cast<uint16_t>(four.x >> 16),
        static_cast<uint16_t>(four.y), static_cast<uint16_t>(four.y >> 16)};
    for (int j = 0; j < kVector; ++j) values[j] = LoadAs32(halves, operand.layout.type, j);
    return;
  }
  for (int j = 0; j < kVector; ++j) values[j] = cuda::ReadAt(launch, which, first + j);
}

__device__ inline void WriteFour(const DeviceLaunch& launch, int64_t first,
                                 const float (&values)[kVector]) {
  const DeviceOperand& out = launch.operand[kOut];
  if (!out.vector_aligned) {
    for (int j = 0; j < kVector; ++j) cuda::WriteAt(launch, first + j, values[j]);
    return;
  }
  const int64_t element = out.layout.offset + first;
  if (out.layout.type == FloatType::kFloat32) {
    *reinterpret_cast<float4*>(static_cast<float*>(out.base) + element) =
        make_float4(values[0], values[1], values[2], values[3]);
    return;
  }
  uint16_t halves[kVector];
  for (int j = 0; j < kVector; ++j) StoreFrom32(halves, out.layout.type, j, values[j]);
  *reinterpret_cast<uint2*>(static_cast<uint16_t*>(out.base) + element) =
      make_uint2(halves[0] | (static_cast<uint32_t>(halves[1]) << 16),
                 halves[2] | (static_cast<uint32_t>(halves[3]) << 16));
}

template <class Family, LossKind kKind>
__device__ inline void EvaluateFour(const DeviceLaunch& launch, int64_t first) {
  float inputs[kOut][kVector];
  for (int which = kSelf; which < kOut; ++which) ReadFour(launch, which, first, inputs[which]);
  float values[kVector];
  for (int j = 0; j < kVector; ++j) {
    ElementInputs in;
    in.x = inputs[kSelf][j];
    in.t = inputs[kTarget][j];
    in.w = inputs[kWeight][j];
    in.p = inputs[kPosWeight][j];
    in.g = inputs[kGradOutput][j];
    values[j] = Family::Element(kKind, launch.parameters, in, launch.operand[kOut].layout.type);
  }
  WriteFour(launch, first, values);
  if (kKind == LossKind::kLoss && cuda::Fused(launch)) {
    for (int j = 0; j < kVector; ++j) cuda::WriteGradientAt<Family>(launch, first + j);
  }
}

template <class Family, LossKind kKind>
__global__ void __launch_bounds__(kThreads) ElementwiseKernel(const DeviceLaunch launch) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x * kVector;
  for (int64_t first = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kVector;
       first < launch.count; first += step) {
    if (first + kVector <= launch.count) {
      EvaluateFour<Family, kKind>(launch, first);
    } else {
      for (int64_t i = first; i < launch.count; ++i) {
        cuda::WriteAt(launch, i, cuda::EvaluateAt<Family>(launch, i));
        if (kKind == LossKind::kLoss && cuda::Fused(launch)) {
          cuda::WriteGradientAt<Family>(launch, i);
        }
      }
    }
  }
}

// The exact pass's terms of block `block`, by thread 0: an ExactSum of its own, added into the
// workspace's (exact, so the blocks may add in any order).
template <class Family>
__device__ inline void ExactBlock(const DeviceLaunch& launch, int64_t block) {
  if (threadIdx.x != 0) return;
  math::exact::ExactSum sum;
  cuda::AddExactTerms<Family>(launch, block * kReductionBlock, cuda::BlockLength(launch, block),
                              sum);
  sum.AtomicAddTo(launch.workspace.exact);
}

// The lanes of `values` (a block's first `length`) summed in the block order, folded by thread 0.
__device__ inline double FoldedLaneSums(const double* values, int length) {
  __shared__ double lanes[kBlockLanes];
  if (threadIdx.x < kBlockLanes) {
    lanes[threadIdx.x] = cuda::LaneSum(values, length, static_cast<int>(threadIdx.x));
  }
  __syncthreads();
  return threadIdx.x == 0 ? FoldLanes(lanes) : 0.0;
}

// Block `block`'s partial, by all of a thread block's threads: thread k evaluates elements k,
// k + kThreads, ... (fp64 terms in the second pass, ReductionPass::kFp64Terms); the terms and
// then their bounds go through shared memory, where kBlockLanes threads sum one lane each in
// index order, and thread 0 folds the lanes as reduction.h says.
template <class Family>
__device__ inline void BlockPartial(const DeviceLaunch& launch, int64_t block, bool fp64_terms) {
  constexpr int kPerThread = kReductionBlock / kThreads;
  __shared__ double values[kReductionBlock];  // the terms, then their bounds: 32 KiB
  const int64_t begin = block * kReductionBlock;
  const int length = cuda::BlockLength(launch, block);
  double bounds[kPerThread];
  for (int k = 0; k < kPerThread; ++k) {
    const int i = static_cast<int>(threadIdx.x) + k * kThreads;
    if (i >= length) break;
    const Partial term = cuda::TermAt<Family>(launch, begin + i, fp64_terms);
    values[i] = term.sum;
    bounds[k] = term.bound;
    if (!fp64_terms && cuda::Fused(launch)) cuda::WriteGradientAt<Family>(launch, begin + i);
  }
  __syncthreads();
  const double sum = FoldedLaneSums(values, length);
  __syncthreads();
  for (int k = 0; k < kPerThread; ++k) {
    const int i = static_cast<int>(threadIdx.x) + k * kThreads;
    if (i >= length) break;
    values[i] = bounds[k];
  }
  __syncthreads();
  const double bound = FoldedLaneSums(values, length);
  if (threadIdx.x == 0) launch.workspace.partials[block] = {sum, bound};
  __syncthreads();
}

// The next pass as FinishReduction left it (uniform across the thread block once it has synced).
__device__ inline bool NextPassIs(const DeviceLaunch& launch, ReductionPass pass) {
  return *launch.workspace.next_pass == pass;
}

// One thread block per reduction block. The second pass (`fp64_terms`) runs only where
// FinishReduction asked for it. A one-block problem (N <= 4096) finishes here, every pass
// included: fewer kernel launches for small calls.
template <class Family>
__global__ void __launch_bounds__(kThreads)
    BlockPartialsKernel(const DeviceLaunch launch, bool fp64_terms) {
  if (fp64_terms && !NextPassIs(launch, ReductionPass::kFp64Terms)) return;
  BlockPartial<Family>(launch, blockIdx.x, fp64_terms);
  if (gridDim.x != 1 || fp64_terms) return;
  if (threadIdx.x == 0) cuda::FinishReduction<Family>(launch, false);
  __syncthreads();
  if (NextPassIs(launch, ReductionPass::kFp64Terms)) {
    BlockPartial<Family>(launch, 0, true);
    if (threadIdx.x == 0) cuda::FinishReduction<Family>(launch, true);
    __syncthreads();
  }
  if (!NextPassIs(launch, ReductionPass::kExact)) return;
  ExactBlock<Family>(launch, 0);
  __syncthreads();
  if (threadIdx.x == 0) cuda::FinishExactReduction<Family>(launch);
}

// The combine after the first pass, and after the second where it ran.
template <class Family>
__global__ void FinishReductionKernel(const DeviceLaunch launch, bool fp64_terms) {
  if (fp64_terms && !NextPassIs(launch, ReductionPass::kFp64Terms)) return;
  cuda::FinishReduction<Family>(launch, fp64_terms);
}

// The exact pass over every block, where FinishReduction asked for it (rarely: it returns at
// once otherwise).
template <class Family>
__global__ void ExactPartialsKernel(const DeviceLaunch launch) {
  if (!NextPassIs(launch, ReductionPass::kExact)) return;
  ExactBlock<Family>(launch, blockIdx.x);
}

// Output elements that each sum a segment (a reduction into a smaller shape): one thread each.
template <class Family>
__global__ void __launch_bounds__(kThreads) SegmentsKernel(const DeviceLaunch launch) {
  const int64_t outputs = launch.count / launch.segment;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < outputs;
       i += step) {
    cuda::SegmentAt<Family>(launch, i);
  }
}

// An integer problem's elements, stored one by one, or added (wrapping) into the workspace's
// integer total, one atomic addition per thread.
__global__ void __launch_bounds__(kThreads) IntegerKernel(const DeviceLaunch launch) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  unsigned long long sum = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < launch.count;
       i += step) {
    const int64_t value = cuda::IntegerAt(launch, i);
    if (launch.Reduces()) {
      sum += static_cast<unsigned long long>(value);
    } else {
      cuda::WriteIntegerAt(launch, cuda::ElementAt(launch, kOut, i), value);
    }
  }
  if (launch.Reduces()) {
    atomicAdd(reinterpret_cast<unsigned long long*>(launch.workspace.integer_total), sum);
  }
}

__global__ void FinishIntegerKernel(const DeviceLaunch launch) {
  cuda::WriteIntegerAt(launch, launch.operand[kOut].layout.offset,
                       static_cast<int64_t>(*launch.workspace.integer_total));
}

template <class Family>
__global__ void FinishExactKernel(const DeviceLaunch launch) {
  cuda::FinishExactReduction<Family>(launch);
}

__global__ void __launch_bounds__(kThreads) FillKernel(const cuda::DeviceFill fill) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < fill.count;
       i += step) {
    cuda::FillAt(fill, i);
  }
}

unsigned GridFor(int64_t work_items) {
  const int64_t blocks = (work_items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < kMaxGrid ? (blocks > 0 ? blocks : 1) : kMaxGrid);
}

const char* LaunchStatus() {
  const cudaError_t status = cudaGetLastError();
  return status == cudaSuccess ? nullptr : cudaGetErrorString(status);
}

void LaunchElementwise(const DeviceLaunch& launch, cudaStream_t stream) {
  const unsigned grid = GridFor((launch.count + kVector - 1) / kVector);
  WithFamily(launch.family, [&](auto family) {
    using Family = decltype(family);
    switch (launch.kind) {
      case LossKind::kLoss:
        ElementwiseKernel<Family, LossKind::kLoss><<<grid, kThreads, 0, stream>>>(launch);
        break;
      case LossKind::kGradSelf:
        ElementwiseKernel<Family, LossKind::kGradSelf><<<grid, kThreads, 0, stream>>>(launch);
        break;
      default:
        ElementwiseKernel<Family, LossKind::kGradTarget><<<grid, kThreads, 0, stream>>>(launch);
    }
  });
}

// An integer problem: its elements, or their wrapping total (cleared first).
const char* RunInteger(const DeviceLaunch& launch, cudaStream_t stream) {
  if (!launch.Reduces()) {
    IntegerKernel<<<GridFor(launch.count), kThreads, 0, stream>>>(launch);
    return LaunchStatus();
  }
  cudaMemsetAsync(launch.workspace.integer_total, 0, sizeof(uint64_t), stream);
  IntegerKernel<<<GridFor(launch.count), kThreads, 0, stream>>>(launch);
  FinishIntegerKernel<<<1, 1, 0, stream>>>(launch);
  return LaunchStatus();
}

const char* RunCuda(const LossProblem& problem, const LaunchContext& context) {
  const DeviceLaunch launch = cuda::MakeDeviceLaunch(problem, context);
  auto stream = static_cast<cudaStream_t>(context.queue);
  if (problem.integer) return RunInteger(launch, stream);
  if (!problem.Reduces()) {
    LaunchElementwise(launch, stream);
    return LaunchStatus();
  }
  WithFamily(problem.family, [&](auto family) {
    using Family = decltype(family);
    if (!problem.Total()) {
      SegmentsKernel<Family>
          <<<GridFor(problem.count / problem.segment), kThreads, 0, stream>>>(launch);
      return;
    }
    const auto blocks = static_cast<unsigned>(ReductionBlocks(problem.count));
    BlockPartialsKernel<Family><<<blocks, kThreads, 0, stream>>>(launch, false);
    if (blocks == 1) return;
    FinishReductionKernel<Family><<<1, 1, 0, stream>>>(launch, false);
    if (cuda::SumsFp32Terms<Family>(launch)) {  // the fp64 pass, which returns at once if unasked
      BlockPartialsKernel<Family><<<blocks, kThreads, 0, stream>>>(launch, true);
      FinishReductionKernel<Family><<<1, 1, 0, stream>>>(launch, true);
    }
    ExactPartialsKernel<Family><<<blocks, 1, 0, stream>>>(launch);
    FinishExactKernel<Family><<<1, 1, 0, stream>>>(launch);
  });
  return LaunchStatus();
}

const char* FillCuda(const StridedOperand& out, const int64_t* shape, int rank, double value,
                     const LaunchContext& context) {
  const cuda::DeviceFill fill = cuda::MakeDeviceFill(out, shape, rank, value, context);
  FillKernel<<<GridFor(fill.count), kThreads, 0, static_cast<cudaStream_t>(context.queue)>>>(fill);
  return LaunchStatus();
}

// Diagnostics: no SIMD target, no host threads of its own.
const char* NoSimdTarget() { return "-"; }
int NoHostThreads() { return 0; }

}  // namespace

const LossKernels kCudaLossKernels = {.abi_version = kLossKernelsAbiVersion,
                                      .ops = kEveryFamilyKernelOps | kEveryClassAxisKernelOps,
                                      .workspace_bytes = ReductionWorkspaceBytes,
                                      .run = RunCuda,
                                      .run_class_axis = cuda::RunClassAxisCuda,
                                      .fill = FillCuda,
                                      .simd_target = NoSimdTarget,
                                      .threads = NoHostThreads};

}  // namespace openaclnn
