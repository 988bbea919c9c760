// Rounding fp32 to the 16-bit formats ATK uses, round-to-nearest-even, as bit patterns: the tool
// draws inputs in double, rounds them once to the case dtype and feeds those exact values to
// both the library and the golden.
#pragma once

#include <cstdint>
#include <cstring>

namespace openaclnn::tools {

inline uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline uint16_t FloatToBf16(float value) {
  const uint32_t bits = FloatBits(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // NaN
  const uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

inline uint16_t FloatToHalf(float value) {
  const uint32_t bits = FloatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return sign | 0x7E00u;   // NaN
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;  // rounds to or beyond infinity
  if (magnitude < 0x38800000u) {                        // subnormal half (or zero)
    if (magnitude < 0x33000000u) return sign;           // below half the smallest step
    const uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
    const int shift = 126 - static_cast<int>(magnitude >> 23);  // 14..24
    const uint32_t half_ulp = 1u << (shift - 1);
    uint32_t result = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    if (rest > half_ulp || (rest == half_ulp && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits.
  const uint32_t rebased = magnitude - (112u << 23);
  const uint32_t rounding = 0xFFFu + ((rebased >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rebased + rounding) >> 13));
}

}  // namespace openaclnn::tools
