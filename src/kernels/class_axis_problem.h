// What every op of a class-axis family hands a backend: a pass over positions, each a row of C
// classes (the N of an (N, C) self, the (N, d1, ...) of an (N, C, d1, ...) one), with one
// integer class index per position in target. A family's own math lives in its kernels/ headers;
// this problem and the kernel table name none of them but by LossFamily.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/loss_problem.h"

namespace openaclnn {

// kind kLoss: out gets each position's loss (reduction none) or their sum or mean (one element),
// and operands[kTotalWeightOut] the sum of the weights of the positions that count. kind
// kGradSelf: out (self's shape) gets the gradient with respect to self, the incoming gradient
// being operands[kGradOutput] (per position, or one element) and a mean's divisor
// operands[kTotalWeight]. A position whose target equals ignore_index counts for nothing; one
// whose target is outside [0, classes) otherwise is a fault (see LossKernels::run_class_axis).
struct ClassAxisProblem {
  LossFamily family = LossFamily::kNllLoss;
  LossKind kind = LossKind::kLoss;
  Reduction reduction = Reduction::kNone;
  int rank = 0;  // of the positions' shape
  int64_t shape[kMaxRank] = {};
  int64_t positions = 0;  // the product of shape
  int64_t classes = 0;
  int64_t ignore_index = 0;
  double label_smoothing = 0.0;  // the cross entropy's eps, as the C API took it
  // Every operand's strides over the positions' shape (0 for one that holds one element, and for
  // weight), and along the class axis (self, weight and a gradient's out; 0 for the others).
  StridedOperand operands[kOperandCount];
  int64_t class_strides[kOperandCount] = {};
};

static_assert(std::is_standard_layout_v<ClassAxisProblem> &&
              std::is_trivially_copyable_v<ClassAxisProblem>);

}  // namespace openaclnn
