// The KL divergence family's tiles on the CPU: its SIMD tile (kl_div_tile.cc) and its
// element-at-a-time definition (kl_div_tile_scalar.cc).
#pragma once

#include <cstdint>

#include "backends/cpu/tile_math.h"

namespace openaclnn {

// Evaluates the loss or a gradient of elements [0, count) of a tile, count <= kReductionBlock,
// for the variant parameters.variant says: stores them to `output` (each correctly rounded once to
// its type) when it has data, and with `sum` returns the sum of their terms (KlDivFamily::Term)
// and of their bounds in the block order of FoldLanes (else zeros). No fused gradient: `gradient`
// (the signature every family's tile has, CpuFamily::evaluate) goes to the scalar definition. Runs
// the best SIMD target of this CPU; bitwise the same as EvaluateKlDivTileScalar, the
// element-at-a-time definition (also the path of targets without a fused multiply-add).
Partial EvaluateKlDivTile(LossKind kind, const ElementParameters& parameters,
                          const TileInputs& inputs, int64_t count, const TileOutput& output,
                          bool sum, const TileOutput& gradient = {});
Partial EvaluateKlDivTileScalar(LossKind kind, const ElementParameters& parameters,
                                const TileInputs& inputs, int64_t count, const TileOutput& output,
                                bool sum, const TileOutput& gradient = {});

}  // namespace openaclnn
