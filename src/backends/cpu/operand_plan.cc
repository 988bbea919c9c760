#include "backends/cpu/operand_plan.h"

#include <algorithm>
#include <cstring>

#include "backends/cpu/strided.h"
#include "backends/cpu/transpose.h"

namespace openaclnn::cpu {
namespace {

// Widens `length` elements at stride `stride` from `base` into `to` at stride `to_stride`; the
// type switch sits outside the loop so each loop is a plain copy or conversion. Integers are
// rounded once to the operand's floating type.
void CopyRun(const void* base, const StridedOperand& operand, int64_t first, int64_t length,
             int64_t stride, float* to, int64_t to_stride = 1) {
  const FloatType type = operand.type;
  if (operand.integer != IntegerType::kNone) {
    for (int64_t i = 0; i < length; ++i) {
      to[i * to_stride] =
          IntegerToFloat(LoadInteger(base, operand.integer, first + i * stride), type);
    }
    return;
  }
  if (type == FloatType::kFloat32 && stride == 1 && to_stride == 1) {
    std::memcpy(to, static_cast<const float*>(base) + first, length * sizeof(float));
    return;
  }
  switch (type) {
    case FloatType::kFloat16: {
      const uint16_t* from = static_cast<const uint16_t*>(base) + first;
      for (int64_t i = 0; i < length; ++i) to[i * to_stride] = Float16ToFloat(from[i * stride]);
      break;
    }
    case FloatType::kBFloat16: {
      const uint16_t* from = static_cast<const uint16_t*>(base) + first;
      for (int64_t i = 0; i < length; ++i) to[i * to_stride] = BFloat16ToFloat(from[i * stride]);
      break;
    }
    default: {
      const float* from = static_cast<const float*>(base) + first;
      for (int64_t i = 0; i < length; ++i) to[i * to_stride] = from[i * stride];
    }
  }
}

// Flat elements [begin, begin + count) of the operand into `tile`, a row (innermost run) at a
// time.
void CopyRows(const void* base, const StridedOperand& operand, const int64_t* shape, int rank,
              int64_t begin, int64_t count, float* tile) {
  ForEachRun(operand, shape, rank, begin, count,
             [&](int64_t element, int64_t length, int64_t stride) {
               CopyRun(base, operand, element, length, stride, tile);
               tile += length;
             });
}

// As CopyRows, but the full rows of the range a column at a time: where rows lie closer in memory
// than a row's elements (a transposed view), each column of them is a run in memory, so memory is
// read in runs rather than one element per cache line, and the tile (in L1) takes the scattered
// writes; fp32 columns of adjacent rows go through register transposes. The partial rows at
// either end go a row at a time.
void CopyColumns(const void* base, const StridedOperand& operand, const int64_t* shape, int rank,
                 int64_t begin, int64_t count, float* tile) {
  const int64_t width = shape[rank - 1];
  const int64_t head = std::min((width - begin % width) % width, count);
  const int64_t rows = (count - head) / width;
  CopyRows(base, operand, shape, rank, begin, head, tile);
  float* next = tile + head;
  const int64_t column_stride = operand.strides[rank - 1];
  ForEachRun(operand, shape, rank - 1, (begin + head) / width, rows,
             [&](int64_t element, int64_t length, int64_t row_stride) {
               if (operand.type == FloatType::kFloat32 && operand.integer == IntegerType::kNone &&
                   row_stride == 1) {
                 TransposeFloats(static_cast<const float*>(base) + element, column_stride, length,
                                 width, next, width);
               } else {
                 for (int64_t column = 0; column < width; ++column) {
                   CopyRun(base, operand, element + column * column_stride, length, row_stride,
                           next + column, width);
                 }
               }
               next += length * width;
             });
  const int64_t done = head + rows * width;
  CopyRows(base, operand, shape, rank, begin + done, count - done, next);
}

// tile[j] = operand[(begin + j) % period]: one period copied, then doubled in place, so a short
// period costs a few large copies instead of one small run per period.
void FillPeriodic(const void* base, const StridedOperand& operand, int64_t period, int64_t begin,
                  int64_t count, float* tile) {
  const int64_t phase = begin % period;
  const int64_t head = std::min(period - phase, count);
  CopyRun(base, operand, operand.offset + phase, head, 1, tile);
  if (head < count) {
    CopyRun(base, operand, operand.offset, std::min(phase, count - head), 1, tile + head);
  }
  for (int64_t filled = std::min(period, count); filled < count; filled *= 2) {
    std::memcpy(tile + filled, tile, std::min(filled, count - filled) * sizeof(float));
  }
}

}  // namespace

OperandPlan PlanOperand(const StridedOperand& operand, const LossProblem& problem) {
  if (operand.slot < 0) return {};
  const int rank = problem.rank;
  // Integers are rounded to their floating type as they are copied: never read in place.
  if (operand.integer != IntegerType::kNone) return {Access::kGather, 0};
  if (IsFlat(operand, problem.shape, rank)) return {Access::kFlat, 0};
  if (IsSplat(operand, rank)) return {Access::kSplat, 0};
  const int64_t period = BroadcastPeriod(operand, problem.shape, rank);
  if (period != 0) return {Access::kPeriodic, period};
  // Strides are never negative (the ops' layout check).
  const bool rows_closer = rank >= 2 && operand.strides[rank - 2] != 0 &&
                           operand.strides[rank - 2] < operand.strides[rank - 1];
  return {rows_closer ? Access::kColumns : Access::kGather, 0};
}

TileOperand BlockOperand(const LossProblem& problem, const void* base, int which,
                         const OperandPlan& plan, int64_t begin, int64_t count, float* tile) {
  const StridedOperand& operand = problem.operands[which];
  const auto* bytes = static_cast<const char*>(base);
  const int64_t size = static_cast<int64_t>(ElementSize(operand.type));
  switch (plan.access) {
    case Access::kAbsent:
      return {};
    case Access::kFlat:
      return {bytes + (operand.offset + begin) * size, operand.type, false};
    case Access::kSplat:
      return {bytes + operand.offset * size, operand.type, true};
    case Access::kPeriodic:
      FillPeriodic(base, operand, plan.period, begin, count, tile);
      return {tile, operand.type, false, true};
    case Access::kColumns:
      CopyColumns(base, operand, problem.shape, problem.rank, begin, count, tile);
      return {tile, operand.type, false, true};
    default:
      CopyRows(base, operand, problem.shape, problem.rank, begin, count, tile);
      return {tile, operand.type, false, true};
  }
}

}  // namespace openaclnn::cpu
