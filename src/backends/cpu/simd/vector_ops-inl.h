// The vector policies of the element math's formulas for Highway vectors: HwyOpsOf (one vector of
// fp32 or fp64 lanes) and WideOps64 (several fp64 vectors side by side), with the element math
// itself (kernels/transcendentals.inc, estimate.inc), which each target compiles under its own
// options; a family's formulas follow in its own per-target header.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>
#include <cstdint>
#include <utility>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_VECTOR_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_VECTOR_OPS_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_VECTOR_OPS_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_VECTOR_OPS_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/math.h"
#include "kernels/rounded_element.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;

// The vector policy for math.h's formulas over fp64 lanes (descriptor DV): each member is the
// lane-wise IEEE operation of the same member of math::ScalarOpsOf.
template <class DV>
struct HwyOpsOf {
  using T = hn::TFromD<DV>;
  using V = hn::Vec<DV>;
  static constexpr bool kFloat = sizeof(T) == 4;
  static constexpr int kMantissaBits = kFloat ? 23 : 52;
  static constexpr int kExponentBias = kFloat ? 127 : 1023;
  static constexpr T kMagic = kFloat ? math::kRoundMagic : static_cast<T>(math::kRoundMagic64);

  static V Set(T c) { return hn::Set(DV(), c); }
  static V Neg(V a) { return hn::Neg(a); }
  static V Abs(V a) { return hn::Abs(a); }
  static V MulAdd(V a, V b, V c) { return hn::MulAdd(a, b, c); }
  static V NegMulAdd(V a, V b, V c) { return hn::NegMulAdd(a, b, c); }
  static V NegMulSub(V a, V b, V c) { return hn::NegMulSub(a, b, c); }
  // x86's minimum gives b where a is NaN, as math::ScalarOpsOf::Min; other targets may give NaN
  // (ExpNeg64 says why that changes no result). The same for the maximum, whose one use
  // (UnweightedNonNegativeLoss64) multiplies a NaN a into the result either way.
  static V Min(V a, V b) { return hn::Min(a, b); }
  static V Max(V a, V b) { return hn::Max(a, b); }
  template <class M>
  static V IfThenElse(M mask, V yes, V no) {
    return hn::IfThenElse(mask, yes, no);
  }
  // 2^floor(-n/16) for rounded = kSixteenthsMagic + n/16 (math::ScalarOpsOf::Pow2NegSixteenths).
  static V Pow2NegSixteenths(V rounded) {
    const hn::RebindToUnsigned<DV> du;
    using TU = hn::TFromD<decltype(du)>;
    const TU magic_bits = BitCast<TU>(kFloat ? static_cast<T>(math::kSixteenthsMagic32)
                                             : static_cast<T>(math::kSixteenthsMagic64));
    const auto biased =
        hn::Set(du, static_cast<TU>(16 * kExponentBias) + magic_bits) - hn::BitCast(du, rounded);
    return hn::BitCast(DV(), hn::ShiftLeft<kMantissaBits>(hn::ShiftRight<4>(biased)));
  }
  // value * 2^floor(k) for k = kSixteenthsMagic - rounded: on AVX-512 one vscalefpd by k (which
  // floors it), elsewhere times Pow2NegSixteenths. Exact either way (the product stays normal),
  // so the same bits.
  static V ScaleByFloor(V value, V k, V rounded) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (hn::MaxLanes(DV()) * sizeof(T) == 64) {
      if constexpr (kFloat) {
        return V{_mm512_scalef_ps(value.raw, k.raw)};
      } else {
        return V{_mm512_scalef_pd(value.raw, k.raw)};
      }
    }
#endif
    (void)k;
    return value * Pow2NegSixteenths(rounded);
  }
  // math::ScalarOpsOf::Significand and Exponent, lane by lane: a positive normal a's m in [1, 2),
  // and its k held as T (the biased exponent field added to kMagic's bits, the constant part
  // subtracted exactly). On AVX-512 one vgetmantpd and one vgetexppd, which give the same bits for
  // every positive normal a (other lanes differ, and the logarithms' callers replace them: a
  // clamp or the reference path).
  static V Significand(V a) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (hn::MaxLanes(DV()) * sizeof(T) == 64 && !kFloat) {
      return V{_mm512_getmant_pd(a.raw, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src)};
    }
#endif
    const hn::RebindToUnsigned<DV> du;
    using TU = hn::TFromD<decltype(du)>;
    constexpr TU kMantissaMask = (TU{1} << kMantissaBits) - 1;
    return hn::BitCast(DV(), hn::Or(hn::And(hn::BitCast(du, a), hn::Set(du, kMantissaMask)),
                                    hn::Set(du, BitCast<TU>(T{1}))));
  }
  static V Exponent(V a) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (hn::MaxLanes(DV()) * sizeof(T) == 64 && !kFloat) {
      return V{_mm512_getexp_pd(a.raw)};
    }
