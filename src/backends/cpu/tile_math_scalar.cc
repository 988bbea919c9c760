// The tiles one element at a time: the reference every SIMD target must match bit for bit.
#include "backends/cpu/tile_elements.h"
#include "kernels/bce_element.h"
#include "kernels/binary_cross_entropy_element.h"

namespace openaclnn {

Partial EvaluateTileScalar(LossKind kind, const ElementParameters& parameters,
                           const TileInputs& inputs, int64_t count, const TileOutput& output,
                           bool sum, const TileOutput& gradient) {
  return cpu::EvaluateTileElements<BceWithLogitsFamily>(kind, parameters, inputs, count, output,
                                                        sum, gradient);
}

Partial EvaluateBinaryCrossEntropyTileScalar(LossKind kind, const ElementParameters& parameters,
                                             const TileInputs& inputs, int64_t count,
                                             const TileOutput& output, bool sum,
                                             const TileOutput& gradient) {
  return cpu::EvaluateTileElements<BinaryCrossEntropyFamily>(kind, parameters, inputs, count,
                                                             output, sum, gradient);
}

}  // namespace openaclnn
