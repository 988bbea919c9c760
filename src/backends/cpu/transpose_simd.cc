// TransposeFloats per Highway target, chosen at run time. 128-bit vectors on every target: a
// 4 x 4 block is 4 loads, 8 shuffles and 4 stores, and every target has them.
#include <cstdint>

#include "backends/cpu/transpose.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/transpose_simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rows [row, row + 4) x columns [column, column + 4): four column vectors, transposed in
// registers, stored as four row vectors.
inline void Transpose4x4(const float* from, int64_t from_stride, float* to, int64_t to_stride) {
#if HWY_TARGET == HWY_SCALAR  // one-lane vectors
  for (int64_t row = 0; row < 4; ++row) {
    for (int64_t column = 0; column < 4; ++column) {
      to[row * to_stride + column] = from[column * from_stride + row];
    }
  }
#else
  const hn::FixedTag<float, 4> d;
  const auto c0 = hn::LoadU(d, from);
  const auto c1 = hn::LoadU(d, from + from_stride);
  const auto c2 = hn::LoadU(d, from + 2 * from_stride);
  const auto c3 = hn::LoadU(d, from + 3 * from_stride);
  const auto rows01_of_c01 = hn::InterleaveLower(d, c0, c1);
  const auto rows01_of_c23 = hn::InterleaveLower(d, c2, c3);
  const auto rows23_of_c01 = hn::InterleaveUpper(d, c0, c1);
  const auto rows23_of_c23 = hn::InterleaveUpper(d, c2, c3);
  hn::StoreU(hn::ConcatLowerLower(d, rows01_of_c23, rows01_of_c01), d, to);
  hn::StoreU(hn::ConcatUpperUpper(d, rows01_of_c23, rows01_of_c01), d, to + to_stride);
  hn::StoreU(hn::ConcatLowerLower(d, rows23_of_c23, rows23_of_c01), d, to + 2 * to_stride);
  hn::StoreU(hn::ConcatUpperUpper(d, rows23_of_c23, rows23_of_c01), d, to + 3 * to_stride);
#endif
}

// Four rows at a time across every column, so the block's input lines (one per column) stay in
// L1 from one group of rows to the next while the output is written row after row.
void TransposeFloatsImpl(const float* from, int64_t from_stride, int64_t rows, int64_t columns,
                         float* to, int64_t to_stride) {
  int64_t row = 0;
  for (; row + 4 <= rows; row += 4) {
    int64_t column = 0;
    for (; column + 4 <= columns; column += 4) {
      Transpose4x4(from + column * from_stride + row, from_stride, to + row * to_stride + column,
                   to_stride);
    }
    for (; column < columns; ++column) {
      for (int64_t k = 0; k < 4; ++k) {
        to[(row + k) * to_stride + column] = from[column * from_stride + row + k];
      }
    }
  }
  for (; row < rows; ++row) {
    for (int64_t column = 0; column < columns; ++column) {
      to[row * to_stride + column] = from[column * from_stride + row];
    }
  }
}

}  // namespace openaclnn::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::cpu {

HWY_EXPORT(TransposeFloatsImpl);

void TransposeFloats(const float* from, int64_t from_stride, int64_t rows, int64_t columns,
                     float* to, int64_t to_stride) {
  HWY_DYNAMIC_DISPATCH(TransposeFloatsImpl)(from, from_stride, rows, columns, to, to_stride);
}

}  // namespace openaclnn::cpu
#endif  // HWY_ONCE