#endif
    const hn::RebindToUnsigned<DV> du;
    using TU = hn::TFromD<decltype(du)>;
    const V biased = hn::BitCast(
        DV(), hn::Set(du, BitCast<TU>(kMagic)) + hn::ShiftRight<kMantissaBits>(hn::BitCast(du, a)));
    return biased - hn::Set(DV(), kMagic + static_cast<T>(kExponentBias));
  }
  // math::ScalarOpsOf::RoundToGrid, lane by lane (fp64 lanes).
  // In fp32 lanes (AVX-512's 16-bit rounding test, Settle) the same for |a| below 2^100 (a
  // larger one gives NaN, which never settles).
  static V RoundToGrid(V a, int precision, int min_exponent) {
    const hn::RebindToUnsigned<DV> du;
    using TU = hn::TFromD<decltype(du)>;
    constexpr TU kExponentMask = (TU{2 * kExponentBias + 1}) << kMantissaBits;
    const auto bits = hn::BitCast(du, a);
    const auto exponent = hn::And(bits, hn::Set(du, kExponentMask));
    const auto floor = hn::Set(du, static_cast<TU>(min_exponent + kExponentBias) << kMantissaBits);
    const auto scale = hn::Set(du, static_cast<TU>(kMantissaBits + 1 - precision) << kMantissaBits);
    const V magic = hn::BitCast(
        DV(), hn::Or(hn::Max(exponent, floor) + scale, hn::Set(du, TU{1} << (kMantissaBits - 1))));
    const auto sign = hn::And(bits, hn::Set(du, TU{1} << (8 * sizeof(T) - 1)));
    return hn::BitCast(DV(), hn::Or(hn::BitCast(du, (a + magic) - magic), sign));
  }
  // table[i mod 16] per lane for rounded = kRoundMagic64 + i. Tables hold 16 entries: 8 lanes
  // permute them in registers (AVX-512: one two-register permute; Highway 1.0 has no such op),
  // narrower vectors gather.
  static V LookupRounded(const T* table, V rounded) {
    const hn::RebindToSigned<DV> di;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // AVX-512's permutes read only the index bits they need (the low 4): no masking.
    if constexpr (hn::MaxLanes(DV()) * sizeof(T) == 64) {
      const auto bits = hn::BitCast(di, rounded);
      if constexpr (kFloat) {
        return V{_mm512_permutexvar_ps(bits.raw, hn::LoadU(DV(), table).raw)};
      } else {
        return V{_mm512_permutex2var_pd(hn::LoadU(DV(), table).raw, bits.raw,
                                        hn::LoadU(DV(), table + 8).raw)};
      }
    }
#endif
    const auto index = hn::BitCast(di, rounded) & hn::Set(di, 15);
    if constexpr (hn::MaxLanes(DV()) == 16) {  // fp32 in 512 bits: the table is one register
      return hn::TableLookupLanes(hn::LoadU(DV(), table), hn::IndicesFromVec(DV(), index));
    }
    if constexpr (hn::MaxLanes(DV()) == 8) {
      const auto in_half = hn::IndicesFromVec(DV(), index & hn::Set(di, 7));
      const auto upper = hn::RebindMask(DV(), hn::TestBit(index, hn::Set(di, 8)));
      return hn::IfThenElse(upper, hn::TableLookupLanes(hn::LoadU(DV(), table + 8), in_half),
                            hn::TableLookupLanes(hn::LoadU(DV(), table), in_half));
    } else {
      return hn::GatherIndex(DV(), table, index);
    }
  }
};

using D64 = hn::Repartition<double, D>;

// kParts fp64 vectors evaluated side by side (the halves of several float vectors), and the
// policy that applies every operation to each: a step of a formula then issues kParts independent
// instructions, which the core overlaps. exp and log are long dependency chains; evaluated one
// vector after another they leave the core waiting (measured on Zen 5: 2 parts +6%, 4 parts
// +30% over 1; tile_bench).
// (User-provided constructors: see Step.)
template <size_t kParts>
struct Wide64 {
  Wide64() {}
  template <class... Parts>
  explicit Wide64(Parts... parts) : part{parts...} {}
  hn::Vec<D64> part[kParts];
};
template <size_t kParts>
struct WideMask64 {
  WideMask64() {}
  template <class... Parts>
  explicit WideMask64(Parts... parts) : part{parts...} {}
  hn::Mask<D64> part[kParts];
};

