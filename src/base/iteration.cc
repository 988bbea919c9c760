#include "base/iteration.h"

#include <algorithm>

#include "base/shape.h"

namespace openaclnn {

int PlanIteration(const std::vector<int64_t>& shape, const aclTensor* const* tensors,
                  int64_t* const* strides, int count, bool follow_memory,
                  int64_t* iteration_shape) {
  const int rank = static_cast<int>(shape.size());
  std::copy(shape.begin(), shape.end(), iteration_shape);
  for (int k = 0; k < count; ++k) {
    if (tensors[k] == nullptr) {
      std::fill(strides[k], strides[k] + rank, 0);
      continue;
    }
    // Written in place: phase 1 of a small call should not allocate for it.
    BroadcastStrides(tensors[k]->view_shape, tensors[k]->strides, rank, strides[k]);
  }
  if (follow_memory) OrderDimensionsByStrides(rank, iteration_shape, strides, count);
  return CoalesceDimensions(rank, iteration_shape, strides, count);
}

}  // namespace openaclnn
