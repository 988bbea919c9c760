// Copying a transposed block of fp32 values: the blocked transposition behind reading transposed
// views (see operand_plan.cc).
#pragma once

#include <cstdint>

namespace openaclnn::cpu {

// to[r * to_stride + c] = from[c * from_stride + r] for r < rows, c < columns: `columns` runs of
// `rows` contiguous values in memory become `rows` runs of `columns` values in `to`. Works in
// 4 x 4 register transposes (Highway, the best target of this CPU), so memory is read and written
// in vectors, never a value per cache line.
void TransposeFloats(const float* from, int64_t from_stride, int64_t rows, int64_t columns,
                     float* to, int64_t to_stride);

}  // namespace openaclnn::cpu
