// The family's tile one element at a time: the reference every SIMD target must match bit for bit.
#include "backends/cpu/tile_elements.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

namespace openaclnn {

Partial EvaluateTileScalar(LossKind kind, const ElementParameters& parameters,
                           const TileInputs& inputs, int64_t count, const TileOutput& output,
                           bool sum, const TileOutput& gradient) {
  return cpu::EvaluateTileElements<BceWithLogitsFamily>(kind, parameters, inputs, count, output,
                                                        sum, gradient);
}

}  // namespace openaclnn
