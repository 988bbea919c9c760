// Walking a strided operand over a range of flat (row-major) element indices, run by run.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/loss_problem.h"
#include "kernels/strided_operand.h"

namespace openaclnn::cpu {

// The neutral loads and stores, under the names the CPU loops use.
using openaclnn::LoadAs32;
using openaclnn::StoreFrom32;

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

}  // namespace openaclnn::cpu
