// EvaluateTile one element at a time: the reference every SIMD target must match bit for bit.
#include "backends/cpu/strided.h"
#include "backends/cpu/tile_math.h"
#include "kernels/bce_element.h"

namespace openaclnn {
namespace {

float Read(const TileOperand& operand, int64_t i) {
  if (operand.data == nullptr) return 1.0f;
  return cpu::LoadAs32(operand.data, operand.StoredAs(), operand.splat ? 0 : i);
}

ElementInputs ElementOf(const TileInputs& inputs, int64_t i) {
  ElementInputs element;
  element.x = Read(inputs.operand[kSelf], i);
  element.t = Read(inputs.operand[kTarget], i);
  element.w = Read(inputs.operand[kWeight], i);
  element.p = Read(inputs.operand[kPosWeight], i);
  element.g = Read(inputs.operand[kGradOutput], i);
  return element;
}

}  // namespace

Partial EvaluateTileScalar(LossKind kind, double gradient_scale, const TileInputs& inputs,
                           int64_t count, const TileOutput& output, bool sum,
                           const TileOutput& gradient) {
  const bool with_gradient = kind == LossKind::kLoss && gradient.data != nullptr;
  const bool terms32 =
      SumsFp32Terms(inputs.operand[kSelf].type, output.type, with_gradient, gradient.type);
  const bool unweighted =
      inputs.operand[kWeight].data == nullptr && inputs.operand[kPosWeight].data == nullptr;
  Partial lanes[kBlockLanes];
  for (int64_t i = 0; i < count; ++i) {
    const ElementInputs element = ElementOf(inputs, i);
    if (output.data != nullptr) {
      const float value = BceElement(kind, gradient_scale, element, output.type);
      cpu::StoreFrom32(output.data, output.StoredAs(), i, value);
    }
    if (with_gradient) {
      const float value = BceElement(LossKind::kGradSelf, gradient_scale, element, gradient.type);
      cpu::StoreFrom32(gradient.data, gradient.StoredAs(), i, value);
    }
    if (sum && kind == LossKind::kLoss) {
      const ElementEstimate term =
          terms32 ? BceLossTerm32(element, unweighted) : BceLossTerm(element);
      lanes[i % kBlockLanes] = lanes[i % kBlockLanes] + Partial{term.value, term.bound};
    }
  }
  return FoldLanes(lanes);
}

math::exact::DD ExactTileSum(const TileInputs& inputs, int64_t count) {
  math::exact::DD lanes[kBlockLanes];
  for (int64_t i = 0; i < count; ++i) {
    lanes[i % kBlockLanes] = lanes[i % kBlockLanes] + BceExactLossTerm(ElementOf(inputs, i));
  }
  return FoldLanes(lanes);
}

}  // namespace openaclnn
