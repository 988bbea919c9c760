// The SIMD tile evaluation of each loss kind, one source file per kind (simd/*_tile.cc), each
// dispatched to the best Highway target of this CPU: EvaluateTile (tile_math_simd.cc) chooses one.
#pragma once

#include <cstdint>

#include "backends/cpu/tile_math.h"
#include "kernels/reduction.h"

namespace openaclnn {

// A thread's fp32 copies of the operands of a tile that do not lie in memory as contiguous fp32
// (simd/operand_sources-inl.h: StageInputs).
struct TileStaging {
  alignas(64) float operand[kOut][kReductionBlock];
};
// This thread's TileStaging, which every family's tiles share.
TileStaging& ThreadTileStaging();

// EvaluateTile of kind kLoss without a gradient, kGradSelf and kGradTarget (whose results are
// never summed), and the fused pass (kLoss with a gradient).
Partial EvaluateLossTile(double gradient_scale, const TileInputs& inputs, int64_t count,
                         const TileOutput& output, bool sum, TileStaging& staging);
Partial EvaluateGradSelfTile(double gradient_scale, const TileInputs& inputs, int64_t count,
                             const TileOutput& output, TileStaging& staging);
Partial EvaluateGradTargetTile(double gradient_scale, const TileInputs& inputs, int64_t count,
                               const TileOutput& output, TileStaging& staging);
Partial EvaluateLossAndGradSelfTile(double gradient_scale, const TileInputs& inputs, int64_t count,
                                    const TileOutput& output, bool sum, const TileOutput& gradient,
                                    TileStaging& staging);

}  // namespace openaclnn
