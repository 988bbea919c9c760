// The CUDA class-axis kernel's steps, as host/device functions: one GPU thread per position at a
// time (grid-stride), each running the shared position step (kernels/class_axis_totals.h) on its
// rows; each thread's totals and first fault folded per thread block, the blocks' in block order
// by one thread, which rounds the results once (the exact pass in that thread where the bounds
// leave a rounding open). The GPU runs exactly these; host tests run them too, in the GPU's order,
// and compare with the CPU backend bit for bit.
#pragma once

#include <cstdint>

#include "base/executor.h"
#include "kernels/class_axis_families.h"
#include "kernels/class_axis_totals.h"
#include "kernels/log_sum_exp.h"

namespace openaclnn::cuda {

inline constexpr int kClassAxisThreads = 256;
// Enough thread blocks to fill current GPUs; the finish folds this many partials in one thread.
inline constexpr int64_t kMaxClassAxisBlocks = 1024;

// self's row as a GPU thread reads it (the families' Row).
struct DeviceRow {
  const void* base;
  FloatType type;
  int64_t start, stride;
  OPENACLNN_HOST_DEVICE double At(int64_t c) const {
    return LoadAs32(base, type, start + c * stride);
  }
  OPENACLNN_HOST_DEVICE log_sum_exp::LogSumExp LogSumExp(int64_t classes) const {
    return log_sum_exp::EstimateLogSumExp(*this, classes);
  }
};

// An output row as a GPU thread writes it (the families' OutRow): element by element, each
// exponential computed where it is used, so that a thread needs no row of scratch.
struct DeviceOutRow {
  void* base;
  FloatType type;
  int64_t start, stride, classes;
  OPENACLNN_HOST_DEVICE void Set(int64_t c, double value) {
    StoreFrom32(base, type, start + c * stride, RoundedTo(value, type));
  }
  OPENACLNN_HOST_DEVICE void Zero() {
    for (int64_t c = 0; c < classes; ++c) StoreFrom32(base, type, start + c * stride, 0.0f);
  }
  OPENACLNN_HOST_DEVICE void Fill(double value) {
    for (int64_t c = 0; c < classes; ++c) Set(c, value);
  }
  template <class Weights, class Element>
  OPENACLNN_HOST_DEVICE void WriteLogSoftmaxGradient(const DeviceRow& row, const Weights&, int64_t,
                                                     const log_sum_exp::LogSoftmaxGradient&,
                                                     Element&& element) {
    for (int64_t c = 0; c < classes; ++c) {
      const double x = row.At(c);
      Set(c, element(c, x <= 0.0 ? log_sum_exp::ExpOfNonPositive(x) : 0.0));
    }
  }
  OPENACLNN_HOST_DEVICE void WriteLogProbabilities(const DeviceRow& row,
                                                   const log_sum_exp::LogSumExp& lse) {
    log_sum_exp::WriteLogProbabilities(row, classes, lse, *this);
  }
};

// What a thread, a thread block, or the whole grid has summed, and its first fault.
struct ClassAxisPartial {
  class_axis::Total loss, weight;
  class_axis::Fault fault;
  OPENACLNN_HOST_DEVICE void Add(const ClassAxisPartial& other) {
    loss.Add(other.loss);
    weight.Add(other.weight);
    fault.Add(other.fault);
  }
};

// Everything the kernels need, passed by value as their argument; the pointers are into one
// device allocation (ClassAxisScratchBytes).
struct ClassAxisLaunch {
  class_axis::View view;
  int64_t blocks = 1;
  math::exact::ExactSum* counted_weights = nullptr;  // where NeedsCountedWeights; zeroed first
  RowConstants* constants = nullptr;
  class_axis::Fault* fault = nullptr;    // the launch's first
  ClassAxisPartial* partials = nullptr;  // one per thread block
  OPENACLNN_HOST_DEVICE int64_t Threads() const { return blocks * kClassAxisThreads; }
};

inline int64_t ClassAxisBlocks(const ClassAxisProblem& problem) {
  const int64_t blocks = (problem.positions + kClassAxisThreads - 1) / kClassAxisThreads;
  return blocks < 1 ? 1 : (blocks < kMaxClassAxisBlocks ? blocks : kMaxClassAxisBlocks);
}

static_assert(sizeof(math::exact::ExactSum) % 8 == 0 && sizeof(RowConstants) % 8 == 0 &&
              sizeof(class_axis::Fault) % 8 == 0 && alignof(ClassAxisPartial) <= 8);
inline uint64_t ClassAxisScratchBytes(int64_t blocks) {
  return sizeof(math::exact::ExactSum) + sizeof(RowConstants) + sizeof(class_axis::Fault) +
         blocks * sizeof(ClassAxisPartial);
}

// `scratch`: ClassAxisScratchBytes(ClassAxisBlocks(problem)), 8-byte aligned.
inline ClassAxisLaunch MakeClassAxisLaunch(const ClassAxisProblem& problem,
                                           const LaunchContext& context, void* scratch) {
  ClassAxisLaunch launch;
  launch.view = class_axis::ViewOf(problem, context);
  launch.blocks = ClassAxisBlocks(problem);
  auto* bytes = static_cast<unsigned char*>(scratch);
  launch.counted_weights = reinterpret_cast<math::exact::ExactSum*>(bytes);
  bytes += sizeof(math::exact::ExactSum);
  launch.constants = reinterpret_cast<RowConstants*>(bytes);
  bytes += sizeof(RowConstants);
  launch.fault = reinterpret_cast<class_axis::Fault*>(bytes);
  bytes += sizeof(class_axis::Fault);
  launch.partials = reinterpret_cast<ClassAxisPartial*>(bytes);
  return launch;
}

// The counted weights of thread `thread`'s positions (CountedWeightsKernel).
OPENACLNN_HOST_DEVICE inline void AddCountedWeights(const ClassAxisLaunch& launch, int64_t thread,
                                                    math::exact::ExactSum& sum) {
  for (int64_t position = thread; position < launch.view.problem.positions;
       position += launch.Threads()) {
    class_axis::AddCountedWeight(launch.view, position, sum);
  }
}

// The rows' constants, once the counted weights are summed (ConstantsKernel).
OPENACLNN_HOST_DEVICE inline void ComputeConstants(const ClassAxisLaunch& launch) {
  *launch.constants = class_axis::ConstantsOf(launch.view, launch.counted_weights);
}

// Thread `thread`'s positions (thread, thread + Threads(), ...), in order (PositionsKernel).
template <class Family>
OPENACLNN_HOST_DEVICE inline ClassAxisPartial RunThread(const ClassAxisLaunch& launch,
                                                        const RowConstants& k, int64_t thread) {
  ClassAxisPartial partial;
  for (int64_t position = thread; position < launch.view.problem.positions;
       position += launch.Threads()) {
    class_axis::RunPosition<Family, DeviceRow, DeviceOutRow>(launch.view, k, position, partial.loss,
                                                             partial.weight, partial.fault);
  }
  return partial;
}

// partials[0, count) added in index order: a thread block's threads', or the blocks'.
OPENACLNN_HOST_DEVICE inline ClassAxisPartial Folded(const ClassAxisPartial* partials,
                                                     int64_t count) {
  ClassAxisPartial all;
  for (int64_t i = 0; i < count; ++i) all.Add(partials[i]);
  return all;
}

// The blocks' partials folded, the launch's first fault kept, the totals rounded and stored
// (FinishKernel, one thread).
template <class Family>
OPENACLNN_HOST_DEVICE inline void Finish(const ClassAxisLaunch& launch) {
  const ClassAxisPartial all = Folded(launch.partials, launch.blocks);
  *launch.fault = all.fault;
  class_axis::StoreTotals<Family, DeviceRow>(launch.view, *launch.constants, all.loss, all.weight);
}

}  // namespace openaclnn::cuda
