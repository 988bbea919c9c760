// Shape algebra: broadcasting into a shape, and merging dimensions for iteration.
#pragma once

#include <cstdint>
#include <vector>

namespace openaclnn {

// NumPy broadcasting of `from` INTO `into`: right-aligned, rank(from) <= rank(into), and each
// dimension of `from` equal to its partner or 1. (Symmetric broadcasting, which may grow the
// result, is not what a per-element weight means.)
bool BroadcastsInto(const std::vector<int64_t>& from, const std::vector<int64_t>& into);

// NumPy's symmetric broadcasting of a and b (right-aligned; each pair of dimensions equal, or one
// of them 1, which takes the other's size, 0 included): writes the result to *shape and returns
// true, or returns false where a pair differs and neither is 1.
bool BroadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                    std::vector<int64_t>* shape);

// `strides` of a tensor broadcast into `rank` dimensions, written to aligned[0, rank):
// right-aligned, 0 for the added leading dimensions and for dimensions of size 1 (which repeat).
void BroadcastStrides(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                      int rank, int64_t* aligned);

// Reorders dimensions, in place, so that the ones the operands step through with the smallest
// strides come last (innermost). The first operand (the output: strided writes cost most)
// decides each pair of dimensions it moves along both of; otherwise the others vote, a stride of
// 0 having no say and ties keeping the order. For element-wise work only: it changes the order
// elements are visited in.
void OrderDimensionsByStrides(int rank, int64_t* shape, int64_t* const* strides, int operand_count);

// Drops size-1 dimensions and merges neighbours that every operand steps through as one, in
// place, keeping the row-major order of elements. `strides[k]` points at operand k's strides.
// Returns the new rank, at least 1 (a single element is shape [1]).
int CoalesceDimensions(int rank, int64_t* shape, int64_t* const* strides, int operand_count);

}  // namespace openaclnn
