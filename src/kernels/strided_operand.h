// One operand as every backend's kernels read it: a typed base address plus strides over the
// problem's (coalesced) shape, with loads and stores that run on the host and on a GPU alike.
#pragma once

#include <cstdint>

#include "base/dtype.h"

namespace openaclnn {

inline constexpr int kMaxRank = 8;

struct StridedOperand {
  int slot = -1;  // index into the launch's TensorAddresses; -1: absent, reads as 1
  // The floating type of the operand's values: how it is stored, unless `integer` says it is
  // stored as integers, each rounded once to `type` where it is read (LoadAs32); an integer
  // problem's (LossProblem::integer) operands are read as integers.
  FloatType type = FloatType::kFloat32;
  IntegerType integer = IntegerType::kNone;
  int64_t offset = 0;              // elements
  int64_t strides[kMaxRank] = {};  // elements; 0 along broadcast dimensions
};

// Element `index` of an array of `type` at `base`, widened exactly to fp32.
OPENACLNN_HOST_DEVICE inline float LoadAs32(const void* base, FloatType type, int64_t index) {
  switch (type) {
    case FloatType::kFloat16:
      return Float16ToFloat(static_cast<const uint16_t*>(base)[index]);
    case FloatType::kBFloat16:
      return BFloat16ToFloat(static_cast<const uint16_t*>(base)[index]);
    default:
      return static_cast<const float*>(base)[index];
  }
}

// Element `index` of the operand at `base` (its storage address plus the offset and strides the
// caller applied), as the fp32 that holds its value of `operand.type`.
OPENACLNN_HOST_DEVICE inline float LoadAs32(const void* base, const StridedOperand& operand,
                                            int64_t index) {
  if (operand.integer == IntegerType::kNone) return LoadAs32(base, operand.type, index);
  return IntegerToFloat(LoadInteger(base, operand.integer, index), operand.type);
}

// The bytes of one stored element.
OPENACLNN_HOST_DEVICE inline size_t StoredSize(const StridedOperand& operand) {
  return operand.integer == IntegerType::kNone ? ElementSize(operand.type)
                                               : ElementSize(operand.integer);
}

// Stores `value` rounded once to `type` as element `index` of the array at `base`.
OPENACLNN_HOST_DEVICE inline void StoreFrom32(void* base, FloatType type, int64_t index,
                                              float value) {
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

// The element (relative to the operand's base) that flat row-major index `flat` of `shape`
// reaches: what a GPU thread computes for a gathered operand.
OPENACLNN_HOST_DEVICE inline int64_t ElementOf(const StridedOperand& operand, const int64_t* shape,
                                               int rank, int64_t flat) {
  int64_t element = operand.offset;
  for (int d = rank - 1; d > 0; --d) {
    element += (flat % shape[d]) * operand.strides[d];
    flat /= shape[d];
  }
  // What is left of flat is below shape[0]: the leading dimension needs no division.
  return rank > 0 ? element + flat * operand.strides[0] : element;
}

// True when the operand's elements lie in memory in flat-index order with no gaps, so a range
// of flat indices is one contiguous run.
OPENACLNN_HOST_DEVICE inline bool IsFlat(const StridedOperand& operand, const int64_t* shape,
                                         int rank) {
  int64_t expected = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (shape[d] != 1 && operand.strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

// True when every stride is 0: the operand is one value, broadcast.
OPENACLNN_HOST_DEVICE inline bool IsSplat(const StridedOperand& operand, int rank) {
  for (int d = 0; d < rank; ++d) {
    if (operand.strides[d] != 0) return false;
  }
  return true;
}

// The period p when the operand repeats every p flat elements because it is broadcast (stride 0)
// over leading dimensions and flat over the rest (e.g. pos_weight [C] over [N, C]): flat index i
// then reads element offset + i % p. 0 when it is not so.
OPENACLNN_HOST_DEVICE inline int64_t BroadcastPeriod(const StridedOperand& operand,
                                                     const int64_t* shape, int rank) {
  for (int lead = 1; lead < rank && operand.strides[lead - 1] == 0; ++lead) {
    StridedOperand trailing = operand;
    for (int d = lead; d < rank; ++d) trailing.strides[d - lead] = operand.strides[d];
    if (IsFlat(trailing, shape + lead, rank - lead)) {
      int64_t period = 1;
      for (int d = lead; d < rank; ++d) period *= shape[d];
      return period;
    }
  }
  return 0;
}

}  // namespace openaclnn
