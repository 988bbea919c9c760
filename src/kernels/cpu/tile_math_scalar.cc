#include <cmath>

#include "kernels/cpu/tile_math.h"
#include "kernels/math.h"

namespace openaclnn {
namespace {

using O = math::ScalarOps;

float ValueOr1(const float* values, int64_t i) { return values ? values[i] : 1.0f; }

float Element(LossKind kind, float gradient_scale, const TileInputs& in, int64_t i) {
  const float x = in.operand[kSelf][i];
  const float w = ValueOr1(in.operand[kWeight], i);
  const float p = ValueOr1(in.operand[kPosWeight], i);
  switch (kind) {
    case LossKind::kLoss: {
      const float t = in.operand[kTarget][i];
      const bool finite =
          std::isfinite(x) && std::isfinite(t) && std::isfinite(w) && std::isfinite(p);
      return finite ? math::Loss<O>(x, t, w, p) : math::ReferenceLoss<O>(x, t, w, p);
    }
    case LossKind::kGradSelf:
      return math::GradSelf<O>(x, in.operand[kTarget][i], w, p, in.operand[kGradOutput][i]) *
             gradient_scale;
    default: {
      const float g = in.operand[kGradOutput][i];
      const float grad = std::isfinite(x) ? math::GradTarget<O>(x, w, p, g)
                                          : math::ReferenceGradTarget<O>(x, w, p, g);
      return grad * gradient_scale;
    }
  }
}

}  // namespace

void EvaluateTile(LossKind kind, float gradient_scale, const TileInputs& inputs, int64_t count,
                  float* result) {
  for (int64_t i = 0; i < count; ++i) result[i] = Element(kind, gradient_scale, inputs, i);
}

}  // namespace openaclnn
