// Element types: sizes, names, and the exact fp16/bf16 <-> fp32 conversions every backend uses.
#pragma once

#include <cstdint>
#include <cstring>

#include "acl/acl_base.h"

#if defined(__CUDACC__)
#define OPENACLNN_HOST_DEVICE __host__ __device__
#else
#define OPENACLNN_HOST_DEVICE
#endif

// A constant table that host/device functions index at run time. Device code cannot read a host
// constexpr array, so nvcc's device pass gets its own copy in device memory (internal linkage,
// as nvcc's whole-program mode requires); the host sees the usual constexpr array.
#if defined(__CUDA_ARCH__)
#define OPENACLNN_TABLE static __device__ constexpr
#else
#define OPENACLNN_TABLE inline constexpr
#endif

namespace openaclnn {

// The floating-point element types the loss ops read and write.
enum class FloatType : uint8_t { kFloat32, kFloat16, kBFloat16 };

// The integer element types an op may read (L1Loss's, whose inputs only their promoted type must
// suit): each element is rounded once to the op's floating type as it is loaded; kNone for a
// floating operand.
enum class IntegerType : uint8_t { kNone, kInt64, kInt32, kInt16, kInt8, kUInt8, kBool };

// Both take the aclDataType as an integer: a C caller may pass a value outside the enum.
bool ToFloatType(int64_t dtype, FloatType* type);
bool ToIntegerType(int64_t dtype, IntegerType* type);
// CANN's spelling of a dtype in messages, e.g. "DT_FLOAT16"; "DT_UNKNOWN" outside the enum.
const char* DataTypeName(int64_t dtype);
OPENACLNN_HOST_DEVICE inline constexpr size_t ElementSize(FloatType type) { return type == FloatType::kFloat32 ? 4 : 2; }
OPENACLNN_HOST_DEVICE inline constexpr size_t ElementSize(IntegerType type) {
  switch (type) {
    case IntegerType::kInt64:
      return 8;
    case IntegerType::kInt32:
      return 4;
    case IntegerType::kInt16:
      return 2;
    default:
      return 1;
  }
}

template <class To, class From>
OPENACLNN_HOST_DEVICE inline To BitCast(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

OPENACLNN_HOST_DEVICE inline float BFloat16ToFloat(uint16_t bits) {
  return BitCast<float>(static_cast<uint32_t>(bits) << 16);
}

// Round to nearest even; NaN stays a (quiet) NaN, overflow becomes infinity as IEEE says.
OPENACLNN_HOST_DEVICE inline uint16_t FloatToBFloat16(float value) {
  const uint32_t bits = BitCast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

OPENACLNN_HOST_DEVICE inline float Float16ToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1fu) return BitCast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return BitCast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24 is exact in fp32.
  const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}

// IEEE binary16 with round to nearest even, overflow to infinity, NaN kept as a quiet NaN.
OPENACLNN_HOST_DEVICE inline uint16_t FloatToFloat16(float value) {
  const uint32_t bits = BitCast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7e00u | ((bits >> 13) & 0x1ffu));
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520
  if (magnitude < 0x38800000u) {
    // Result is subnormal or zero: scale so the fp16 subnormal ulp (2^-24) becomes 1 and let
    // the fp32 adder round to nearest even.
    const float scaled = BitCast<float>(magnitude) + 0.5f;  // 0.5 = 2^-1 pushes ulp to 2^-24
    return static_cast<uint16_t>(sign | (BitCast<uint32_t>(scaled) - 0x3f000000u));
  }
  const uint32_t rounding = 0xfffu + ((magnitude >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((magnitude - 0x38000000u + rounding) >> 13));
}

// The one NaN every result that is NaN carries: the positive default quiet NaN (fp32 0x7fc00000,
// fp16 0x7e00, bf16 0x7fc0 once narrowed). IEEE leaves the sign and payload of a NaN result to
// the implementation, and compilers may swap the operands of a commutative operation, so without
// this the bits of a NaN could depend on the code path, the SIMD width or the backend.
inline constexpr double kCanonicalNaN = __builtin_nan("");

// value, or kCanonicalNaN where it is a NaN.
OPENACLNN_HOST_DEVICE inline double CanonicalNaN(double value) {
  return value != value ? kCanonicalNaN : value;
}

// A double rounded once to `type`, stored in the low bits of the result: round-to-odd to fp32
// first keeps enough sticky information that the final rounding to fp16/bf16 is the correct
// rounding of the double, not a double rounding.
OPENACLNN_HOST_DEVICE inline uint32_t RoundOnce(double value, FloatType type) {
  value = CanonicalNaN(value);  // which NaN an IEEE operation returns is not fixed
  if (type == FloatType::kFloat32) return BitCast<uint32_t>(static_cast<float>(value));
  float narrowed = static_cast<float>(value);
  if (static_cast<double>(narrowed) != value && narrowed == narrowed) {
    uint32_t bits = BitCast<uint32_t>(narrowed);
    // Step back toward zero if round-to-nearest went away from it, then mark "inexact".
    const double magnitude = value < 0 ? -value : value;
    const float narrowed_magnitude = narrowed < 0 ? -narrowed : narrowed;
    if (static_cast<double>(narrowed_magnitude) > magnitude) --bits;
    narrowed = BitCast<float>(bits | 1u);
  }
  return type == FloatType::kFloat16 ? FloatToFloat16(narrowed) : FloatToBFloat16(narrowed);
}

// Element `index` of an array of integer `type` at `base`, as an int64 (a bool as 0 or 1).
OPENACLNN_HOST_DEVICE inline int64_t LoadInteger(const void* base, IntegerType type,
                                                 int64_t index) {
  switch (type) {
    case IntegerType::kInt64:
      return static_cast<const int64_t*>(base)[index];
    case IntegerType::kInt32:
      return static_cast<const int32_t*>(base)[index];
    case IntegerType::kInt16:
      return static_cast<const int16_t*>(base)[index];
    case IntegerType::kInt8:
      return static_cast<const int8_t*>(base)[index];
    case IntegerType::kUInt8:
      return static_cast<const uint8_t*>(base)[index];
    default:
      return static_cast<const uint8_t*>(base)[index] != 0 ? 1 : 0;
  }
}

// `value` rounded once to `type` (to nearest even; no int64 overflows fp32, fp16 can: to inf), as
// the fp32 that holds it: the int64 split exactly into two doubles, their sum rounded to odd at
// fp64's 53 bits (so the narrowing that follows is a single correct rounding).
OPENACLNN_HOST_DEVICE inline float IntegerToFloat(int64_t value, FloatType type) {
  const double high = static_cast<double>(value >> 32) * 4294967296.0;  // exact: 32 bits, scaled
  const double low = static_cast<double>(static_cast<uint32_t>(value & 0xffffffff));  // exact
  const double sum = high + low;
  const double rest = low - (sum - high);  // exact (Fast2Sum: |high| >= |low|, or high = 0)
  uint64_t bits = BitCast<uint64_t>(sum);
  if (rest != 0.0 && (bits & 1) == 0) bits += (rest > 0.0) == (sum > 0.0) ? 1 : -1;
  const uint32_t rounded = RoundOnce(BitCast<double>(bits), type);
  switch (type) {
    case FloatType::kFloat32:
      return BitCast<float>(rounded);
    case FloatType::kFloat16:
      return Float16ToFloat(static_cast<uint16_t>(rounded));
    default:
      return BFloat16ToFloat(static_cast<uint16_t>(rounded));
  }
}

}  // namespace openaclnn
