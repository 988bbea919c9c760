// The one kernel family behind every BCE-with-logits op: a fused pass over memory that reads
// its operands through strides (0 where broadcast), evaluates the loss or a gradient per
// element, and writes it or reduces it deterministically.
#pragma once

#include <cstdint>

#include "base/dtype.h"
#include "base/executor.h"
#include "kernels/bce_reduction.h"
#include "kernels/strided_operand.h"

namespace openaclnn {

enum class LossKind : uint8_t { kLoss, kGradSelf, kGradTarget };
enum class Reduction : uint8_t { kNone = 0, kMean = 1, kSum = 2 };

// kGradSelfOut is the fused loss-and-gradient pass's second output (absent otherwise).
enum OperandIndex {
  kSelf,
  kTarget,
  kWeight,
  kPosWeight,
  kGradOutput,
  kOut,
  kGradSelfOut,
  kOperandCount
};

struct BceProblem {
  LossKind kind = LossKind::kLoss;
  Reduction reduction = Reduction::kNone;
  int rank = 0;  // of the coalesced iteration space; shape[rank-1] is the innermost
  int64_t shape[kMaxRank] = {};
  int64_t count = 0;  // elements of self
  // Gradients of a mean loss are scaled by 1/count; the loss itself is divided at the end.
  double gradient_scale = 1.0;
  // With kind kLoss and operands[kGradSelfOut] present, the same pass also stores the gradient
  // with respect to self there, element-wise, whatever `reduction` does to the loss: one read of
  // the inputs gives both results, each bitwise what its own pass gives.
  StridedOperand operands[kOperandCount];
};

// Up to this many elements a launch is Quick (see Plan): its math takes a few microseconds, about
// as long as handing it to a stream's worker thread.
inline constexpr int64_t kQuickElements = kReductionBlock;

// The workspace of every backend's reductions (bce_reduction.h: ReductionWorkspace).
inline uint64_t ReductionWorkspaceBytes(const BceProblem& problem) {
  if (problem.reduction == Reduction::kNone) return 0;
  return ReductionWorkspaceBytesFor(problem.count);
}

// One backend's kernels for the family. Each backend provides one table (the CPU's in
// kernels/cpu/, CUDA's in kernels/cuda/); a plan records the table current at phase 1 and calls
// it at launch. `run` and `fill` return nullptr when the work was launched (on a native queue:
// queued), else the reason it could not be.
struct BceKernels {
  // Bytes of workspace `run` needs for `problem` (the per-block fp64 partials of mean and sum).
  uint64_t (*workspace_bytes)(const BceProblem& problem);
  const char* (*run)(const BceProblem& problem, const LaunchContext& launch);
  // Writes `value` (rounded once to the operand's type) to every element of `out` over `shape`.
  const char* (*fill)(const StridedOperand& out, const int64_t* shape, int rank, double value,
                      const LaunchContext& launch);
};

// The kernels of the host's own memory, run on the CPU's thread pool.
extern const BceKernels kCpuBceKernels;

// The kernels of the active backend; nullptr when it has no device (see ActiveBackend()).
const BceKernels* CurrentBceKernels();

}  // namespace openaclnn
