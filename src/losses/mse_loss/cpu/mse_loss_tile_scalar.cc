// The family's tile one element at a time: the reference every SIMD target must match bit for bit.
#include "backends/cpu/tile_elements.h"
#include "losses/mse_loss/cpu/mse_loss_tile.h"
#include "losses/mse_loss/mse_loss_family.h"

namespace openaclnn {

Partial EvaluateMseLossTileScalar(LossKind kind, const ElementParameters& parameters,
                                  const TileInputs& inputs, int64_t count, const TileOutput& output,
                                  bool sum, const TileOutput& gradient) {
  return cpu::EvaluateTileElements<MseLossFamily>(kind, parameters, inputs, count, output, sum,
                                                  gradient);
}

}  // namespace openaclnn
