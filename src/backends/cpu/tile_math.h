// The element math applied to one block of operands that lie contiguously in memory: what a
// tile reads and writes, for every family (a family's tile functions: its cpu/ folder,
// src/losses/<family>/cpu/).
#pragma once

#include <cstdint>

#include "kernels/double_double.h"
#include "kernels/loss_problem.h"
#include "kernels/reduction.h"

namespace openaclnn {

// One input operand of a tile. `data` points at the tile's first element, which lies in memory
// as `type`, contiguously, or (splat) is the one value every element of the tile reads.
// nullptr: absent (weight and pos_weight then read as 1). `staged`: the elements are an fp32 copy
// (a strided operand gathered) of values of `type`, which the evaluators' choices still follow.
struct TileOperand {
  const void* data = nullptr;
  FloatType type = FloatType::kFloat32;
  bool splat = false;
  bool staged = false;
  FloatType StoredAs() const { return staged ? FloatType::kFloat32 : type; }
};

struct TileInputs {
  TileOperand operand[kOut];
};

// Where the tile's results go: `count` contiguous elements of `type`; nullptr: not stored.
// `staged`: the elements are an fp32 tile that a strided write converts to `type` afterwards; they
// hold `type`'s values (fp16/bf16 results are exactly such values, so that conversion is exact).
struct TileOutput {
  void* data = nullptr;
  FloatType type = FloatType::kFloat32;
  bool staged = false;
  FloatType StoredAs() const { return staged ? FloatType::kFloat32 : type; }
};

// The SIMD target the tiles run ("scalar" for the fallback): Highway's choice for this CPU, the
// same for every family's tiles.
const char* EvaluateTileTarget();

}  // namespace openaclnn
