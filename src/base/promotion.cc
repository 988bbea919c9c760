#include "base/promotion.h"

#include <algorithm>

namespace openaclnn {
namespace {

// Ranks within a kind: the wider wins a promotion of two of that kind.
int IntegerWidth(int64_t dtype) {
  switch (dtype) {
    case ACL_INT8:
    case ACL_UINT8:
      return 8;
    case ACL_INT16:
      return 16;
    case ACL_INT32:
      return 32;
    default:
      return 64;  // ACL_INT64
  }
}

int64_t SignedOfWidth(int width) {
  switch (width) {
    case 16:
      return ACL_INT16;
    case 32:
      return ACL_INT32;
    default:
      return ACL_INT64;
  }
}

bool IsUnsignedWide(int64_t dtype) {
  return dtype == ACL_UINT16 || dtype == ACL_UINT32 || dtype == ACL_UINT64;
}

bool Known(int64_t dtype) {
  return dtype == ACL_BOOL || IsIntegralType(dtype) || IsFloatingType(dtype) ||
         IsComplexType(dtype);
}

// Two of {bool, int8..int64, uint8}: bool gives way to any integer; int8 with uint8 widens to
// int16; otherwise the wider (uint8 only meets wider signed types here).
int64_t PromoteIntegers(int64_t a, int64_t b) {
  if (a == ACL_BOOL) return b;
  if (b == ACL_BOOL) return a;
  const int width = std::max(IntegerWidth(a), IntegerWidth(b));
  return SignedOfWidth(width == 8 ? 16 : width);
}

// Two floating types: fp16 with bf16 is fp32, otherwise the wider.
int64_t PromoteFloats(int64_t a, int64_t b) {
  const auto rank = [](int64_t dtype) {
    return dtype == ACL_DOUBLE ? 3 : dtype == ACL_FLOAT ? 2 : 1;
  };
  if (rank(a) == 1 && rank(b) == 1)
    return ACL_FLOAT;  // fp16 with bf16 (equal types returned earlier)
  return rank(a) >= rank(b) ? a : b;
}

// With at least one complex type: complex32 holds 16-bit and integer partners, complex64 fp32
// ones, complex128 fp64 ones and whatever meets it.
int64_t PromoteComplex(int64_t a, int64_t b) {
  if (IsComplexType(b) && !IsComplexType(a)) std::swap(a, b);  // a is complex
  if (a == ACL_COMPLEX128 || b == ACL_COMPLEX128 || b == ACL_DOUBLE) return ACL_COMPLEX128;
  if (a == ACL_COMPLEX64 || b == ACL_COMPLEX64 || b == ACL_FLOAT) return ACL_COMPLEX64;
  return ACL_COMPLEX32;
}

}  // namespace

bool IsFloatingType(int64_t dtype) {
  return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_DOUBLE;
}

bool IsIntegralType(int64_t dtype) {
  return dtype == ACL_INT8 || dtype == ACL_UINT8 || dtype == ACL_INT16 || dtype == ACL_INT32 ||
         dtype == ACL_INT64 || IsUnsignedWide(dtype);
}

bool IsComplexType(int64_t dtype) {
  return dtype == ACL_COMPLEX32 || dtype == ACL_COMPLEX64 || dtype == ACL_COMPLEX128;
}

int64_t PromoteType(int64_t a, int64_t b) {
  if (!Known(a) || !Known(b)) return ACL_DT_UNDEFINED;
  if (a == b) return a;
  if (IsUnsignedWide(a) || IsUnsignedWide(b)) return ACL_DT_UNDEFINED;
  if (IsComplexType(a) || IsComplexType(b)) return PromoteComplex(a, b);
  if (IsFloatingType(a) && IsFloatingType(b)) return PromoteFloats(a, b);
  if (IsFloatingType(a)) return a;  // a float beats any integer or bool
  if (IsFloatingType(b)) return b;
  return PromoteIntegers(a, b);
}

bool CanCast(int64_t from, int64_t to) {
  if (IsComplexType(from) && !IsComplexType(to)) return false;
  if (IsFloatingType(from) && IsIntegralType(to)) return false;
  return to != ACL_BOOL || from == ACL_BOOL;
}

}  // namespace openaclnn
