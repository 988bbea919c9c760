// The loops over a tile's elements: whole steps of an evaluator into the block order's
// accumulator, the sums-only loop of the 16-bit means, and the remainder.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_TILE_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_TILE_LOOPS_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_TILE_LOOPS_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_TILE_LOOPS_INL_H_
#endif

#include "backends/cpu/simd/block_accumulator-inl.h"
#include "backends/cpu/simd/step_values-inl.h"
#include "hwy/highway.h"
#include "kernels/reduction.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// Where a tile's results go: the output, the fused pass's gradient.
struct TileSinks {
  const TileOutput& output;
  const TileOutput& gradient;
};

// Elements [i, count), fewer than a step: one step with partial loads, stored and summed per
// element (one instantiation of the formulas per evaluator keeps compile time in bounds: under
// the sanitizers each one costs minutes).
template <size_t kStep, class Eval>
void RunRemainder(const Eval& eval, int64_t i, int64_t count, const TileSinks& sinks,
                  Partial* lanes) {
  constexpr size_t kLanes = hn::MaxLanes(D());
  if (i >= count) return;
  const auto results = eval.template AtPartial<kStep>(i, count - i);
  const Targets& targets = eval.targets;
  HWY_ALIGN float values[kStep * kLanes];
  HWY_ALIGN float gradients[kStep * kLanes];
  HWY_ALIGN double sums[kStep * kLanes];
  HWY_ALIGN double bounds[kStep * kLanes];
  for (size_t j = 0; j < kStep; ++j) {
    if (targets.store_value) {
      hn::Store(results.value[j], D(), values + j * kLanes);
    }
    if (Eval::kWithGradient) {
      hn::Store(results.gradient[j], D(), gradients + j * kLanes);
    }
    if (targets.sum) {
      for (size_t half = 0; half < 2; ++half) {
        const size_t at = j * kLanes + half * kLanes / 2;
        hn::Store(results.sum.part[2 * j + half], D64(), sums + at);
        hn::Store(results.bound.part[2 * j + half], D64(), bounds + at);
      }
    }
  }
  const TileOutput &output = sinks.output, &gradient = sinks.gradient;
  for (int64_t k = 0; k < count - i; ++k) {
    if (targets.store_value) cpu::StoreFrom32(output.data, output.StoredAs(), i + k, values[k]);
    if (Eval::kWithGradient) {
      cpu::StoreFrom32(gradient.data, gradient.StoredAs(), i + k, gradients[k]);
    }
    if (targets.sum) {
      lanes[(i + k) % kBlockLanes] = lanes[(i + k) % kBlockLanes] + Partial{sums[k], bounds[k]};
    }
  }
}

// RunSteps for the 16-bit sums alone (kSumsIn32, nothing stored), in a loop of their own up to
// the first step with a term in fp64, and without bounds: every term's is the evaluator's
// kTermBound32 of its value, so theirs is that of the sums (an accumulator that starts at zero,
// as a tile's does).
// Beside the stored values' paths, or with the fp64 call inside it, GCC kept the accumulator and
// the step's sums on the stack (32 accesses per step, then 26; now none but spilled constants).
template <size_t kStep, class Eval>
int64_t RunSums32(const Eval& eval, int64_t i, int64_t count, BlockAccumulator& accumulator) {
  constexpr int64_t kStepElements = static_cast<int64_t>(kStep * BlockAccumulator::kLanes);
  BlockAccumulator local = accumulator;
  bool open = false;
  for (; i + kStepElements <= count; i += kStepElements) {
    const auto results = eval.template SumsAt<kStep>(i, &open);
    if (HWY_UNLIKELY(open)) break;
    local.AddSums<kStep>(results.sum);
  }
  local.BoundsFromSums(Eval::kTermBound32);
  for (; i + kStepElements <= count; i += kStepElements) {
    const auto results = eval.template SumsAt<kStep>(i);
    local.AddStep<kStep>(results.sum, results.bound);
  }
  accumulator = local;
  return i;
}

// Elements from i in steps of kStep float vectors while a whole step fits and is a whole number
// of kBlockLanes-element groups; vector j of a step adds into accumulator group j % kGroups, which
// keeps the block order. Returns where it stopped. Flattened: GCC's inliner otherwise stops short
// of the formulas on 4-vector values, and passes them through memory (a third slower); but not
// under the sanitizers, whose checks make the flattened function take minutes to compile.
template <size_t kStep, class Eval>
OPENACLNN_FLATTEN int64_t RunSteps(const Eval& eval, int64_t i, int64_t count,
                                   const TileSinks& sinks, BlockAccumulator& accumulator) {
  constexpr size_t kLanes = BlockAccumulator::kLanes;
  constexpr int64_t kStepElements = static_cast<int64_t>(kStep * kLanes);
  static_assert(kStepElements % kBlockLanes == 0, "a step must be whole groups of kBlockLanes");
  const Targets& targets = eval.targets;
  if constexpr (Eval::kSumsIn32 && !Eval::kWithGradient) {
    if (!targets.store_value) return RunSums32<kStep>(eval, i, count, accumulator);
  }
  // A copy whose address never escapes can stay in registers, where the caller's would be loaded
  // and stored on every step.
  BlockAccumulator local = accumulator;
  for (; i + kStepElements <= count; i += kStepElements) {
    const auto results = eval.template At<kStep>(i);
    for (size_t j = 0; j < kStep; ++j) {
      const int64_t at = i + static_cast<int64_t>(j * kLanes);
      if (targets.store_value) {
        Store<Eval::kStoredAs>(sinks.output, at, results.value[j]);
      }
      if (Eval::kWithGradient) {
        Store<Eval::kStoredAs>(sinks.gradient, at, results.gradient[j]);
      }
    }
    if (targets.sum) local.AddStep<kStep>(results.sum, results.bound);
  }
  accumulator = local;
  return i;
}

// A tile by the evaluator Eval: whole steps (RunSteps), then the remainder (RunRemainder).
template <class Eval>
Partial RunTileOf(const ElementParameters& parameters, const TileInputs& inputs, int64_t count,
                  const TileSinks& sinks, const Targets& targets, TileStaging& staging) {
  const Eval eval{{StageInputs<typename Eval::SourceT>(Eval::kReads, inputs, count, staging), count,
                   parameters, targets}};
  constexpr size_t kGroups = BlockAccumulator::kGroups;
  BlockAccumulator accumulator;
  // Two float vectors (4 fp64 parts) side by side (8 parts spill on AVX-512, and AVX2 has half
  // its registers); more where vectors are so narrow that a group of kBlockLanes needs more.
  constexpr size_t kStep = kGroups > 2 ? kGroups : 2;
  const int64_t i = RunSteps<kStep>(eval, 0, count, sinks, accumulator);
  Partial lanes[kBlockLanes];
  accumulator.StoreLanes(lanes);
  RunRemainder<kStep>(eval, i, count, sinks, lanes);
  return FoldLanes(lanes);
}

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_TILE_LOOPS_INL_H_
