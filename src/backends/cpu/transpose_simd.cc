// TransposeFloats per Highway target, chosen at run time. Each step transposes 4 rows of one
// vector's width of columns: every 128-bit block of a vector is loaded from its own column, and
// the in-block 4 x 4 transposes that follow are 8 shuffles for the whole vector (16 columns on
// AVX-512, 8 on AVX2, 4 on 128-bit and scalable targets).
#include <cstdint>

#include "backends/cpu/transpose.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/transpose_simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// Whole 128-bit blocks on every target; on scalable ones one block (their width is not fixed).
#if HWY_HAVE_SCALABLE
using WideTag = hn::FixedTag<float, 4>;
#else
using WideTag = hn::ScalableTag<float>;
#endif

// A vector whose 128-bit block j holds the 4 floats at from + j * block_stride.
template <class D>
HWY_INLINE hn::Vec<D> LoadBlocks(D d, const float* from, int64_t block_stride) {
  if constexpr (hn::MaxLanes(D()) <= 4) {
    return hn::LoadU(d, from);
  } else {
    const hn::Half<D> half;
    const auto upper = from + static_cast<int64_t>(hn::MaxLanes(half) / 4) * block_stride;
    return hn::Combine(d, LoadBlocks(half, upper, block_stride),
                       LoadBlocks(half, from, block_stride));
  }
}

// Rows [row, row + 4) x Lanes(d) columns: vector k holds columns k, k + 4, k + 8, ... in its
// blocks; interleaving floats, then pairs of floats, leaves row q of every block's 4 columns in
// vector q, which is one contiguous run of the output row.
template <class D>
HWY_INLINE void TransposeFourRows(D d, const float* from, int64_t from_stride, float* to,
                                  int64_t to_stride) {
  const hn::Repartition<double, D> pairs;
  const auto v0 = LoadBlocks(d, from, 4 * from_stride);
  const auto v1 = LoadBlocks(d, from + from_stride, 4 * from_stride);
  const auto v2 = LoadBlocks(d, from + 2 * from_stride, 4 * from_stride);
  const auto v3 = LoadBlocks(d, from + 3 * from_stride, 4 * from_stride);
  const auto rows01_of_c01 = hn::BitCast(pairs, hn::InterleaveLower(d, v0, v1));
  const auto rows01_of_c23 = hn::BitCast(pairs, hn::InterleaveLower(d, v2, v3));
  const auto rows23_of_c01 = hn::BitCast(pairs, hn::InterleaveUpper(d, v0, v1));
  const auto rows23_of_c23 = hn::BitCast(pairs, hn::InterleaveUpper(d, v2, v3));
  hn::StoreU(hn::BitCast(d, hn::InterleaveLower(pairs, rows01_of_c01, rows01_of_c23)), d, to);
  hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(pairs, rows01_of_c01, rows01_of_c23)), d,
             to + to_stride);
  hn::StoreU(hn::BitCast(d, hn::InterleaveLower(pairs, rows23_of_c01, rows23_of_c23)), d,
             to + 2 * to_stride);
  hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(pairs, rows23_of_c01, rows23_of_c23)), d,
             to + 3 * to_stride);
}

// Lanes(d) columns down every row. Columns outermost: the loads in flight come from Lanes(d)
// pages, which the data TLB holds (across all 100 columns of a [N, 100] view they thrash it),
// each read in a run; from memory this halves the copy's time.
template <class D>
HWY_INLINE void TransposeColumns(D d, const float* from, int64_t from_stride, int64_t rows,
                                 float* to, int64_t to_stride) {
  int64_t row = 0;
  for (; row + 4 <= rows; row += 4) {
    TransposeFourRows(d, from + row, from_stride, to + row * to_stride, to_stride);
  }
  for (; row < rows; ++row) {
    for (size_t column = 0; column < hn::Lanes(d); ++column) {
      to[row * to_stride + column] = from[static_cast<int64_t>(column) * from_stride + row];
    }
  }
}
#endif

void TransposeFloatsImpl(const float* from, int64_t from_stride, int64_t rows, int64_t columns,
                         float* to, int64_t to_stride) {
  int64_t column = 0;
#if HWY_TARGET != HWY_SCALAR
  const WideTag wide;
  const auto wide_columns = static_cast<int64_t>(hn::Lanes(wide));
  for (; column + wide_columns <= columns; column += wide_columns) {
    TransposeColumns(wide, from + column * from_stride, from_stride, rows, to + column, to_stride);
  }
  const hn::FixedTag<float, 4> block;
  for (; column + 4 <= columns; column += 4) {
    TransposeColumns(block, from + column * from_stride, from_stride, rows, to + column, to_stride);
  }
#endif
  for (; column < columns; ++column) {
    for (int64_t row = 0; row < rows; ++row) {
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
