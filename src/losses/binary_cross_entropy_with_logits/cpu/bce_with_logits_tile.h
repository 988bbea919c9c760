// The BCE-with-logits family's tiles on the CPU: its SIMD tile, one source file per kind
// (bce_with_logits_*_tile.cc) dispatched by EvaluateTile (bce_with_logits_tile.cc), and its
// element-at-a-time definition (bce_with_logits_tile_scalar.cc).
#pragma once

#include <cstdint>

#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/tile_math.h"

namespace openaclnn {

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

// EvaluateTile of kind kLoss without a gradient, kGradSelf and kGradTarget (whose results are
// never summed), and the fused pass (kLoss with a gradient): one source file each, so that a
// profile names it and builds compile the kinds in parallel.
Partial EvaluateLossTile(const ElementParameters& parameters, const TileInputs& inputs,
                         int64_t count, const TileOutput& output, bool sum, TileStaging& staging);
Partial EvaluateGradSelfTile(const ElementParameters& parameters, const TileInputs& inputs,
                             int64_t count, const TileOutput& output, TileStaging& staging);
Partial EvaluateGradTargetTile(const ElementParameters& parameters, const TileInputs& inputs,
                               int64_t count, const TileOutput& output, TileStaging& staging);
Partial EvaluateLossAndGradSelfTile(const ElementParameters& parameters, const TileInputs& inputs,
                                    int64_t count, const TileOutput& output, bool sum,
                                    const TileOutput& gradient, TileStaging& staging);

// For tests: which of `values` (non-negative losses in fp64, each within its bound of the exact
// loss: kEstimateError64 of it for fp32, kLossError32 for fp16 and bf16) the bit test of the SIMD
// loss evaluator (backends/cpu/simd/rounding_bits-inl.h: FarFromBoundaries, InNormalRange,
// SettledOnGrid16) settles in `type`, on the target EvaluateTile runs, and *rounded the result it
// stores for a settled one. `test` (fp16, bf16): that of the losses evaluated wholly in fp32
// lanes, fp32 values within 2^-21 + 2^-23 (Loss16InFp32) or 1.5 * 2^-21 + 2^-40
// (WeightedLoss16InFp32) of the exact loss.
enum class LossBitTest { kFp64, kFp32Unweighted, kFp32Weighted };
void SettlesLossBits(FloatType type, const double* values, int64_t count, bool* settled,
                     float* rounded, LossBitTest test = LossBitTest::kFp64);

}  // namespace openaclnn
