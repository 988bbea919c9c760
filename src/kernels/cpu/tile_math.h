// The element math applied to one block of contiguous fp32 operands.
#pragma once

#include <cstdint>

#include "kernels/bce.h"

namespace openaclnn {

// Contiguous fp32 values of each input operand for one block; nullptr where absent
// (weight and pos_weight then read as 1).
struct TileInputs {
  const float* operand[kOut] = {};
};

// result[i] = the loss or gradient of element i, for i < count. result may alias nothing in
// inputs.
void EvaluateTile(LossKind kind, float gradient_scale, const TileInputs& inputs, int64_t count,
                  float* result);

}  // namespace openaclnn
