// The one kernel family behind every BCE-with-logits op: a fused pass over memory that reads
// its operands through strides (0 where broadcast), evaluates the loss or a gradient per
// element, and writes it or reduces it deterministically.
#pragma once

#include <cstdint>

#include "base/dtype.h"
#include "base/executor.h"
#include "kernels/bce_reduction.h"

namespace openaclnn {

inline constexpr int kMaxRank = 8;

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

// One operand as the kernel reads it: laid over the problem's (coalesced) shape.
struct StridedOperand {
  int slot = -1;  // index into the launch's TensorAddresses; -1: absent, reads as 1
  FloatType type = FloatType::kFloat32;
  int64_t offset = 0;              // elements
  int64_t strides[kMaxRank] = {};  // elements; 0 along broadcast dimensions
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

uint64_t BceWorkspaceBytes(const BceProblem& problem);
void RunBce(const BceProblem& problem, const TensorAddresses& addresses, void* workspace);

// Writes `value` (rounded once to the operand's type) to every element of `out` over `shape`.
void FillStrided(const StridedOperand& out, const int64_t* shape, int rank, double value,
                 const TensorAddresses& addresses);

}  // namespace openaclnn
