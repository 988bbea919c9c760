// One element's inputs, as every family's element function reads them: widened to fp32 (exactly,
// from any input dtype); an absent operand (weight, pos_weight, gradOutput) reads as 1.
#pragma once

namespace openaclnn {

struct ElementInputs {
  float x = 0.0f;  // self (logits, or probabilities: see the family)
  float t = 0.0f;  // target
  float w = 1.0f;  // weight
  float p = 1.0f;  // pos_weight
  float g = 1.0f;  // gradOutput
};

}  // namespace openaclnn
