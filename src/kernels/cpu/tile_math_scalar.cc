// EvaluateTile one element at a time: the reference every SIMD target must match bit for bit.
#include <cmath>

#include "kernels/cpu/strided.h"
#include "kernels/cpu/tile_math.h"
#include "kernels/math.h"

namespace openaclnn {
namespace {

using O = math::ScalarOps;

float Read(const TileOperand& operand, int64_t i) {
  if (operand.data == nullptr) return 1.0f;
  return cpu::LoadAs32(operand.data, operand.type, operand.splat ? 0 : i);
}

float Element(LossKind kind, double gradient_scale, const TileInputs& in, int64_t i) {
  const float x = Read(in.operand[kSelf], i);
  const float w = Read(in.operand[kWeight], i);
  const float p = Read(in.operand[kPosWeight], i);
  switch (kind) {
    case LossKind::kLoss: {
      const float t = Read(in.operand[kTarget], i);
      const bool finite =
          std::isfinite(x) && std::isfinite(t) && std::isfinite(w) && std::isfinite(p);
      return finite ? math::Loss<O>(x, t, w, p) : math::ReferenceLoss<O>(x, t, w, p);
    }
    case LossKind::kGradSelf: {
      const float t = Read(in.operand[kTarget], i);
      const float g = Read(in.operand[kGradOutput], i);
      const bool finite = std::isfinite(x) && std::isfinite(t) && std::isfinite(w) &&
                          std::isfinite(p) && std::isfinite(g);
      if (!finite) {
        return math::ReferenceGradSelf<O>(x, t, w, p, g) * static_cast<float>(gradient_scale);
      }
      return static_cast<float>(math::GradSelf64<math::ScalarOps64>(x, t, w, p, g) *
                                gradient_scale);
    }
    default: {
      const float g = Read(in.operand[kGradOutput], i);
      const bool finite =
          std::isfinite(x) && std::isfinite(w) && std::isfinite(p) && std::isfinite(g);
      const float grad =
          finite ? math::GradTarget<O>(x, w, p, g) : math::ReferenceGradTarget<O>(x, w, p, g);
      return grad * static_cast<float>(gradient_scale);
    }
  }
}

}  // namespace

double EvaluateTileScalar(LossKind kind, double gradient_scale, const TileInputs& inputs,
                          int64_t count, const TileOutput& output, bool sum) {
  double lanes[16] = {};
  for (int64_t i = 0; i < count; ++i) {
    const float value = Element(kind, gradient_scale, inputs, i);
    if (output.data != nullptr) cpu::StoreFrom32(output.data, output.type, i, value);
    if (sum) lanes[i % 16] += static_cast<double>(value);
  }
  return sum ? FoldLanes(lanes) : 0.0;
}

}  // namespace openaclnn
