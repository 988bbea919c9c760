// How the CPU kernel reaches each operand of a block: in place (contiguous or a single value),
// or copied into a contiguous fp32 tile first (periodic broadcast, a transposed view, any other
// strides).
#pragma once

#include <cstdint>

#include "backends/cpu/tile_math.h"
#include "kernels/loss_problem.h"

namespace openaclnn::cpu {

enum class Access : uint8_t {
  kAbsent,    // reads as 1
  kFlat,      // contiguous in flat-index order: read in place, any dtype
  kSplat,     // every stride 0: one value
  kPeriodic,  // stride 0 over leading dims, flat over the rest (e.g. pos_weight [C] over [N, C])
  kColumns,   // rows lie closer in memory than a row's elements (e.g. a transposed view): the
              // block's full rows are copied a column at a time, reading memory in runs
  kGather,    // anything else: copied a row at a time
};

struct OperandPlan {
  Access access = Access::kAbsent;
  int64_t period = 0;  // kPeriodic: elements of the flat trailing part
};

OperandPlan PlanOperand(const StridedOperand& operand, const LossProblem& problem);

// The block [begin, begin + count) of an operand as a TileOperand; `tile` (kReductionBlock
// floats) receives the values when they must be copied.
TileOperand BlockOperand(const LossProblem& problem, const void* base, int which,
                         const OperandPlan& plan, int64_t begin, int64_t count, float* tile);

}  // namespace openaclnn::cpu
