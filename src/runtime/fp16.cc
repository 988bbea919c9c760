// aclFloatToFloat16 / aclFloat16ToFloat with CANN's semantics, which differ from IEEE: the
// narrowing saturates (overflow, Inf and NaN become +-65504) and the widening has no Inf/NaN
// (exponent 31 decodes like any other exponent).
#include <cstdint>
#include <cstring>

#include "acl/acl_base.h"

namespace {

constexpr uint16_t kSaturated = 0x7BFF;  // 65504, the largest finite half

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float FromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// Drops `shift` low bits of `value`, rounding to nearest, ties to even.
uint32_t ShiftRoundEven(uint32_t value, unsigned shift) {
  const uint32_t kept = value >> shift;
  const uint32_t rest = value & ((uint32_t{1} << shift) - 1);
  const uint32_t half = uint32_t{1} << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
}

// |value| as half bits (no sign), saturating.
uint16_t MagnitudeToHalf(uint32_t exponent, uint32_t mantissa) {
  if (exponent == 0xFF) return kSaturated;  // Inf and NaN saturate
  const int unbiased = static_cast<int>(exponent) - 127;
  if (unbiased >= 16) return kSaturated;
  if (unbiased >= -14) {
    // Normal half: the carry out of a rounded-up mantissa correctly bumps the exponent.
    const uint32_t half =
        (static_cast<uint32_t>(unbiased + 15) << 10) + ShiftRoundEven(mantissa, 13);
    return half > kSaturated ? kSaturated : static_cast<uint16_t>(half);
  }
  if (unbiased < -25 || exponent == 0) return 0;  // below half the smallest subnormal
  // Subnormal half: value = (1.m) * 2^unbiased = n * 2^-24, n = (1.m) >> (-unbiased - 14 + 13).
  const uint32_t significand = mantissa | 0x800000;
  return static_cast<uint16_t>(ShiftRoundEven(significand, static_cast<unsigned>(-unbiased - 1)));
}

}  // namespace

extern "C" {

aclFloat16 aclFloatToFloat16(float value) {
  const uint32_t bits = Bits(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  return static_cast<aclFloat16>(sign | MagnitudeToHalf((bits >> 23) & 0xFF, bits & 0x7FFFFF));
}

float aclFloat16ToFloat(aclFloat16 value) {
  const uint32_t sign = static_cast<uint32_t>(value & 0x8000) << 16;
  const uint32_t exponent = (value >> 10) & 0x1F;
  const uint32_t mantissa = value & 0x3FF;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    const float magnitude = static_cast<float>(mantissa) * FromBits(0x33800000);  // 2^-24
    return sign != 0 ? -magnitude : magnitude;
  }
  return FromBits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

}  // extern "C"
