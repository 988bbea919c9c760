// EvaluateTile one element at a time: the reference every SIMD target must match bit for bit.
#include "kernels/bce_element.h"
#include "kernels/cpu/strided.h"
#include "kernels/cpu/tile_math.h"

namespace openaclnn {
namespace {

float Read(const TileOperand& operand, int64_t i) {
  if (operand.data == nullptr) return 1.0f;
  return cpu::LoadAs32(operand.data, operand.type, operand.splat ? 0 : i);
}

}  // namespace

double EvaluateTileScalar(LossKind kind, double gradient_scale, const TileInputs& inputs,
                          int64_t count, const TileOutput& output, bool sum,
                          const TileOutput& gradient) {
  const bool with_gradient = kind == LossKind::kLoss && gradient.data != nullptr;
  double lanes[16] = {};
  for (int64_t i = 0; i < count; ++i) {
    ElementInputs element;
    element.x = Read(inputs.operand[kSelf], i);
    element.t = Read(inputs.operand[kTarget], i);
    element.w = Read(inputs.operand[kWeight], i);
    element.p = Read(inputs.operand[kPosWeight], i);
    element.g = Read(inputs.operand[kGradOutput], i);
    const double wide = BceElementWide(kind, gradient_scale, element);
    if (output.data != nullptr) {
      cpu::StoreFrom32(output.data, output.type, i, static_cast<float>(wide));
    }
    if (with_gradient) {
      const float value = BceElement(LossKind::kGradSelf, gradient_scale, element);
      cpu::StoreFrom32(gradient.data, gradient.type, i, value);
    }
    if (sum) lanes[i % 16] += wide;
  }
  return sum ? FoldLanes(lanes) : 0.0;
}

}  // namespace openaclnn
