// What every op of an element-wise loss family hands a backend: a fused pass over memory that
// reads its operands through strides (0 where broadcast), evaluates the family's loss or a
// gradient per element, and writes it or reduces it deterministically. A family's own math lives
// in its kernels/ headers; this problem, the kernel table and the plans (ops/loss_plans.h) name
// none of them but by LossFamily.
#pragma once

#include <cstdint>
#include <type_traits>

#include "base/dtype.h"
#include "base/executor.h"
#include "kernels/element_inputs.h"
#include "kernels/reduction.h"
#include "kernels/strided_operand.h"

namespace openaclnn {

// The loss families, one value each (the public listing's openaclnnOpFamily has the same values,
// ops/op_table.cc checks that they agree).
enum class LossFamily : uint8_t {
  kBceWithLogits = 0,
  kBinaryCrossEntropy = 1,
  kMseLoss = 2,
  kL1Loss = 3,
  kSmoothL1Loss = 4,
  kSoftMarginLoss = 5,
  kKlDiv = 6,
  kNllLoss = 7,      // a class-axis family (kernels/class_axis_problem.h)
  kCrossEntropy = 8  // a class-axis family
};

enum class LossKind : uint8_t { kLoss, kGradSelf, kGradTarget };

// The values of every loss op's `reduction` argument (batchmean: the KL divergence ops).
enum class Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2, kBatchMean = 3 };

// kGradSelfOut is the fused loss-and-gradient pass's second output (absent otherwise).
enum OperandIndex {
  kSelf,
  kTarget,
  kWeight,
  kPosWeight,
  kGradOutput,
  kOut,
  kGradSelfOut,
  kTotalWeight,     // a class-axis gradient's divisor (one element)
  kTotalWeightOut,  // a class-axis forward's second output (one element)
  kLogProbOut,      // the cross entropy's log-probabilities (self's shape)
  kZlossOut,        // CANN's zloss outputs and inputs: required or accepted, never written or read
  kLseForZlossOut,
  kGradZloss,
  kLseForZloss,
  kOperandCount
};

// A fused pass over an iteration space (the broadcast shape of the op's inputs): each element's
// term (the family's loss or a gradient of `kind`) goes either to its own output element or,
// summed with its neighbours, to one output element per `segment` consecutive elements (a mean
// or sum: the total, or a reduction over some dimensions, which the plan orders innermost);
// either way the output is the exact value divided by parameters.divisor, rounded once.
struct LossProblem {
  LossFamily family = LossFamily::kBceWithLogits;
  LossKind kind = LossKind::kLoss;
  int rank = 0;  // of the coalesced iteration space; shape[rank-1] is the innermost
  int64_t shape[kMaxRank] = {};
  int64_t count = 0;    // elements of the iteration space
  int64_t segment = 1;  // elements summed into each output element: 1 (element-wise) to count
  ElementParameters parameters;
  // The promoted type is an integer (INT64): integer arithmetic, wrapping, and sums that wrap too
  // (a family's IntegerElement); the operands' `integer` types say how each is stored.
  bool integer = false;
  // With kind kLoss and operands[kGradSelfOut] present, the same pass also stores the gradient
  // with respect to self there, element-wise, whatever `segment` does to the loss: one read of
  // the inputs gives both results, each bitwise what its own pass gives.
  StridedOperand operands[kOperandCount];

  // Whether output elements are sums (a segment of one is its element's own result: the same
  // value, RN(term / divisor), either way).
  bool Reduces() const { return segment > 1; }
  // One sum of the whole space (a mean or sum of everything), which every worker shares.
  bool Total() const { return Reduces() && segment == count; }
};

// Up to this many elements a launch is Quick (see Plan): it runs on the calling thread of an idle
// stream, with the thread pool. Handing it to the stream's worker costs a wake-up and a context
// switch (15-25 us), and while the worker computes the synchronizing caller spins beside the
// pool's threads, one thread more than there are cores; up to about 1e6 elements that costs
// 5-65% of the call (op_bench, 2 threads, Zen 5: 1e5 elements 1.3-2.8x faster, 1e6 1.05-1.5x).
// Beyond, the math dwarfs it and the launch stays asynchronous.
inline constexpr int64_t kQuickElements = 256 * kReductionBlock;

