// Reading and writing a strided operand over a range of flat (row-major) element indices.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/bce.h"

namespace openaclnn::cpu {

inline float LoadAs32(const void* base, FloatType type, int64_t index) {
  switch (type) {
    case FloatType::kFloat16:
      return Float16ToFloat(static_cast<const uint16_t*>(base)[index]);
    case FloatType::kBFloat16:
      return BFloat16ToFloat(static_cast<const uint16_t*>(base)[index]);
    default:
      return static_cast<const float*>(base)[index];
  }
}

inline void StoreFrom32(void* base, FloatType type, int64_t index, float value) {
  switch (type) {
    case FloatType::kFloat16:
      static_cast<uint16_t*>(base)[index] = FloatToFloat16(value);
      break;
    case FloatType::kBFloat16:
      static_cast<uint16_t*>(base)[index] = FloatToBFloat16(value);
      break;
    default:
      static_cast<float*>(base)[index] = value;
  }
}

// Calls run(first_element, length, stride) for each innermost run of `operand` covering flat
// indices [begin, begin + count) of `shape`; first_element is relative to the operand's base.
// `element` only ever holds the position of an element of the view (phase 1 checked that every
// one fits in int64), never one past a row's end: a dimension of size 1 may carry any stride.
template <class Run>
void ForEachRun(const StridedOperand& operand, const int64_t* shape, int rank, int64_t begin,
                int64_t count, Run&& run) {
  int64_t index[kMaxRank];
  int64_t element = operand.offset;
  for (int d = rank - 1; d >= 0; --d) {
    index[d] = begin % shape[d];
    begin /= shape[d];
    element += index[d] * operand.strides[d];
  }
  const int inner = rank - 1;
  for (;;) {
    const int64_t length = std::min(shape[inner] - index[inner], count);
    run(element, length, operand.strides[inner]);
    count -= length;
    if (count == 0) return;
    // The row is done (count remains): back to its first element, then carry.
    element -= index[inner] * operand.strides[inner];
    index[inner] = 0;
    int d = inner - 1;
    while (index[d] == shape[d] - 1) {  // a finished dimension goes back to 0 too
      element -= index[d] * operand.strides[d];
      index[d] = 0;
      --d;
    }
    ++index[d];
    element += operand.strides[d];
  }
}

// True when the operand's elements lie in memory in flat-index order with no gaps, so a range
// of flat indices is one contiguous run.
inline bool IsFlat(const StridedOperand& operand, const int64_t* shape, int rank) {
  int64_t expected = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (shape[d] != 1 && operand.strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

}  // namespace openaclnn::cpu
