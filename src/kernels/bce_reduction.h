// The deterministic reduction order of mean and sum, defined once for every backend: a result
// never depends on the thread count, the SIMD width or the device, because every backend cuts the
// elements into the same blocks, sums each block in the same order, and combines the blocks'
// sums in the same order.
#pragma once

#include <cstdint>

#include "base/dtype.h"

namespace openaclnn {

// Elements per reduction block: block b holds flat elements [b * kReductionBlock, ...).
inline constexpr int64_t kReductionBlock = 4096;

// Lanes of the in-block order: element i of a block is added to lane i % kBlockLanes.
inline constexpr int kBlockLanes = 16;

// Written without count + kReductionBlock - 1, which overflows for counts near INT64_MAX.
OPENACLNN_HOST_DEVICE inline constexpr int64_t ReductionBlocks(int64_t count) {
  return count / kReductionBlock + (count % kReductionBlock != 0 ? 1 : 0);
}

// The fixed summation order of a block: kBlockLanes fp64 lanes, element i going to lane i % 16,
// each lane summed in index order from +0.0, then the lanes folded pairwise (8, 4, 2, 1).
OPENACLNN_HOST_DEVICE inline double FoldLanes(double* lanes) {
  for (int width = kBlockLanes / 2; width >= 1; width /= 2) {
    for (int lane = 0; lane < width; ++lane) lanes[lane] += lanes[lane + width];
  }
  return lanes[0];
}

// The blocks' sums combined in block order 0, 1, 2, ..., from +0.0.
OPENACLNN_HOST_DEVICE inline double CombineBlocks(const double* partials, int64_t blocks) {
  double total = 0.0;
  for (int64_t block = 0; block < blocks; ++block) total += partials[block];
  return total;
}

}  // namespace openaclnn
