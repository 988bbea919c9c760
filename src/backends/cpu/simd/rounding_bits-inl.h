// The rounding tests on a value's bits alone: whether the value is far enough from every rounding
// boundary of its output type that its error (its reach: each family's error budget derives its
// own) cannot change the result. Re-included once per Highway target (the toggle guard below);
// defines its code inside namespace openaclnn::HWY_NAMESPACE, for targets with a native fused
// multiply-add only.

#include <cstdint>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_ROUNDING_BITS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_ROUNDING_BITS_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_ROUNDING_BITS_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_ROUNDING_BITS_INL_H_
#endif

#include "backends/cpu/simd/lanes-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The ranges of InNormalRange: fp32's normal numbers (limit: infinity); fp16's (2^-14 to 2^16,
// where it overflows); bf16's up to 2^100 (RoundToGrid in fp32 lanes, which serves |r| < 2^100).
inline constexpr uint32_t kFp32LeastNormalBits = 0x00800000u, kFp32InfinityBits = 0x7f800000u;
inline constexpr uint32_t kFp16LeastNormalBits = 0x38800000u, kFp16LimitBits = 0x47800000u;
inline constexpr uint32_t kBf16LimitBits = 0x71800000u;

// The rounding test of a loss value v >= 0 whose bound is a fraction of it, on its bits alone
// (SettleRelative, SettleRelative16): in v's binade [2^e, 2^(e+1)), the rounding boundaries of a
// format of P significant bits are the fp64 values whose low 53 - P mantissa bits are 2^(52 - P)
// (fp32: 29 bits, fp16: 42, bf16: 45), and a bound of f * v is below f * 2^(e+1), f * 2^53 fp64
// ulps of v: its reach. Where v is more than the reach from every such boundary and its rounding
// r to fp32 is within the format's normal range (above its least normal, so v is too, where the
// boundaries below v's binade, subnormal ones included, are as far as those in it), the exact
// result rounds as v does. A handful of integer operations instead of an interval's two ends, two
// conversions and, for 16-bit types, two roundings onto the grid. The reaches are each family's,
// derived in its error budget; its rounding tests check each at every distance around it.
// Lanes of v (fp64 lanes, or fp32 ones: DV) that are more than kReach ulps from every rounding
// boundary of v's binade in a format of kPrecision bits:
// (bits + kReach - boundary) mod 2^(p - kPrecision) > 2 kReach, p v's own precision (53, 24).
template <int kPrecision, uint64_t kReach, class DV = D64>
HWY_INLINE hn::Mask<DV> FarFromBoundaries(hn::Vec<DV> v) {
  const hn::RebindToUnsigned<DV> du;
  using TU = hn::TFromD<decltype(du)>;
  constexpr int kLow = (sizeof(TU) == 8 ? 53 : 24) - kPrecision;
  constexpr TU kBoundary = TU{1} << (kLow - 1), kLowBits = (TU{1} << kLow) - 1;
  const auto shifted = hn::BitCast(du, v) + hn::Set(du, static_cast<TU>(kReach - kBoundary));
  return hn::RebindMask(DV(), hn::Gt(hn::And(shifted, hn::Set(du, kLowBits)),
                                     hn::Set(du, static_cast<TU>(2 * kReach))));
}
// fp16's subnormal grid (spacing 2^-24) is its grid in [2^-14, 2^-13) shifted by a grid point:
// values below 2^-14 are tested as v + 2^-14, whose rounding (below half an ulp of the sum) the
// reaches' margins take.
template <class DV>
HWY_INLINE hn::Vec<DV> OntoFp16NormalGrid(hn::Vec<DV> v) {
  const auto least_normal = hn::Set(DV(), static_cast<hn::TFromD<DV>>(0x1p-14));
  return hn::IfThenElse(hn::Lt(v, least_normal), v + least_normal, v);
}
// Lanes of fp32 r above the fp32 `least` (a least normal) and below `limit`, both positive (NaN
// and negative lanes are not): one unsigned range of the bits.
HWY_INLINE hn::Mask<hn::ScalableTag<float>> InNormalRange(hn::Vec<hn::ScalableTag<float>> r,
                                                          uint32_t least_bits,
                                                          uint32_t limit_bits) {
  const hn::RebindToUnsigned<D> du;
  return hn::RebindMask(D(), hn::Lt(hn::BitCast(du, r) - hn::Set(du, least_bits + 1),
                                    hn::Set(du, limit_bits - (least_bits + 1))));
}

