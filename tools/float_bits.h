// Rounding fp32 to the 16-bit formats ATK uses, round-to-nearest-even, as bit patterns: the tool
// draws inputs in double, rounds them once to the case dtype and feeds those exact values to
// both the library and the golden. fp16 rounds with the public aclFloatToFloat16 (which, as
// CANN's, saturates to +-65504 where IEEE would give Inf: the runner writes a case's infinities
// and NaN itself); ACL has no bf16 counterpart, hence FloatToBf16.
#pragma once

#include <cstdint>
#include <cstring>

#include "acl/acl.h"

namespace openaclnn::tools {

inline uint16_t FloatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // NaN
  const uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace openaclnn::tools
