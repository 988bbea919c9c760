// A tile evaluated one element at a time through a family's element functions (a family struct:
// kernels/loss_families.h): the definition every SIMD target of that family must match bit for
// bit, and the path of targets without a fused multiply-add.
#pragma once

#include <cstdint>

#include "backends/cpu/strided.h"
#include "backends/cpu/tile_math.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"

namespace openaclnn::cpu {

inline float ReadElement(const TileOperand& operand, int64_t i) {
  if (operand.data == nullptr) return 1.0f;
  return LoadAs32(operand.data, operand.StoredAs(), operand.splat ? 0 : i);
}

inline ElementInputs ElementOf(const TileInputs& inputs, int64_t i) {
  ElementInputs element;
  element.x = ReadElement(inputs.operand[kSelf], i);
  element.t = ReadElement(inputs.operand[kTarget], i);
  element.w = ReadElement(inputs.operand[kWeight], i);
  element.p = ReadElement(inputs.operand[kPosWeight], i);
  element.g = ReadElement(inputs.operand[kGradOutput], i);
  return element;
}

// EvaluateTile's contract (tile_math.h) for `Family`'s elements.
template <class Family>
Partial EvaluateTileElements(LossKind kind, const ElementParameters& parameters,
                             const TileInputs& inputs, int64_t count, const TileOutput& output,
                             bool sum, const TileOutput& gradient) {
  const bool with_gradient = kind == LossKind::kLoss && gradient.data != nullptr;
  const bool terms32 =
      Family::SumsFp32Terms(inputs.operand[kSelf].type, output.type, with_gradient, gradient.type);
  const bool unweighted =
      inputs.operand[kWeight].data == nullptr && inputs.operand[kPosWeight].data == nullptr;
  Partial lanes[kBlockLanes];
  for (int64_t i = 0; i < count; ++i) {
    const ElementInputs element = ElementOf(inputs, i);
    if (output.data != nullptr) {
      const float value = Family::Element(kind, parameters, element, output.type);
      StoreFrom32(output.data, output.StoredAs(), i, value);
    }
    if (with_gradient) {
      const float value = Family::Element(LossKind::kGradSelf, parameters, element, gradient.type);
      StoreFrom32(gradient.data, gradient.StoredAs(), i, value);
    }
    if (sum) {
      const auto term = Family::Term(kind, parameters, element, terms32, unweighted);
      lanes[i % kBlockLanes] = lanes[i % kBlockLanes] + Partial{term.value, term.bound};
    }
  }
  return FoldLanes(lanes);
}

// ExactTileSum's contract (tile_math.h) for `Family`'s elements.
template <class Family>
void ExactTileElementsSum(LossKind kind, const ElementParameters& parameters,
                          const TileInputs& inputs, int64_t count, math::exact::ExactSum& sum) {
  for (int64_t i = 0; i < count; ++i) {
    Family::AddExactTerm(kind, parameters, ElementOf(inputs, i), sum);
  }
}

}  // namespace openaclnn::cpu
