// The smooth L1 family's tiles on the CPU: its SIMD tile (smooth_l1_loss_tile.cc) and its
// element-at-a-time definition (smooth_l1_loss_tile_scalar.cc).
#pragma once

#include <cstdint>

#include "backends/cpu/tile_math.h"

namespace openaclnn {

// EvaluateTile's contract (backends/cpu/tile_math.h) for the smooth L1 family: the loss (stored
// and/or summed), the self gradient or the target gradient of elements [0, count), count <=
// kReductionBlock. Runs the best SIMD target of this CPU; bitwise the same as
// EvaluateSmoothL1LossTileScalar, the element-at-a-time definition (also the path of targets
// without a fused multiply-add, of a fused gradient, which the family has no op for, and of
// Huber's tiny deltas, whose every result is a zero).
Partial EvaluateSmoothL1LossTile(LossKind kind, const ElementParameters& parameters,
                                 const TileInputs& inputs, int64_t count, const TileOutput& output,
                                 bool sum, const TileOutput& gradient = {});
Partial EvaluateSmoothL1LossTileScalar(LossKind kind, const ElementParameters& parameters,
                                       const TileInputs& inputs, int64_t count,
                                       const TileOutput& output, bool sum,
                                       const TileOutput& gradient = {});

}  // namespace openaclnn
