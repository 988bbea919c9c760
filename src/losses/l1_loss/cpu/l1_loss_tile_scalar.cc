// The family's tile one element at a time: the reference every SIMD target must match bit for bit.
#include "backends/cpu/tile_elements.h"
#include "losses/l1_loss/cpu/l1_loss_tile.h"
#include "losses/l1_loss/l1_loss_family.h"

namespace openaclnn {

Partial EvaluateL1LossTileScalar(LossKind kind, const ElementParameters& parameters,
                                 const TileInputs& inputs, int64_t count, const TileOutput& output,
                                 bool sum, const TileOutput& gradient) {
  return cpu::EvaluateTileElements<L1LossFamily>(kind, parameters, inputs, count, output, sum,
                                                 gradient);
}

}  // namespace openaclnn
