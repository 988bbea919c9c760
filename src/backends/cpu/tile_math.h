// The element math applied to one block of operands that lie contiguously in memory.
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

// Evaluates the loss or gradient of elements [0, count) of a tile, count <= kReductionBlock;
// stores them to `output` (each correctly rounded once to its type) when it has data, and with
// `sum` (kind kLoss; the gradients never reduce) returns the sum of their estimates and of
// their error bounds in the block order of FoldLanes (else zeros): fp64 estimates, or fp32 ones
// (BceLossTerm32) where the logits and `output`'s type are 16-bit and no gradient is fused. With
// kind kLoss and a `gradient` that has data, the same pass also stores there the gradient with
// respect to self (of the gradOutput operand, divided by parameters.divisor): bitwise what kind
// kGradSelf stores, from the one exp(-|x|) both need. Runs the best SIMD target of this CPU
// (Highway dispatch); bitwise the same as EvaluateTileScalar.
Partial EvaluateTile(LossKind kind, const ElementParameters& parameters, const TileInputs& inputs,
                     int64_t count, const TileOutput& output, bool sum,
                     const TileOutput& gradient = {});

// The element-at-a-time definition of EvaluateTile, used where no SIMD target with a fused
// multiply-add exists, and by tests as the reference.
Partial EvaluateTileScalar(LossKind kind, const ElementParameters& parameters,
                           const TileInputs& inputs, int64_t count, const TileOutput& output,
                           bool sum, const TileOutput& gradient = {});

// EvaluateTile and EvaluateTileScalar of the binary cross entropy family (kinds
// kLoss and kGradSelf; no fused gradient): its best SIMD target
// (simd/binary_cross_entropy_tile.cc), bitwise the same as its element-at-a-time definition.
Partial EvaluateBinaryCrossEntropyTile(LossKind kind, const ElementParameters& parameters,
                                       const TileInputs& inputs, int64_t count,
                                       const TileOutput& output, bool sum,
                                       const TileOutput& gradient = {});
Partial EvaluateBinaryCrossEntropyTileScalar(LossKind kind, const ElementParameters& parameters,
                                             const TileInputs& inputs, int64_t count,
                                             const TileOutput& output, bool sum,
                                             const TileOutput& gradient = {});
// The name of the Highway target EvaluateTile runs now ("scalar" for the fallback).
const char* EvaluateTileTarget();

// For tests: which of `values` (non-negative losses in fp64, each within its bound of the exact
// loss: kEstimateError64 of it for fp32, kLossError32 for fp16 and bf16) the bit test of the SIMD
// loss evaluator (simd/rounding_bits-inl.h: FarFromBoundaries, InNormalRange, SettledOnGrid16)
// settles in `type`, on the target EvaluateTile runs, and *rounded the result it stores for a
// settled one. `test` (fp16, bf16): that of the losses evaluated wholly in fp32 lanes, fp32 values
// within 2^-21 + 2^-23 (Loss16InFp32) or 1.5 * 2^-21 + 2^-40 (WeightedLoss16InFp32) of the exact
// loss.
enum class LossBitTest { kFp64, kFp32Unweighted, kFp32Weighted };
void SettlesLossBits(FloatType type, const double* values, int64_t count, bool* settled,
                     float* rounded, LossBitTest test = LossBitTest::kFp64);

}  // namespace openaclnn
