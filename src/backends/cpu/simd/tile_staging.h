// Where a SIMD tile stages the operands it cannot read in place: one buffer per thread, which
// every family's tiles share (each family's tile sources: src/losses/<family>/cpu/).
#pragma once

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

}  // namespace openaclnn