// The workspace of every backend's reductions (reduction.h: ReductionWorkspace).
inline uint64_t ReductionWorkspaceBytes(const LossProblem& problem) {
  if (!problem.Total()) return 0;
  return ReductionWorkspaceBytesFor(problem.count);
}

// What crosses into a backend's kernels, also across dlopen (backends/plugin.h): plain data, laid
// out alike by every compiler that builds a backend.
static_assert(std::is_standard_layout_v<StridedOperand> &&
              std::is_trivially_copyable_v<StridedOperand>);
static_assert(std::is_standard_layout_v<LossProblem> && std::is_trivially_copyable_v<LossProblem>);
static_assert(std::is_standard_layout_v<LaunchContext> &&
              std::is_trivially_copyable_v<LaunchContext>);

// The ops a kernel table can implement, one bit each: an op of family f and kind k
// (openaclnnOpKind's value, ops/op_table.cc checks that they agree) needs bit
// KernelOpBit(f, k) of LossKernels::ops.
enum class KernelOp : uint8_t { kLoss = 0, kGradSelf = 1, kGradTarget = 2, kLossAndGrad = 3 };
inline constexpr int kKernelOpCount = 4;
constexpr uint64_t KernelOpBit(LossFamily family, KernelOp op) {
  return uint64_t{1} << (static_cast<unsigned>(family) * kKernelOpCount +
                         static_cast<unsigned>(op));
}

// Changes whenever LossKernels, LossProblem, ClassAxisProblem, StridedOperand or LaunchContext
// change layout or meaning; a plugin built against another version is refused
// (backends/plugin_loader.cc).
inline constexpr uint32_t kLossKernelsAbiVersion = 5;

struct ClassAxisProblem;  // kernels/class_axis_problem.h

// One backend's kernels for every family. Each backend provides one table (the CPU's in
// backends/cpu/, CUDA's in backends/cuda/); a plan records the table current at phase 1 and calls
// it at launch. `run` and `fill` return nullptr when the work was launched (on a native queue:
// queued), else the reason it could not be. Plain C types only: it crosses dlopen.
struct LossKernels {
  uint32_t abi_version;  // kLossKernelsAbiVersion of the backend's build
  uint64_t ops;          // the KernelOpBit()s of the ops the backend implements
  // Bytes of workspace `run` needs for `problem` (a total's per-block fp64 partials).
  uint64_t (*workspace_bytes)(const LossProblem& problem);
  const char* (*run)(const LossProblem& problem, const LaunchContext& launch);
  // A class-axis family's op (nullptr: the backend has none, and `ops` lists none). Where a
  // position's target is out of range it returns the reason, naming the first such position and
  // its value, and the outputs hold NaN where that position's results would be (a host backend's
  // stream reports the reason at synchronization).
  const char* (*run_class_axis)(const ClassAxisProblem& problem, const LaunchContext& launch);
  // Writes `value` (rounded once to the operand's type; an integer one's a whole number) to every
  // element of `out` over `shape`.
  const char* (*fill)(const StridedOperand& out, const int64_t* shape, int rank, double value,
                      const LaunchContext& launch);
  // Diagnostics (openaclnn info, the Python package, OPENACLNN_VERBOSE): the SIMD target the
  // kernels dispatch to ("-" where that means nothing, as on a GPU) and the host threads they
  // compute with (0: none of their own).
  const char* (*simd_target)();
  int (*threads)();
};
static_assert(std::is_standard_layout_v<LossKernels> && std::is_trivially_copyable_v<LossKernels>);

// The kernels of the active backend; nullptr when it has no device (see ActiveBackend()).
const LossKernels* CurrentLossKernels();

}  // namespace openaclnn
