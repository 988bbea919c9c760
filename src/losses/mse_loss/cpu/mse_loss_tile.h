// The MSE family's tiles on the CPU: its SIMD tile (mse_loss_tile.cc) and its element-at-a-time
// definition (mse_loss_tile_scalar.cc).
#pragma once

#include <cstdint>

#include "backends/cpu/tile_math.h"

namespace openaclnn {

// Evaluates the loss or the self gradient (the family's kinds) of elements [0, count) of a tile,
// count <= kReductionBlock: stores them to `output` (each correctly rounded once to its type)
// when it has data, and with `sum` (kind kLoss) returns the sum of their fp64 terms and of their
// error bounds in the block order of FoldLanes (else zeros). No fused gradient: `gradient` (the
// signature every family's tile has, CpuFamily::evaluate) goes to the scalar definition. Runs the
// best SIMD target of this CPU; bitwise the same as EvaluateMseLossTileScalar, the
// element-at-a-time definition (also the path of targets without a fused multiply-add).
Partial EvaluateMseLossTile(LossKind kind, const ElementParameters& parameters,
                            const TileInputs& inputs, int64_t count, const TileOutput& output,
                            bool sum, const TileOutput& gradient = {});
Partial EvaluateMseLossTileScalar(LossKind kind, const ElementParameters& parameters,
                                  const TileInputs& inputs, int64_t count, const TileOutput& output,
                                  bool sum, const TileOutput& gradient = {});

}  // namespace openaclnn
