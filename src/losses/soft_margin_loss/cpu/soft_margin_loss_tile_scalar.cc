// The family's tile one element at a time: the reference every SIMD target must match bit for bit.
#include "backends/cpu/tile_elements.h"
#include "losses/soft_margin_loss/cpu/soft_margin_loss_tile.h"
#include "losses/soft_margin_loss/soft_margin_loss_family.h"

namespace openaclnn {

Partial EvaluateSoftMarginTileScalar(LossKind kind, const ElementParameters& parameters,
                                     const TileInputs& inputs, int64_t count,
                                     const TileOutput& output, bool sum,
                                     const TileOutput& gradient) {
  return cpu::EvaluateTileElements<SoftMarginLossFamily>(kind, parameters, inputs, count, output,
                                                         sum, gradient);
}

}  // namespace openaclnn
