// The arithmetic policy O of the element math's templates (math.h) for one element at a time.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/dtype.h"
#include "kernels/math_tables.h"

namespace openaclnn::math {

// The policy for one element at a time (host loops, tails of SIMD loops, CUDA threads), in fp32
// (ScalarOps) or fp64 (ScalarOps64, for the exact-to-fp32 formulas).
template <class T>
struct ScalarOpsOf {
  using V = T;
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static constexpr int kMantissaBits = sizeof(T) == 4 ? 23 : 52;
  static constexpr int64_t kExponentBias = sizeof(T) == 4 ? 127 : 1023;

  OPENACLNN_HOST_DEVICE static V Set(T c) { return c; }
  OPENACLNN_HOST_DEVICE static V Neg(V a) { return -a; }
  OPENACLNN_HOST_DEVICE static V Abs(V a) { return std::fabs(a); }
  OPENACLNN_HOST_DEVICE static V MulAdd(V a, V b, V c) { return std::fma(a, b, c); }
  OPENACLNN_HOST_DEVICE static V IfThenElse(bool mask, V yes, V no) { return mask ? yes : no; }
  OPENACLNN_HOST_DEVICE static V NegMulAdd(V a, V b, V c) { return std::fma(-a, b, c); }
  OPENACLNN_HOST_DEVICE static V NegMulSub(V a, V b, V c) { return std::fma(-a, b, -c); }
  // b where a is NaN (as x86's minimum and maximum).
  OPENACLNN_HOST_DEVICE static V Min(V a, V b) { return a < b ? a : b; }
  OPENACLNN_HOST_DEVICE static V Max(V a, V b) { return a > b ? a : b; }
  // The nearest fp32 of a, held as T.
  OPENACLNN_HOST_DEVICE static V RoundTo32(V a) { return static_cast<T>(static_cast<float>(a)); }
  // 2^(i + k) for rounded = kRoundMagic + i (the integer i in its low mantissa bits) and i + k in
  // the normal exponent range. Integer arithmetic on the bits: no float-to-int conversion.
  OPENACLNN_HOST_DEVICE static V Pow2Rounded(V rounded, int k) {
    const Bits magic_bits =
        BitCast<Bits>(static_cast<T>(sizeof(T) == 4 ? kRoundMagic : kRoundMagic64));
    const Bits offset = static_cast<Bits>(kExponentBias + k) - magic_bits;
    return BitCast<T>((BitCast<Bits>(rounded) + offset) << kMantissaBits);
  }
  // 2^floor(-n/16) for rounded = kSixteenthsMagic64 + n/16, 0 <= n < 16368 (exp's reduction
  // keeps n <= 16160), or in fp32 kSixteenthsMagic32 + n/16, n < 2032 (a <= kExpArgMax32 keeps
  // n <= 1847): 16 * bias - n is positive, so a logical shift divides it.
  OPENACLNN_HOST_DEVICE static V Pow2NegSixteenths(V rounded) {
    const Bits magic_bits =
        BitCast<Bits>(static_cast<T>(sizeof(T) == 4 ? kSixteenthsMagic32 : kSixteenthsMagic64));
    const Bits biased =
        (static_cast<Bits>(16 * kExponentBias) + magic_bits) - BitCast<Bits>(rounded);
    return BitCast<T>((biased >> 4) << kMantissaBits);
  }
  // value * 2^floor(k) for k = kSixteenthsMagic - rounded (-n/16; Pow2NegSixteenths): exact
  // while the product stays normal.
  OPENACLNN_HOST_DEVICE static V ScaleByFloor(V value, V k, V rounded) {
    (void)k;
    return value * Pow2NegSixteenths(rounded);
  }
  // a rounded to nearest, ties to even, on the grid of a binary format of `precision`
  // significant bits whose normal range starts at 2^min_exponent (fp16: 11, -14; bf16: 8, -126),
  // subnormal spacing below it, held as T (fp64 only; |a| below 2^900): (a + M) - M with
  // M = 1.5 * 2^(e + 53 - precision), e the exponent of a floored at min_exponent, so M's ulp
  // is the grid's spacing at a; a's sign is kept (a tiny negative a gives -0, as IEEE's rounding).
  // An integer on its own is the exponent field: no conversion, no division.
  OPENACLNN_HOST_DEVICE static V RoundToGrid(V a, int precision, int min_exponent) {
    constexpr Bits kExponentMask = Bits{0x7ff} << kMantissaBits;
    constexpr Bits kSign = Bits{1} << 63;
    const Bits exponent = BitCast<Bits>(a) & kExponentMask;
    const Bits floor = static_cast<Bits>(min_exponent + kExponentBias) << kMantissaBits;
    const Bits scale = static_cast<Bits>(kMantissaBits + 1 - precision) << kMantissaBits;
    const T magic = BitCast<T>(((exponent > floor ? exponent : floor) + scale) |
                               (Bits{1} << (kMantissaBits - 1)));
    return BitCast<T>(BitCast<Bits>((a + magic) - magic) | (BitCast<Bits>(a) & kSign));
  }
  // For a positive normal a = m * 2^k with m in [1, 2) (the logarithms' reduction, Log64): m, a's
  // significand under the exponent field of 1.
  OPENACLNN_HOST_DEVICE static V Significand(V a) {
    constexpr Bits kMantissaMask = (Bits{1} << kMantissaBits) - 1;
    return BitCast<T>((BitCast<Bits>(a) & kMantissaMask) | BitCast<Bits>(T{1}));
  }
  // And k, held as T: the biased exponent field added to the bits of kRoundMagic (whose ulp is 1)
  // is kRoundMagic + k + bias, and subtracting that sum's constant part is exact. No conversion.
  OPENACLNN_HOST_DEVICE static V Exponent(V a) {
    const T magic = sizeof(T) == 4 ? kRoundMagic : static_cast<T>(kRoundMagic64);
    return BitCast<T>(BitCast<Bits>(magic) + (BitCast<Bits>(a) >> kMantissaBits)) -
           (magic + static_cast<T>(kExponentBias));
  }
  // table[i mod 16] for rounded = kRoundMagic + i (kRoundMagic's low 4 bits are 0; i may be
  // negative).
  OPENACLNN_HOST_DEVICE static V LookupRounded(const T* table, V rounded) {
    return table[BitCast<Bits>(rounded) & 15];
  }
};

using ScalarOps = ScalarOpsOf<float>;
using ScalarOps64 = ScalarOpsOf<double>;

}  // namespace openaclnn::math
