// The family's tile one element at a time: the reference every SIMD target must match bit for bit.
#include "backends/cpu/tile_elements.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_family.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.h"

namespace openaclnn {

Partial EvaluateBinaryCrossEntropyTileScalar(LossKind kind, const ElementParameters& parameters,
                                             const TileInputs& inputs, int64_t count,
                                             const TileOutput& output, bool sum,
                                             const TileOutput& gradient) {
  return cpu::EvaluateTileElements<BinaryCrossEntropyFamily>(kind, parameters, inputs, count,
                                                             output, sum, gradient);
}

}  // namespace openaclnn
