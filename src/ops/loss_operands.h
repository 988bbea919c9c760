// The operands of one loss op call, as its checks and its plan read them.
#pragma once

#include <algorithm>

#include "aclnn/acl_meta.h"
#include "kernels/loss_problem.h"

namespace openaclnn {

// The most scalar attributes an op has (aclnnCrossEntropyLoss's ignoreIndex, labelSmoothing,
// lseSquareScaleForZloss and returnZloss).
inline constexpr int kMaxOpAttributes = 4;

// The operands by role (OperandIndex); nullptr for absent ones (weight, pos_weight, grad_output
// of the forward, the second output of all but the fused op). `slot` is each tensor's index among
// the executor's inputs then outputs; -1 for roles the op lacks. `attribute`: the op's scalar
// attributes in API order (openaclnnOpDescriptor.attributes), a float one as the float the C API
// took, a bool one 0 or 1; `whole`, an integer one.
struct LossOperands {
  LossOperands() { std::fill(slot, slot + kOperandCount, -1); }
  const aclTensor* tensor[kOperandCount] = {};
  int slot[kOperandCount];
  double attribute[kMaxOpAttributes] = {};
  // The same attributes as int64_t where they are integers (OPENACLNN_ATTRIBUTE_INT64: the
  // class-axis ops' ignoreIndex), exactly as the C API took them.
  int64_t whole[kMaxOpAttributes] = {};
};

}  // namespace openaclnn