// Written as pack expansions, not loops: GCC then keeps every part in a register.
template <size_t kParts, class Op, size_t... kIndex>
HWY_INLINE Wide64<kParts> EachPartOf(Op op, std::index_sequence<kIndex...>) {
  return Wide64<kParts>(op(kIndex)...);
}
template <size_t kParts, class Op>
HWY_INLINE Wide64<kParts> EachPart(Op op) {
  return EachPartOf<kParts>(op, std::make_index_sequence<kParts>());
}
template <size_t kParts, class Compare, size_t... kIndex>
HWY_INLINE WideMask64<kParts> CompareEach(Wide64<kParts> a, Wide64<kParts> b, Compare compare,
                                          std::index_sequence<kIndex...>) {
  return WideMask64<kParts>(compare(a.part[kIndex], b.part[kIndex])...);
}
template <size_t kParts, class Compare>
HWY_INLINE WideMask64<kParts> CompareParts(Wide64<kParts> a, Wide64<kParts> b, Compare compare) {
  return CompareEach(a, b, compare, std::make_index_sequence<kParts>());
}
template <size_t kParts>
inline Wide64<kParts> operator+(Wide64<kParts> a, Wide64<kParts> b) {
  return EachPart<kParts>([&](size_t k) { return a.part[k] + b.part[k]; });
}
template <size_t kParts>
inline Wide64<kParts> operator-(Wide64<kParts> a, Wide64<kParts> b) {
  return EachPart<kParts>([&](size_t k) { return a.part[k] - b.part[k]; });
}
template <size_t kParts>
inline Wide64<kParts> operator*(Wide64<kParts> a, Wide64<kParts> b) {
  return EachPart<kParts>([&](size_t k) { return a.part[k] * b.part[k]; });
}
template <size_t kParts>
inline Wide64<kParts> operator/(Wide64<kParts> a, Wide64<kParts> b) {
  return EachPart<kParts>([&](size_t k) { return a.part[k] / b.part[k]; });
}
template <size_t kParts>
inline WideMask64<kParts> operator<(Wide64<kParts> a, Wide64<kParts> b) {
  return CompareParts(a, b, [](auto u, auto v) { return hn::Lt(u, v); });
}
template <size_t kParts>
inline WideMask64<kParts> operator<=(Wide64<kParts> a, Wide64<kParts> b) {
  return CompareParts(a, b, [](auto u, auto v) { return hn::Le(u, v); });
}
template <size_t kParts>
inline WideMask64<kParts> operator==(Wide64<kParts> a, Wide64<kParts> b) {
  return CompareParts(a, b, [](auto u, auto v) { return hn::Eq(u, v); });
}

template <size_t kParts>
struct WideOps64 {
  using V = Wide64<kParts>;
  using Part = HwyOpsOf<D64>;

  static V Set(double c) {
    return EachPart<kParts>([&](size_t) { return Part::Set(c); });
  }
  static V Neg(V a) {
    return EachPart<kParts>([&](size_t k) { return Part::Neg(a.part[k]); });
  }
  static V Abs(V a) {
    return EachPart<kParts>([&](size_t k) { return Part::Abs(a.part[k]); });
  }
  static V MulAdd(V a, V b, V c) {
    return EachPart<kParts>(
        [&](size_t k) { return Part::MulAdd(a.part[k], b.part[k], c.part[k]); });
  }
  static V IfThenElse(WideMask64<kParts> mask, V yes, V no) {
    return EachPart<kParts>(
        [&](size_t k) { return Part::IfThenElse(mask.part[k], yes.part[k], no.part[k]); });
  }
  static V NegMulAdd(V a, V b, V c) {
    return EachPart<kParts>(
        [&](size_t k) { return Part::NegMulAdd(a.part[k], b.part[k], c.part[k]); });
  }
  static V NegMulSub(V a, V b, V c) {
    return EachPart<kParts>(
        [&](size_t k) { return Part::NegMulSub(a.part[k], b.part[k], c.part[k]); });
  }
  static V Min(V a, V b) {
    return EachPart<kParts>([&](size_t k) { return Part::Min(a.part[k], b.part[k]); });
  }
  static V Max(V a, V b) {
    return EachPart<kParts>([&](size_t k) { return Part::Max(a.part[k], b.part[k]); });
  }
  static V ScaleByFloor(V value, V exponent, V rounded) {
    return EachPart<kParts>([&](size_t k) {
      return Part::ScaleByFloor(value.part[k], exponent.part[k], rounded.part[k]);
    });
  }
  static V RoundToGrid(V a, int precision, int min_exponent) {
    return EachPart<kParts>(
        [&](size_t k) { return Part::RoundToGrid(a.part[k], precision, min_exponent); });
  }
  static V Significand(V a) {
    return EachPart<kParts>([&](size_t k) { return Part::Significand(a.part[k]); });
  }
  static V Exponent(V a) {
    return EachPart<kParts>([&](size_t k) { return Part::Exponent(a.part[k]); });
  }
  static V LookupRounded(const double* table, V rounded) {
    return EachPart<kParts>([&](size_t k) { return Part::LookupRounded(table, rounded.part[k]); });
  }
};

// The element math, in the order it was written in: each include its own block, which
// clang-format does not sort. A family's formulas over it (which name its Estimate64 and
// FiniteZero) are instantiated by the family's own per-target header.
#include "kernels/transcendentals.inc"

#include "kernels/estimate.inc"

using V = hn::Vec<D>;

using V64 = hn::Vec<D64>;

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_VECTOR_OPS_INL_H_