// The bit test of a 16-bit loss value (`far`: FarFrom16Boundaries, InNormalRange) lane by lane, and
// where it settles *rounded its rounding onto the type's grid, through fp32 (a value that far from
// the grid's boundaries cannot cross one by rounding to fp32 first). kSigned: values of either
// sign, tested by their magnitudes (the grid is symmetric; RoundToGrid keeps the sign), whose bound
// is a fraction of the magnitude: a zero, exact then, is settled in bf16 too.
template <bool kSigned = false, class Far>
HWY_INLINE bool SettledOnGrid16(V64 lower, V64 upper, FloatType type, Far far,
                                hn::Vec<hn::ScalableTag<float>>* rounded) {
  const hn::Half<D> dh;
  const auto r = hn::Combine(D(), hn::DemoteTo(dh, upper), hn::DemoteTo(dh, lower));
  const auto magnitude = kSigned ? hn::Abs(r) : r;
  const bool fp16 = type == FloatType::kFloat16;
  // fp16: any r >= +0 below the limit (FarFrom16Boundaries takes fp16's subnormal grid too).
  const hn::RebindToUnsigned<D> du;
  auto in_range =
      fp16 ? hn::RebindMask(D(), hn::Lt(hn::BitCast(du, magnitude), hn::Set(du, kFp16LimitBits)))
           : InNormalRange(magnitude, kFp32LeastNormalBits, kBf16LimitBits);
  if constexpr (kSigned) in_range = hn::Or(in_range, hn::Eq(magnitude, hn::Zero(D())));
  const Grid grid = GridOf(type);
  *rounded = HwyOpsOf<D>::RoundToGrid(r, grid.precision, grid.min_exponent);
  if constexpr (kSigned) {
    lower = hn::Abs(lower);
    upper = hn::Abs(upper);
  }
  return hn::AllTrue(D64(), hn::And(far(lower, fp16), far(upper, fp16))) &&
         hn::AllTrue(D(), in_range);
}
// Lanes of fp64 v farther than kReach fp64 ulps from every rounding boundary of fp16 (`fp16`) or
// bf16: FarFromBoundaries, fp16 on its subnormal grid too (OntoFp16NormalGrid), so tiny losses
// stay on the fast path.
template <uint64_t kReach>
HWY_INLINE hn::Mask<D64> FarFrom16Boundaries(V64 v, bool fp16) {
  return fp16 ? FarFromBoundaries<11, kReach>(OntoFp16NormalGrid<D64>(v))
              : FarFromBoundaries<8, kReach>(v);
}

// The bit test in fp32 lanes, of an fp32 loss value v > 0 within kReach fp32 ulps of the exact
// one, as FarFrom16Boundaries.
template <uint64_t kReach>
HWY_INLINE hn::Mask<D> FarFrom16Boundaries32(V v, bool fp16) {
  return fp16 ? FarFromBoundaries<11, kReach, D>(OntoFp16NormalGrid<D>(v))
              : FarFromBoundaries<8, kReach, D>(v);
}
// FarFromBoundaries in fp32 lanes of |v| (bits without the sign) with a reach per lane, `reach`
// (non-negative integers below 2^21: a reach of half the grid spacing or more is never far).
template <int kPrecision>
HWY_INLINE hn::Mask<D> FarFromBoundariesBy(hn::Vec<hn::RebindToUnsigned<D>> magnitude_bits,
                                           hn::Vec<hn::RebindToUnsigned<D>> reach) {
  const hn::RebindToUnsigned<D> du;
  constexpr int kLow = 24 - kPrecision;
  constexpr uint32_t kBoundary = uint32_t{1} << (kLow - 1), kLowBits = (uint32_t{1} << kLow) - 1;
  const auto shifted = magnitude_bits + reach - hn::Set(du, kBoundary);
  return hn::RebindMask(D(), hn::Gt(hn::And(shifted, hn::Set(du, kLowBits)), reach + reach));
}
// The cap of a per-lane reach (ReachBits), in fp32 ulps: a reach of half a 16-bit grid spacing
// (at most 2^15 fp32 ulps) or more is never far, so capping loses nothing.
inline constexpr uint32_t kReachCap32 = uint32_t{1} << 20;
// The reach as an integer from its float estimate `biased` = 2^23 + reach: capped at 2^23 +
// kReachCap32, its low mantissa bits hold it rounded (the rounding's half ulp is in each reach's
// floor).
HWY_INLINE hn::Vec<hn::RebindToUnsigned<D>> ReachBits(V biased) {
  const hn::RebindToUnsigned<D> du;
  const V capped = hn::Min(biased, hn::Set(D(), 0x1p23f + static_cast<float>(kReachCap32)));
  return hn::BitCast(du, capped) - hn::BitCast(du, hn::Set(D(), 0x1p23f));
}
// Lanes of fp32 v whose rounding onto the 16-bit grid the bit test with a reach per lane settles
// (FarFromBoundariesBy): fp16, any |v| > 0 below the limit, its subnormal grid shifted (as
// FarFrom16Boundaries); bf16, fp32's normal range up to 2^100.
template <bool kFp16>
HWY_INLINE hn::Mask<D> SettledOnGridBy(V v, hn::Vec<hn::RebindToUnsigned<D>> reach) {
  const hn::RebindToUnsigned<D> du;
  const V magnitude = hn::Abs(v);
  if constexpr (kFp16) {
    return hn::And(
        FarFromBoundariesBy<11>(hn::BitCast(du, OntoFp16NormalGrid<D>(magnitude)), reach),
        InNormalRange(magnitude, 0, kFp16LimitBits));
  } else {
    return hn::And(FarFromBoundariesBy<8>(hn::BitCast(du, magnitude), reach),
                   InNormalRange(magnitude, kFp32LeastNormalBits, kBf16LimitBits));
  }
}

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_ROUNDING_BITS_INL_H_
