// aclFloatToFloat16 / aclFloat16ToFloat against expectations computed in double precision from
// the CANN rules: round to nearest even, saturate to +-65504 (Inf and NaN included, sign kept),
// and decode exponent 31 as an ordinary exponent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "acl/acl_base.h"

namespace {

// The value of half bits under CANN's decoding (no Inf/NaN).
double HalfValue(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24)
                                         : std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

// Nearest half to `value` (ties to even mantissa), saturating; computed by search in double.
uint16_t ReferenceHalf(float value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return sign | 0x7BFF;
  const double magnitude = std::fabs(static_cast<double>(value));
  uint16_t low = 0;
  uint16_t high = 0x7BFF;
  if (magnitude >= HalfValue(high)) return sign | 0x7BFF;
  while (high - low > 1) {  // invariant: HalfValue(low) <= magnitude < HalfValue(high)
    const uint16_t middle = static_cast<uint16_t>((low + high) / 2);
    if (HalfValue(middle) <= magnitude) {
      low = middle;
    } else {
      high = middle;
    }
  }
  const double below = magnitude - HalfValue(low);
  const double above = HalfValue(high) - magnitude;
  uint16_t chosen = below < above ? low : high;
  if (below == above) chosen = (low & 1) == 0 ? low : high;
  // 65504 + half an ulp (65520) and beyond would round to infinity: saturate instead.
  if (chosen == 0x7BFF && magnitude >= 65520.0) chosen = 0x7BFF;
  return sign | chosen;
}

TEST(Fp16, EncodesSpecialValuesAsCannDoes) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(aclFloatToFloat16(inf), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(-inf), 0xFBFF);
  EXPECT_EQ(aclFloatToFloat16(std::numeric_limits<float>::quiet_NaN()), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(1e9f), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(-1e9f), 0xFBFF);
  EXPECT_EQ(aclFloatToFloat16(65519.0f), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(65520.0f), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(0.0f), 0x0000);
  EXPECT_EQ(aclFloatToFloat16(-0.0f), 0x8000);
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3C00);
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.0f, -25)), 0x0000);  // tie -> even (zero)
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.5f, -25)), 0x0001);
}

TEST(Fp16, EncodesLikeTheDoubleReference) {
  std::mt19937 random(12345);
  std::uniform_int_distribution<uint32_t> any_bits;
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = any_bits(random);
    // Concentrate on the half range (exponents 2^-26 .. 2^17) where rounding matters.
    if (i % 2 == 0) bits = (bits & 0x807FFFFF) | ((101u + bits % 44u) << 23);
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    ASSERT_EQ(aclFloatToFloat16(value), ReferenceHalf(value)) << "bits 0x" << std::hex << bits;
  }
}

TEST(Fp16, TiesRoundToEven) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: even mantissa (1.0) wins.
  EXPECT_EQ(aclFloatToFloat16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 lies halfway between mantissas 1 and 2: rounds to 2.
  EXPECT_EQ(aclFloatToFloat16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
}

TEST(Fp16, DecodesEveryHalfLikeTheDoubleFormula) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const double expected = HalfValue(static_cast<uint16_t>(bits));
    ASSERT_EQ(static_cast<double>(aclFloat16ToFloat(static_cast<aclFloat16>(bits))), expected)
        << "bits 0x" << std::hex << bits;
  }
  EXPECT_EQ(aclFloat16ToFloat(0x7C00), 65536.0f);   // +Inf pattern
  EXPECT_EQ(aclFloat16ToFloat(0xFC00), -65536.0f);  // -Inf pattern
  EXPECT_EQ(aclFloat16ToFloat(0x7E00), 98304.0f);   // NaN pattern
}

TEST(Fp16, RoundTripsEveryFiniteHalf) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    if (((bits >> 10) & 0x1F) == 0x1F) continue;  // exponent 31 decodes beyond the range
    ASSERT_EQ(aclFloatToFloat16(aclFloat16ToFloat(static_cast<aclFloat16>(bits))), bits);
  }
}

}  // namespace
