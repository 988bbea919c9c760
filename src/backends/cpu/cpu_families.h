// The loss families on the CPU: what the backend's generic code reads of each (cpu_families.cc,
// the one place it names them: a family's SIMD tile is one line there).
#pragma once

#include <cstdint>

#include "backends/cpu/tile_math.h"
#include "kernels/element_inputs.h"
#include "kernels/exact_sum.h"
#include "kernels/loss_problem.h"

namespace openaclnn::cpu {

struct CpuFamily {
  // EvaluateTile's contract (tile_math.h): the family's best SIMD target, bitwise its
  // element-at-a-time definition (tile_elements.h: EvaluateTileElements).
  Partial (*evaluate)(LossKind kind, const ElementParameters& parameters, const TileInputs& inputs,
                      int64_t count, const TileOutput& output, bool sum,
                      const TileOutput& gradient);
  // The exact pass over a tile: every element's exact term added to `sum`.
  void (*exact_sum)(LossKind kind, const ElementParameters& parameters, const TileInputs& inputs,
                    int64_t count, math::exact::ExactSum& sum);
  double term_error;  // the family's kTermError (kernels/loss_families.h)
  double (*term_denominator)(const ElementParameters& parameters);
  bool (*sums_fp32_terms)(FloatType self, FloatType result, bool fused, FloatType gradient);
  // An integer problem's element (LossProblem::integer); nullptr for a family without one.
  int64_t (*integer_element)(int64_t x, int64_t t);
};

// The row of `family` (by WithFamily).
const CpuFamily& CpuFamilyOf(LossFamily family);

// An integer problem (integer_kernels_cpu.cc): element-wise, or a total that wraps.
const char* RunIntegerCpu(const LossProblem& problem, const LaunchContext& context);

}  // namespace openaclnn::cpu
