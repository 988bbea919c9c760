#include "base/shape.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <utility>

namespace openaclnn {

bool BroadcastsInto(const std::vector<int64_t>& from, const std::vector<int64_t>& into) {
  if (from.size() > into.size()) return false;
  const size_t lead = into.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != into[lead + i]) return false;
  }
  return true;
}

bool BroadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                    std::vector<int64_t>* shape) {
  const std::vector<int64_t>& longer = a.size() >= b.size() ? a : b;
  const std::vector<int64_t>& shorter = a.size() >= b.size() ? b : a;
  const size_t lead = longer.size() - shorter.size();
  std::vector<int64_t> result(longer);
  for (size_t i = 0; i < shorter.size(); ++i) {
    const int64_t m = longer[lead + i], n = shorter[i];
    if (m != n && m != 1 && n != 1) return false;
    result[lead + i] = m == 1 ? n : m;
  }
  *shape = std::move(result);
  return true;
}

void BroadcastStrides(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                      int rank, int64_t* aligned) {
  const size_t lead = rank - shape.size();
  std::fill(aligned, aligned + lead, 0);
  for (size_t i = 0; i < shape.size(); ++i) {
    aligned[lead + i] = shape[i] == 1 ? 0 : strides[i];
  }
}

namespace {

// > 0 when dimensions `outer` and `inner` should swap: operand 0 decides alone where it moves
// along both; otherwise the majority of the others that do (larger stride at `inner`).
int SwapVotes(int outer, int inner, const int64_t* const* strides, int operand_count) {
  int votes = 0;
  for (int k = 0; k < operand_count; ++k) {
    const int64_t a = std::abs(strides[k][outer]), b = std::abs(strides[k][inner]);
    if (a != 0 && b != 0) votes += ((b > a) - (b < a)) * (k == 0 ? operand_count : 1);
  }
  return votes;
}

}  // namespace

void OrderDimensionsByStrides(int rank, int64_t* shape, int64_t* const* strides,
                              int operand_count) {
  for (int i = 1; i < rank; ++i) {  // insertion sort: stable, and rank <= 8
    for (int d = i; d > 0 && SwapVotes(d - 1, d, strides, operand_count) > 0; --d) {
      std::swap(shape[d - 1], shape[d]);
      for (int k = 0; k < operand_count; ++k) std::swap(strides[k][d - 1], strides[k][d]);
    }
  }
}

int CoalesceDimensions(int rank, int64_t* shape, int64_t* const* strides, int operand_count) {
  int kept = 0;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] == 1) continue;
    bool merges = kept > 0;
    for (int k = 0; merges && k < operand_count; ++k) {
      merges = strides[k][kept - 1] == strides[k][d] * shape[d];
    }
    if (merges) {
      shape[kept - 1] *= shape[d];
      for (int k = 0; k < operand_count; ++k) strides[k][kept - 1] = strides[k][d];
      continue;
    }
    shape[kept] = shape[d];
    for (int k = 0; k < operand_count; ++k) strides[k][kept] = strides[k][d];
    ++kept;
  }
  if (kept == 0) {
    shape[0] = 1;
    for (int k = 0; k < operand_count; ++k) strides[k][0] = 0;
    kept = 1;
  }
  return kept;
}

}  // namespace openaclnn
