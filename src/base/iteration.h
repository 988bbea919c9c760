// How an element-wise op walks its operands (as PyTorch's TensorIterator plans it): the shape
// of the iteration space and each operand's strides over it, dimensions ordered to follow memory
// and merged where every operand allows.
#pragma once

#include <cstdint>
#include <vector>

#include "base/tensor.h"

namespace openaclnn {

// Plans the walk over `shape` for `count` operands: `tensors[k]` (nullptr for one read through
// its offset alone, such as an absent or a reduced one: its strides are all 0) broadcast into
// `shape`, its strides written to `strides[k]`. With `follow_memory` (element-wise results only:
// it changes the visiting order) the dimensions are ordered by the operands' strides, operand 0
// deciding first (put the outputs first: strided writes cost most); a reduction keeps the
// row-major order, which fixes its summation order. Then dimensions are coalesced. Writes the
// iteration shape to `iteration_shape` (room for shape.size() entries, at least 1) and returns its
// rank, at least 1.
int PlanIteration(const std::vector<int64_t>& shape, const aclTensor* const* tensors,
                  int64_t* const* strides, int count, bool follow_memory, int64_t* iteration_shape);

}  // namespace openaclnn
