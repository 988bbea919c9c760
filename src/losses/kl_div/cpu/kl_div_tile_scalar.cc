// The family's tile one element at a time: the reference every SIMD target must match bit for bit.
#include "backends/cpu/tile_elements.h"
#include "losses/kl_div/cpu/kl_div_tile.h"
#include "losses/kl_div/kl_div_family.h"

namespace openaclnn {

Partial EvaluateKlDivTileScalar(LossKind kind, const ElementParameters& parameters,
                                const TileInputs& inputs, int64_t count, const TileOutput& output,
                                bool sum, const TileOutput& gradient) {
  return cpu::EvaluateTileElements<KlDivFamily>(kind, parameters, inputs, count, output, sum,
                                                gradient);
}

}  // namespace openaclnn
