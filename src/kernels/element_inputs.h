// The inputs of one element of a loss, widened exactly to fp32; absent operands (weight,
// pos_weight, gradOutput) read as 1.
#pragma once

namespace openaclnn {

struct ElementInputs {
  float x = 0.0f;  // self (logits or probabilities, by family)
  float t = 0.0f;  // target
  float w = 1.0f;  // weight
  float p = 1.0f;  // pos_weight
  float g = 1.0f;  // gradOutput
};

}  // namespace openaclnn
