// The body of the SIMD EvaluateTile for one Highway target. Included by tile_math_simd.cc inside
// namespace openaclnn::HWY_NAMESPACE once per target (hence no include guard), with `hn` naming
// hwy::HWY_NAMESPACE.
// NOLINT(build/header_guard)

using D = hn::ScalableTag<float>;

// The vector policy for the element math's formulas (kernels/math.h, bce_math.h) over fp64 lanes
// (descriptor DV): each member is the lane-wise IEEE operation of the same member of
// math::ScalarOpsOf.
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
  return {{compare(a.part[kIndex], b.part[kIndex])...}};
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
inline WideMask64<kParts> operator<(Wide64<kParts> a, Wide64<kParts> b) {
  return CompareParts(a, b, [](auto u, auto v) { return hn::Lt(u, v); });
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
  static V LookupRounded(const double* table, V rounded) {
    return EachPart<kParts>([&](size_t k) { return Part::LookupRounded(table, rounded.part[k]); });
  }
};

// The element math, then the BCE formulas over it (which name its Estimate64 and FiniteZero), in
// the order they were written in: each include its own block, which clang-format does not sort.
#include "kernels/transcendentals.inc"

#include "kernels/estimate.inc"

#include "kernels/bce_formulas.inc"
// Declared after the formulas, whose own local V would otherwise shadow it.
using V = hn::Vec<D>;

using V64 = hn::Vec<D64>;

// The fp64 lanes of each half of a float vector, and back, rounded once.
HWY_INLINE V64 Lower64(V v) { return hn::PromoteTo(D64(), hn::LowerHalf(hn::Half<D>(), v)); }
HWY_INLINE V64 Upper64(V v) { return hn::PromoteTo(D64(), hn::UpperHalf(hn::Half<D>(), v)); }
V Narrow(V64 lower, V64 upper) {
  const hn::Half<D> dh;
  return hn::Combine(D(), hn::DemoteTo(dh, upper), hn::DemoteTo(dh, lower));
}

// kStep of T (float vectors, or Results) as a plain array in a struct of this target's namespace:
// std::array's constructors are compiled without the target's options, which NEON's vectors
// refuse (GCC: "inlining failed ... target specific option mismatch").
template <class T, size_t kStep>
struct Step {
  Step() {}  // user-provided, so compiled with this target's options (an implicit one is not)
  T item[kStep];
  T& operator[](size_t j) { return item[j]; }
  const T& operator[](size_t j) const { return item[j]; }
};
template <size_t kStep>
using Vectors = Step<V, kStep>;

// kStep float vectors as the 2*kStep fp64 parts of a Wide64 (vector j: parts 2j, 2j+1), and back.
template <size_t kStep, size_t... kIndex>
HWY_INLINE Wide64<2 * kStep> WidenEach(const Vectors<kStep>& v, std::index_sequence<kIndex...>) {
  return Wide64<2 * kStep>((kIndex % 2 == 0 ? Lower64(v[kIndex / 2]) : Upper64(v[kIndex / 2]))...);
}
template <size_t kStep>
HWY_INLINE Wide64<2 * kStep> Widen(const Vectors<kStep>& v) {
  return WidenEach<kStep>(v, std::make_index_sequence<2 * kStep>());
}
template <size_t kParts>
V Narrow(const Wide64<kParts>& v, size_t j) {
  return Narrow(v.part[2 * j], v.part[2 * j + 1]);
}
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// Vector j of `v` as fp32, rounded in the direction kMode (an immediate of the instruction).
template <int kMode, size_t kParts>
V NarrowRounded(const Wide64<kParts>& v, size_t j) {
  using Half = hn::Vec<hn::Half<D>>;
  return hn::Combine(D(),
                     Half{_mm512_cvt_roundpd_ps(v.part[2 * j + 1].raw, kMode | _MM_FROUND_NO_EXC)},
                     Half{_mm512_cvt_roundpd_ps(v.part[2 * j].raw, kMode | _MM_FROUND_NO_EXC)});
}
#endif
// Vector j of an interval [low, high] rounded onto a 16-bit grid, as fp32, where this target can
// do it in fp32 lanes (false elsewhere, where Settle rounds onto the grid in fp64): AVX-512 rounds
// the ends outward to fp32 (directed conversions), and the fp32 interval it grids covers the
// exact one, with half the work of the grid in fp64.
template <size_t kParts>
bool GridIn32(const Wide64<kParts>& low, const Wide64<kParts>& high, size_t j, const Grid& grid,
              V* lower, V* upper) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  *lower = HwyOpsOf<D>::RoundToGrid(NarrowRounded<_MM_FROUND_TO_NEG_INF>(low, j), grid.precision,
                                    grid.min_exponent);
  *upper = HwyOpsOf<D>::RoundToGrid(NarrowRounded<_MM_FROUND_TO_POS_INF>(high, j), grid.precision,
                                    grid.min_exponent);
  return true;
#else
  (void)low, (void)high, (void)j, (void)grid, (void)lower, (void)upper;
  return false;
#endif
}
constexpr bool kGridIn32 = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;

// The rounding test of a loss value v >= 0 whose bound is a fraction of it, on its bits alone
// (SettleRelative, SettleRelative16): in v's binade [2^e, 2^(e+1)), the rounding boundaries of a
// format of P significant bits are the fp64 values whose low 53 - P mantissa bits are 2^(52 - P)
// (fp32: 29 bits, fp16: 42, bf16: 45), and a bound of f * v is below f * 2^(e+1), f * 2^53 fp64
// ulps of v: its reach. Where v is more than the reach from every such boundary and its rounding
// r to fp32 is within the format's normal range (above its least normal, so v is too, where the
// boundaries below v's binade, subnormal ones included, are as far as those in it), the exact
// result rounds as v does. A handful of integer operations instead of an interval's two ends, two
// conversions and, for 16-bit types, two roundings onto the grid. rounding_test.cc
// (TheLossBitTestSettlesOnlyWhatTheBoundDecides) checks each reach at every distance around it.
// The reaches, in fp64 ulps of the value: kEstimateError64 (2^-43) and the 16-bit losses'
// kLossError32 (2^-21 + 2^-43).
inline constexpr uint64_t kLossReach = uint64_t{1} << 10;
inline constexpr uint64_t kLoss32Reach = (uint64_t{1} << 32) + (uint64_t{1} << 10);
static_assert(math::kEstimateError64 == 0x1p-43 && math::kLossError32 == 0x1p-21 + 0x1p-43,
              "the reaches are 2^53 times the loss's relative bounds");
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
// The ranges: fp32's normal numbers (limit: infinity); fp16's (2^-14 to 2^16, where it
// overflows); bf16's up to 2^100 (RoundToGrid in fp32 lanes, which serves |r| < 2^100).
inline constexpr uint32_t kFp32LeastNormalBits = 0x00800000u, kFp32InfinityBits = 0x7f800000u;
inline constexpr uint32_t kFp16LeastNormalBits = 0x38800000u, kFp16LimitBits = 0x47800000u;
inline constexpr uint32_t kBf16LimitBits = 0x71800000u;

// The bit test of a 16-bit loss value (FarFromBoundaries with kLoss32Reach, InNormalRange) lane
// by lane, and where it settles *rounded its rounding onto the type's grid, through fp32 (a value
// that far from the grid's boundaries cannot cross one by rounding to fp32 first).
template <class Far>
HWY_INLINE bool SettledOnGrid16(V64 lower, V64 upper, FloatType type, Far far,
                                hn::Vec<hn::ScalableTag<float>>* rounded) {
  const hn::Half<D> dh;
  const auto r = hn::Combine(D(), hn::DemoteTo(dh, upper), hn::DemoteTo(dh, lower));
  const bool fp16 = type == FloatType::kFloat16;
  // fp16: any r >= +0 below the limit (FarFrom16Boundaries takes fp16's subnormal grid too).
  const hn::RebindToUnsigned<D> du;
  const auto in_range =
      fp16 ? hn::RebindMask(D(), hn::Lt(hn::BitCast(du, r), hn::Set(du, kFp16LimitBits)))
           : InNormalRange(r, kFp32LeastNormalBits, kBf16LimitBits);
  const Grid grid = GridOf(type);
  *rounded = HwyOpsOf<D>::RoundToGrid(r, grid.precision, grid.min_exponent);
  return hn::AllTrue(D64(), hn::And(far(lower, fp16), far(upper, fp16))) &&
         hn::AllTrue(D(), in_range);
}
// fp16 on its subnormal grid too (OntoFp16NormalGrid), so tiny losses (a large |x| on its
// label's side) stay on the fast path.
HWY_INLINE hn::Mask<D64> FarFrom16Boundaries(V64 v, bool fp16) {
  return fp16 ? FarFromBoundaries<11, kLoss32Reach>(OntoFp16NormalGrid<D64>(v))
              : FarFromBoundaries<8, kLoss32Reach>(v);
}

// The bit test in fp32 lanes, of an fp32 loss value v > 0 within kReach fp32 ulps of the exact
// one, as FarFrom16Boundaries. The reaches: without weights (FastLoss16Of) the fp32 log
// term's kLog1pExpError32 (2^-21) and two roundings of 2^-24, below 2^-20.6 of v, 10 ulps; 12 with
// the margin. With weights (FastWeightedLoss16Of) four roundings instead of two, and 2^-41 for
// subnormal intermediates: below 1.5 * 2^-21 + 2^-40 of v, 12 ulps; 14 with the margin (each: and
// half an ulp for fp16's subnormal shift).
inline constexpr uint64_t kLoss32Reach32 = 12, kWeightedLoss32Reach32 = 14;
static_assert(math::kWeightedLoss32Error * 0x1p24 + 0.5 < kWeightedLoss32Reach32 - 1);
template <uint64_t kReach>
HWY_INLINE hn::Mask<D> FarFrom16Boundaries32(V v, bool fp16) {
  return fp16 ? FarFromBoundaries<11, kReach, D>(OntoFp16NormalGrid<D>(v))
              : FarFromBoundaries<8, kReach, D>(v);
}

// The 16-bit self gradient in fp32 lanes without weights (FastGradSelf16Of) is (c - sign*m) * g,
// m = e/(1 + e) = sigmoid(-|x|) within math::kSigmoidComplementError32 of itself, c = 1 - t or
// -t: the result is within that error of m (m/|d| of it, d the difference) plus two roundings
// (the fused difference and the product), 2 fp32 ulps. Its reach in fp32 ulps is then m/|d| * 2^24
// * 1.5 * 2^-22 = 6 m/|d|, taken as 7 m/|d| (the approximate reciprocal of |d|, within 2^-8 on
// every target, and margin), plus 6 (the two roundings; 1 - t, exact for every fp16 t and every
// bf16 t in [2^-17, 2^24], else within 2^-24 of a |d| >= 1/2; fp16's subnormal shift; the reach's
// rounding to an integer), plus 2 where the scale is not a power of two (its rounding to fp32,
// and that of g*scale, which is a normal fp32 wherever the test settles).
inline constexpr float kGradSelf32ReachPerRatio = 7.0f, kGradSelf32ReachFloor = 6.0f,
                       kGradSelf32ScaleReach = 2.0f;
static_assert(math::kSigmoidComplementError32 * 0x1p24 * 1.01 < kGradSelf32ReachPerRatio,
              "the reach per m/|d| covers the fp32 sigmoid's error");
// With weights (FastGradSelf16Of) it is (c - sign*l*m) * g*w*scale, l = (1 - t) + p*t, c = 1 - t
// or -p*t, each of them within three roundings for fp32 t and p: l*e*r is within the sigmoid's
// error and four roundings of l*m, c within one of itself (|c| <= l*m + |d|), so d is within
// (6 + 5) * 2^-24 of l*m plus two roundings of itself: a reach of 11 l*m/|d|, taken as 12 (the
// approximate reciprocal; |d| within 2^-4 of the exact one wherever the reach is below the cap),
// plus the same floor (g*w rounded in place of g).
inline constexpr float kWeightedGradSelf32ReachPerRatio = 12.0f;
static_assert((math::kSigmoidComplementError32 + 5 * 0x1p-24) * 0x1p24 * (1 + 0x1p-8) /
                      (1 - 0x1p-4) <
                  kWeightedGradSelf32ReachPerRatio,
              "the reach per l*m/|d| covers the fp32 sigmoid's error and the weights' roundings");
// The 16-bit target gradient with weights in fp32 lanes (FastGradTarget16Of) is
// g*w*scale * ((p - 1)*L + K*|x|), K = p for x < 0 and -1 otherwise, L the fp32 log term
// within kLog1pExpError32 (2^-21): the inner sum is within 2^-21 + 2^-24 (p - 1 rounded) of its
// terms |p - 1|*L + |K*x| (K*|x| within 2^-24 of itself) plus its own rounding. Its reach in
// fp32 ulps is then (8 + 1) * terms/|inner|, taken as 10 (the approximate reciprocal of |inner|,
// the fp32 terms, and |inner| within 2^-4 of the exact one wherever the reach is below the cap),
// plus kGradSelf32ReachFloor (the inner sum's rounding, g*w's, the product's; fp16's subnormal
// shift; the reach's rounding) and kGradSelf32ScaleReach where the scale is not a power of two.
inline constexpr float kGradTarget32ReachPerRatio = 10.0f;
static_assert(9.0 * (1 + 0x1p-8) * (1 + 0x1p-22) / (1 - 0x1p-4) < kGradTarget32ReachPerRatio,
              "the reach per terms/|inner| covers the fp32 log term's error");
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

// The reach as an integer from its float estimate `biased` = 2^23 + reach: capped at 2^23 +
// kReachCap32, its low mantissa bits hold it rounded (the rounding's half ulp is in each reach's
// floor). A reach of half a 16-bit grid spacing or more is never far: capping loses nothing.
inline constexpr uint32_t kReachCap32 = uint32_t{1} << 20;
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

// One input operand as the evaluation loop reads it: contiguous fp32 (StageInputs puts every
// other operand in that form first), so a load is one plain vector load, and the loop has no
// branch on types or broadcasts that would cut it into pieces the compiler schedules apart.
struct Source {
  static constexpr bool kNarrow = false;
  const float* data = nullptr;

  V Load(int64_t i) const { return hn::LoadU(D(), data + i); }
  // The `remaining` (< lanes) elements from i, the other lanes 0.
  V LoadPartial(int64_t i, int64_t remaining) const {
    HWY_ALIGN float values[hn::MaxLanes(D())] = {};
    for (int64_t j = 0; j < remaining; ++j) values[j] = data[i + j];
    return hn::Load(D(), values);
  }
  float Element(int64_t k) const { return data[k]; }
};

// The float vector at element i of contiguous values of kType, widened (exactly).
template <FloatType kType>
V LoadAs(const void* data, int64_t i) {
  if constexpr (kType == FloatType::kFloat32) {
    return hn::LoadU(D(), static_cast<const float*>(data) + i);
  } else if constexpr (kType == FloatType::kFloat16) {
    return hn::PromoteTo(D(), hn::LoadU(hn::Rebind<hwy::float16_t, D>(),
                                        static_cast<const hwy::float16_t*>(data) + i));
  } else {
    const hn::RebindToUnsigned<D> du32;
    const auto bits = hn::PromoteTo(
        du32, hn::LoadU(hn::Rebind<uint16_t, D>(), static_cast<const uint16_t*>(data) + i));
    return hn::BitCast(D(), hn::ShiftLeft<16>(bits));
  }
}
// The same of fp16 or bf16 values, the type known at run time.
V LoadWidened(const void* data, FloatType type, int64_t i) {
  return type == FloatType::kFloat16 ? LoadAs<FloatType::kFloat16>(data, i)
                                     : LoadAs<FloatType::kBFloat16>(data, i);
}

// The one in-memory type of every operand a kFast32 evaluator reads and of the outputs it
// stores, where they share one (RunTileWeighted: UniformOf); kAny: each its own, read and stored
// with a branch on it per vector (in the fp16 self gradient 13% of its time).
enum class Uniform { kAny, kFloat32, kFloat16, kBFloat16 };
constexpr FloatType TypeOf(Uniform uniform) {
  return uniform == Uniform::kFloat16    ? FloatType::kFloat16
         : uniform == Uniform::kBFloat16 ? FloatType::kBFloat16
                                         : FloatType::kFloat32;
}

// A Source of any float type, widened as it is loaded: the operands of the unweighted 16-bit
// evaluators (kFast32 without weights), whose 16-bit inputs staged in fp32 first cost a sixth of
// their time (three 16 KiB buffers written, which with the inputs do not fit L1). The type is the
// same for every load of a tile: its branch is always predicted.
template <Uniform kUniform>
struct NarrowSource {
  static constexpr bool kNarrow = true;
  const void* data = nullptr;
  FloatType type = FloatType::kFloat32;

  V Load(int64_t i) const {
    if constexpr (kUniform != Uniform::kAny) {
      return LoadAs<TypeOf(kUniform)>(data, i);
    } else {
      if (type == FloatType::kFloat32) return LoadAs<FloatType::kFloat32>(data, i);
      return LoadWidened(data, type, i);
    }
  }
  V LoadPartial(int64_t i, int64_t remaining) const {
    HWY_ALIGN float values[hn::MaxLanes(D())] = {};
    for (int64_t j = 0; j < remaining; ++j) values[j] = Element(i + j);
    return hn::Load(D(), values);
  }
  float Element(int64_t k) const { return cpu::LoadAs32(data, type, k); }
};

// `count` elements of `operand` as fp32 in `staged`: fp16/bf16 widened (in registers, a vector at
// a time), a splat broadcast, an absent operand read as 1 (weight, pos_weight).
void StageOperand(const TileOperand& operand, int64_t count, float* staged) {
  constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(D()));
  const bool one_value = operand.data == nullptr || operand.splat;
  if (one_value) {
    const V value = hn::Set(
        D(), operand.data == nullptr ? 1.0f : cpu::LoadAs32(operand.data, operand.StoredAs(), 0));
    for (int64_t i = 0; i < count; i += kLanes) hn::Store(value, D(), staged + i);
    return;
  }
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    hn::Store(LoadWidened(operand.data, operand.StoredAs(), i), D(), staged + i);
  }
  for (; i < count; ++i) staged[i] = cpu::LoadAs32(operand.data, operand.StoredAs(), i);
}

// The operands a kind reads, each as a contiguous fp32 Source: in place where it is one, else
// staged (StageOperand). Weight and pos_weight are not read when both are absent (`unweighted`).
// A NarrowSource reads every contiguous operand in place, whatever its type.
// Whether `kind` reads input operand `which`.
constexpr bool Reads(LossKind kind, bool fused, bool unweighted, int which) {
  return !(which == kTarget && kind == LossKind::kGradTarget) &&
         !(which == kGradOutput && kind == LossKind::kLoss && !fused) &&
         !((which == kWeight || which == kPosWeight) && unweighted);
}

template <class SourceT>
std::array<SourceT, kOut> StageInputs(LossKind kind, bool fused, bool unweighted,
                                      const TileInputs& in, int64_t count, TileStaging& staging) {
  constexpr bool kNarrow = SourceT::kNarrow;
  std::array<SourceT, kOut> sources;
  for (int which = kSelf; which < kOut; ++which) {
    if (!Reads(kind, fused, unweighted, which)) continue;
    const TileOperand& operand = in.operand[which];
    const bool contiguous = operand.data != nullptr && !operand.splat;
    if (contiguous && operand.StoredAs() == FloatType::kFloat32) {
      sources[which].data = static_cast<const float*>(operand.data);
      continue;
    }
    if constexpr (kNarrow) {
      if (contiguous) {
        sources[which] = {operand.data, operand.StoredAs()};
        continue;
      }
    }
    StageOperand(operand, count, staging.operand[which]);
    sources[which].data = staging.operand[which];
  }
  return sources;
}

// fp32 -> bf16 bits, rounded to nearest even; NaN stays a quiet NaN (as FloatToBFloat16).
hn::Vec<hn::Rebind<uint16_t, D>> ToBFloat16(V v) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(du, v);
  const auto high = hn::ShiftRight<16>(bits);
  const auto rounded = hn::ShiftRight<16>(bits + hn::Set(du, 0x7fffu) + (high & hn::Set(du, 1u)));
  const auto quiet_nan = high | hn::Set(du, 0x40u);
  const auto result = hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), quiet_nan, rounded);
  return hn::DemoteTo(hn::Rebind<uint16_t, D>(), hn::BitCast(di, result));
}

template <FloatType kType>
void StoreAs(void* data, int64_t i, V v) {
  if constexpr (kType == FloatType::kFloat16) {
    const hn::Rebind<hwy::float16_t, D> dh;
    hn::StoreU(hn::DemoteTo(dh, v), dh, static_cast<hwy::float16_t*>(data) + i);
  } else if constexpr (kType == FloatType::kBFloat16) {
    const hn::Rebind<uint16_t, D> du16;
    hn::StoreU(ToBFloat16(v), du16, static_cast<uint16_t*>(data) + i);
  } else {
    hn::StoreU(v, D(), static_cast<float*>(data) + i);
  }
}
// The vector's elements to `output` at i, in its type (kUniform: that type, known at compile
// time).
template <Uniform kUniform = Uniform::kAny>
void Store(const TileOutput& output, int64_t i, V v) {
  if constexpr (kUniform != Uniform::kAny) {
    StoreAs<TypeOf(kUniform)>(output.data, i, v);
  } else {
    switch (output.StoredAs()) {
      case FloatType::kFloat16:
        return StoreAs<FloatType::kFloat16>(output.data, i, v);
      case FloatType::kBFloat16:
        return StoreAs<FloatType::kBFloat16>(output.data, i, v);
      default:
        return StoreAs<FloatType::kFloat32>(output.data, i, v);
    }
  }
}

// A step's results: `value` and `gradient` (the fused pass's self gradient) as float vectors
// holding each element's correctly rounded result in its output type (fp16/bf16 results are
// exactly such values, or past the type's range, which Store makes +-inf); `sum` and `bound` as
// fp64 parts (vector j: parts 2j, 2j+1), what a mean or sum adds (the loss).
// (User-provided constructor: see Step.)
template <size_t kStep>
struct StepResults {
  StepResults() {}
  Vectors<kStep> value, gradient;
  Wide64<2 * kStep> sum, bound;
};

// The operands of kStep consecutive float vectors, as float vectors and as the fp64 parts the
// formulas take (vector j: parts 2j, 2j+1).
template <size_t kStep, bool kWide = true>
struct Operands {
  Operands() {}
  Vectors<kStep> x, t, w, p, g;
  Wide64<2 * kStep> x64, t64, w64, p64, g64;
};
// Without the fp64 parts, for evaluators that never read them (Evaluator::kReadsFp64).
template <size_t kStep>
struct Operands<kStep, false> {
  Operands() {}
  Vectors<kStep> x, t, w, p, g;
};

// What a loss kind's evaluation writes, and in which types.
struct Targets {
  bool store_value;  // the output is stored (else the loss is only summed)
  bool sum;          // mean/sum: the loss is summed
  FloatType value_type, gradient_type;
};

// Whether `scale` is +-2^k, |k| <= 64: a product of two fp32 values times it is then exact in
// fp64 (neither overflow nor underflow can reach it), and 2^k itself an fp32.
inline bool IsPowerOfTwo(double scale) {
  const uint64_t bits = BitCast<uint64_t>(scale);
  const int64_t exponent = static_cast<int64_t>((bits >> 52) & 0x7ff) - 1023;
  return (bits & ((uint64_t{1} << 52) - 1)) == 0 && exponent >= -64 && exponent <= 64;
}

// Whether |scale| is in [2^-64, 2^64] (its fp32 rounding then a normal number).
inline bool InScaleRange(double scale) {
  return std::fabs(scale) >= 0x1p-64 && std::fabs(scale) <= 0x1p64;
}

// A loss kind's evaluation of kStep float vectors at once: the formulas on their fp64 halves side
// by side, each result settled in its output type where its estimate allows; every other lane
// (rarely any: near a rounding boundary, or an input that is not finite) goes out of line to the
// one scalar element function, BceElement. kFused (with kLoss): the self gradient too, from the
// same exp(-|x|) and split of 1 + exp(-|x|). kUnweighted: weight and pos_weight are absent, and
// read as the constant 1 the compiler folds away (x * 1 is x).
// kFast32 (16-bit losses of 16-bit logits): exp and log1p in fp32 on whole float vectors
// (ExpNeg32, Log1pSplit32), widened for the fp64 formulas, which take them with their errors
// (bce_error_budget.h: kLossError32, kSelfGradientError32); a step where |x| > kExpArgMax32, or
// whose rounding any lane leaves open, is evaluated again in full by the fp64 evaluator.
template <LossKind kKind, bool kFused = false, bool kUnweighted = false, bool kFast32 = false,
          Uniform kUniform = Uniform::kAny>
struct Evaluator {
  static constexpr bool kWithGradient = kFused;
  static constexpr bool kReadsTarget = kKind != LossKind::kGradTarget;
  static constexpr bool kReadsGradOutput = kKind != LossKind::kLoss || kFused;
  // kFast32's target gradient without weights: exact products in fp32 lanes (ExactGradTargetOf).
  static constexpr bool kExactTarget = kKind == LossKind::kGradTarget && kUnweighted;
  // The 16-bit evaluators in fp32 lanes read their operands in place (NarrowSource); the fp64
  // formulas of the weighted gradients and the fused pass convert each operand's halves from
  // memory, and staging them costs less than converting them in the loop (traced fp16 loop of
  // the weighted loss in fp64: 221 vector instructions against 237).
  static constexpr bool kNarrow = kFast32 && (kUnweighted || !kFused);
  using SourceT = std::conditional_t<kNarrow, NarrowSource<kUniform>, Source>;
  static constexpr Uniform kStoredAs = kUniform;
  // Only the fp64 formulas read the operands' fp64 parts: kFast32's fallbacks load their own, and
  // its fused pass (the fp64 formulas on fp32 transcendentals, where the loss is stored) converts
  // them where it takes that path (WithFp64). Converted on every step, they cost 16 conversions a
  // step on AVX2, and held the operands in memory (traced bf16 target gradient with pos_weight).
  static constexpr bool kReadsFp64 = !kFast32;
  template <size_t kStep>
  using In = Operands<kStep, kReadsFp64>;
  std::array<SourceT, kOut> sources;  // from StageInputs: the operands the kind reads
  int64_t count;                      // elements of the tile
  double scale64;
  Targets targets;
  // Of scale64, decided once per tile (IsPowerOfTwo, InScaleRange), not on every step.
  bool scale_is_power_of_two = IsPowerOfTwo(scale64);
  bool scale_in_range = InScaleRange(scale64);

  // The step at i. One named result, computed in place (ComputeInto) and returned as itself:
  // merged from the fast path and its fallback by assignment, GCC copied all of it, 12 AVX-512
  // registers' worth, through the stack on every step.
  template <size_t kStep>
  StepResults<kStep> At(int64_t i) const {
    const In<kStep> in =
        Load<kStep>([&](const auto& source, int64_t at) { return source.Load(at); }, i, true);
    StepResults<kStep> results;
    if constexpr (kFast32) {
      if constexpr (kSumsIn32) {
        if (targets.sum) SumTerms32<kStep>(in, i, kStepLanes<kStep>, results);
      }
      bool open = !kExactTarget && !InRange32(in);  // the target gradient needs no exp
      if (HWY_LIKELY(!open)) ComputeInto(in, i, results, &open);
      if (HWY_UNLIKELY(open)) TakeValues(ValuesInFp64<kStep>(i, kStepLanes<kStep>), results);
    } else {
      ComputeInto(in, i, results);
    }
    return results;
  }
  // A 16-bit mean or sum (kFast32's loss, fused or not) adds SumTerms32's fp32 terms; without a
  // gradient nothing is stored, and SumsAt gives the step's sum terms alone (RunSums32).
  static constexpr bool kSumsIn32 = kFast32 && kKind == LossKind::kLoss;
  template <size_t kStep>
  StepResults<kStep> SumsAt(int64_t i, bool* open = nullptr) const {
    StepResults<kStep> results;
    SumTerms32<kStep>(
        Load<kStep>([&](const auto& source, int64_t at) { return source.Load(at); }, i, true), i,
        kStepLanes<kStep>, results, open);
    return results;
  }
  // The n < kStep * lanes elements from i, in a step whose other lanes read 0.
  template <size_t kStep>
  StepResults<kStep> AtPartial(int64_t i, int64_t n) const {
    if constexpr (kFast32) {
      StepResults<kStep> results;
      if (targets.sum) SumTerms32<kStep>(LoadPartial<kStep>(i, n), i, n, results);
      if (kFused || targets.store_value) TakeValues(ValuesInFp64<kStep>(i, n), results);
      return results;
    }
    return Compute(LoadPartial<kStep>(i, n), i);
  }

 private:
  static constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(D()));
  template <size_t kStep>
  static constexpr int64_t kStepLanes = static_cast<int64_t>(kStep) * kLanes;

  // The n < kStep * lanes elements from i, the step's other lanes 0.
  template <size_t kStep>
  In<kStep> LoadPartial(int64_t i, int64_t n) const {
    return Load<kStep>(
        [&](const auto& source, int64_t at) {
          return source.LoadPartial(at, std::clamp<int64_t>(n - (at - i), 0, kLanes));
        },
        i, false);
  }

  // The operands of the step at i, by `load`; those the kind does not read are 1. Where the
  // step is `whole`, the fp64 parts are converted straight from memory: a conversion that
  // loads its half vector needs no shuffle to split a float vector in registers (x86: one
  // vector instruction instead of two or three).
  template <size_t kStep, class LoadOp>
  In<kStep> Load(LoadOp load, int64_t i, bool whole) const {
    In<kStep> in;
    const V one = hn::Set(D(), 1.0f);
    for (size_t j = 0; j < kStep; ++j) {
      const int64_t at = i + static_cast<int64_t>(j) * kLanes;
      in.x[j] = load(sources[kSelf], at);
      in.t[j] = kReadsTarget ? load(sources[kTarget], at) : one;
      in.g[j] = kReadsGradOutput ? load(sources[kGradOutput], at) : one;
      in.w[j] = kUnweighted ? one : load(sources[kWeight], at);
      in.p[j] = kUnweighted ? one : load(sources[kPosWeight], at);
    }
    if constexpr (kReadsFp64) WidenInto(in, i, whole);
    return in;
  }
  // The fp64 parts of the operands of the step at i.
  template <size_t kStep>
  void WidenInto(Operands<kStep, true>& in, int64_t i, bool whole) const {
    const auto widen = [&](const Vectors<kStep>& v, int which, bool read) {
      if (!read) return WideOps64<2 * kStep>::Set(1.0);
      if (!whole || kNarrow) return Widen(v);  // a NarrowSource may not be fp32 in memory
      return EachPart<2 * kStep>([&](size_t k) {
        const float* half = static_cast<const float*>(sources[which].data) + i +
                            static_cast<int64_t>(k * kLanes / 2);
        return hn::PromoteTo(D64(), hn::LoadU(hn::Half<D>(), half));
      });
    };
    in.x64 = widen(in.x, kSelf, true);
    in.t64 = widen(in.t, kTarget, kReadsTarget);
    in.g64 = widen(in.g, kGradOutput, kReadsGradOutput);
    in.w64 = widen(in.w, kWeight, !kUnweighted);
    in.p64 = widen(in.p, kPosWeight, !kUnweighted);
  }

  // kFast32's fallback: the fp64 evaluator on the n <= kStep * lanes elements from i, copied in
  // fp32 to `local` (its sources, the inputs of its exact path too), which it indexes from 0.
  template <size_t kStep>
  struct Local {
    HWY_ALIGN float values[kOut][kStep * kLanes];
  };
  template <size_t kStep>
  Evaluator<kKind, kFused, kUnweighted, false> Fp64(int64_t i, int64_t n,
                                                    Local<kStep>& local) const {
    Evaluator<kKind, kFused, kUnweighted, false> fp64{{}, n, scale64, targets};
    for (int which = kSelf; which < kOut; ++which) {
      if (sources[which].data == nullptr) continue;  // not read
      for (int64_t at = 0; at < static_cast<int64_t>(kStep) * kLanes; at += kLanes) {
        const int64_t remaining = std::clamp<int64_t>(n - at, 0, kLanes);
        const V v = remaining == kLanes ? sources[which].Load(i + at)
                                        : sources[which].LoadPartial(i + at, remaining);
        hn::Store(v, D(), local.values[which] + at);
      }
      fp64.sources[which].data = local.values[which];
    }
    return fp64;
  }
  // The value of the one float vector at i by the fp64 evaluator (the fused pass's: its
  // gradient, ComputeInFp32's result there).
  HWY_NOINLINE V VectorInFp64(int64_t i) const {
    Local<1> local;
    auto fp64 = Fp64<1>(i, kLanes, local);
    fp64.targets.sum = false;
    const StepResults<1> results = fp64.template At<1>(0);
    if constexpr (kFused) return results.gradient[0];
    return results.value[0];
  }
  // The values (and the fused pass's gradients) of the n <= kStep * lanes elements from i by the
  // fp64 evaluator, for TakeValues: the sums stay kFast32's own (SumTerms32). Returned, not
  // written through a reference: a step's results whose address escapes live on the stack.
  template <size_t kStep>
  HWY_NOINLINE StepResults<kStep> ValuesInFp64(int64_t i, int64_t n) const {
    Local<kStep> local;
    auto fp64 = Fp64<kStep>(i, n, local);
    fp64.targets.sum = false;
    return n == kStepLanes<kStep> ? fp64.template At<kStep>(0)
                                  : fp64.template AtPartial<kStep>(0, n);
  }
  template <size_t kStep>
  static void TakeValues(const StepResults<kStep>& from, StepResults<kStep>& results) {
    results.value = from.value;
    if constexpr (kFused) results.gradient = from.gradient;
  }
  // The mean/sum terms (BceLossTerm's) of the n <= lanes elements of the float vector at i by
  // the fp64 evaluator.
  HWY_NOINLINE StepResults<1> TermsInFp64(int64_t i, int64_t n) const {
    Local<1> local;
    auto fp64 = Fp64<1>(i, n, local);
    fp64.targets.store_value = false;
    return n == kLanes ? fp64.template At<1>(0) : fp64.template AtPartial<1>(0, n);
  }

  // The gradients' reach floor in fp32 ulps, biased by 2^23 for ReachBits: their roundings, and
  // where the scale is not a power of two its own and that of g*scale.
  float BiasedReachFloor() const {
    return kGradSelf32ReachFloor + 0x1p23f + (scale_is_power_of_two ? 0.0f : kGradSelf32ScaleReach);
  }

  // Whether the step's loss terms are all non-negative: t in [0, 1], w and p finite and >= 0
  // (NonNegativeLoss64), each an unsigned range of the float's bits (-0 is outside it).
  template <size_t kStep, bool kWide>
  static bool NonNegativeTerms(const Operands<kStep, kWide>& in) {
    auto lanes = NonNegativeLanes(in, 0);
    for (size_t j = 1; j < kStep; ++j) lanes = hn::And(lanes, NonNegativeLanes(in, j));
    return hn::AllTrue(D(), lanes);
  }
  template <size_t kStep, bool kWide>
  static hn::Mask<D> NonNegativeLanes(const Operands<kStep, kWide>& in, size_t j) {
    const hn::RebindToUnsigned<D> du;
    const auto at_most = [&](V v, uint32_t high) {  // Highway 1.0 has no unsigned Le
      return hn::RebindMask(D(), hn::Lt(hn::BitCast(du, v), hn::Set(du, high + 1)));
    };
    const auto lanes = at_most(in.t[j], kOneBits);  // bce_element.h's ranges
    if constexpr (kUnweighted) return lanes;
    return hn::And(
        lanes, hn::And(at_most(in.w[j], kLargestFiniteBits), at_most(in.p[j], kLargestFiniteBits)));
  }

  // kFast32's mean/sum terms of the step at i, n of whose elements are the tile's, lane for lane
  // as BceLossTerm32 forms them: UnweightedLoss32 or WeightedLoss32 (kUnweighted: weight and
  // pos_weight absent) and its bound in its domain; a vector with a lane
  // outside it takes the fp64 evaluator's terms there (about 1 vector in 2^15 on random inputs),
  // or where `open` is given sets it instead.
  template <size_t kStep>
  void SumTerms32(const In<kStep>& in, int64_t i, int64_t n, StepResults<kStep>& results,
                  bool* open = nullptr) const {
    using O32 = HwyOpsOf<D>;
    const V zero = hn::Zero(D());
    const V64 error = hn::Set(D64(), math::kLossTerm32Bound);
    Wide64<2 * kStep> sum, bound;
    for (size_t j = 0; j < kStep; ++j) {
      const V a = hn::Abs(in.x[j]);
      auto in_domain =
          hn::And(hn::Le(a, hn::Set(D(), math::kExpArgMax32)), NonNegativeLanes(in, j));
      V value;
      if constexpr (kUnweighted) {
        value = UnweightedLoss32<O32>(in.x[j], in.t[j], Log1pExpNeg32<O32>(a));
      } else {
        const auto loss =
            WeightedLoss32<O32>(in.x[j], in.t[j], in.w[j], in.p[j], Log1pExpNeg32<O32>(a));
        const auto bounded =
            hn::Or(hn::And(hn::Ge(loss.inner, hn::Set(D(), 0x1p-102f)),
                           InNormalRange(loss.value, kFp32LeastNormalBits, kFp32InfinityBits)),
                   hn::And(hn::Eq(in.w[j], zero), hn::IsFinite(loss.inner)));
        in_domain = hn::And(in_domain, bounded);
        value = loss.value;
      }
      sum.part[2 * j] = Lower64(value);
      sum.part[2 * j + 1] = Upper64(value);
      bound.part[2 * j] = sum.part[2 * j] * error;
      bound.part[2 * j + 1] = sum.part[2 * j + 1] * error;
      const int64_t at = static_cast<int64_t>(j) * kLanes;
      if (HWY_LIKELY(hn::AllTrue(D(), in_domain)) || at >= n) continue;
      if (open != nullptr) {
        *open = true;
        continue;
      }
      const StepResults<1> fp64 = TermsInFp64(i + at, std::min(n - at, kLanes));
      const V fast = hn::IfThenElseZero(in_domain, hn::Set(D(), 1.0f));
      for (size_t half = 0; half < 2; ++half) {
        const auto keep = hn::Eq(half == 0 ? Lower64(fast) : Upper64(fast), hn::Set(D64(), 1.0));
        const size_t k = 2 * j + half;
        sum.part[k] = hn::IfThenElse(keep, sum.part[k], fp64.sum.part[half]);
        bound.part[k] = hn::IfThenElse(keep, bound.part[k], fp64.bound.part[half]);
      }
    }
    results.sum = sum;
    results.bound = bound;
  }

  // Whether every |x| of the step is at most kExpArgMax32 (NaN is not).
  template <size_t kStep>
  static bool InRange32(const In<kStep>& in) {
    auto in_range = hn::Le(hn::Abs(in.x[0]), hn::Set(D(), math::kExpArgMax32));
    for (size_t j = 1; j < kStep; ++j) {
      in_range = hn::And(in_range, hn::Le(hn::Abs(in.x[j]), hn::Set(D(), math::kExpArgMax32)));
    }
    return hn::AllTrue(D(), in_range);
  }

  // exp(-|x|) of the step, and from the split of 1 + exp(-|x|) log1p and 1/(1 + exp(-|x|)) where
  // asked for, as fp64 parts: by the fp64 formulas, or (kFast32) exp and log1p by the fp32 ones,
  // widened, and the reciprocal in fp64 from the widened e.
  template <size_t kStep>
  struct Transcendentals {
    Transcendentals() {}
    Wide64<2 * kStep> e, log_term, reciprocal;
  };
  template <size_t kStep>
  Transcendentals<kStep> TranscendentalsOf(const Operands<kStep, true>& in, bool log,
                                           bool reciprocal) const {
    Transcendentals<kStep> result;
    if constexpr (kFast32) {
      using O32 = HwyOpsOf<D>;
      Vectors<kStep> e, log_term;
      for (size_t j = 0; j < kStep; ++j) {
        e[j] = ExpNeg32<O32>(hn::Abs(in.x[j]));
        if (log) log_term[j] = Log1pSplit32<O32>(SplitUnit32<O32>(e[j]));
      }
      result.e = Widen(e);
      if (log) result.log_term = Widen(log_term);
      if (reciprocal) {
        using O64 = WideOps64<2 * kStep>;
        result.reciprocal = Reciprocal1pSplit<O64>(SplitUnit<O64>(result.e));
      }
    } else {
      using O64 = WideOps64<2 * kStep>;
      result.e = ExpNeg64<O64>(O64::Abs(in.x64));
      const UnitSplit<O64> split = SplitUnit<O64>(result.e);
      if (log) result.log_term = Log1pSplit<O64>(split);
      if (reciprocal) result.reciprocal = Reciprocal1pSplit<O64>(split);
    }
    return result;
  }

  // The 16-bit results of 16-bit logits wholly in fp32 lanes (kFast32), one evaluator per kind
  // and grid (fp16 or bf16: its constants are then the instructions' own operands; as runtime
  // values they were broadcast from general registers on every step). Each returns false where
  // it leaves a vector open, which *open_vectors then names for the fp64 evaluator.
  //
  // The loss, where the step's terms are non-negative (ComputeInto checks).
  // Without weights: max(x, 0) - x*t + log1p(exp(-|x|)), each term >= 0, the log term the fp32
  // one (kLog1pExpError32, |x| <= kExpArgMax32 as kFast32 checks) and two roundings, so within
  // 2^-20.6 of the value, which is in (0, 81]: at least log1p(exp(-80)), a normal fp32, and no
  // range check (fp16's subnormal grid included). Settled where FarFrom16Boundaries32 says so
  // for every lane, rounded onto the grid; open otherwise (about 2^-8.4 of random fp16 lanes,
  // 2^-11.4 of bf16 ones).
  template <size_t kStep, bool kFp16>
  HWY_INLINE bool FastLoss16Of(const In<kStep>& in, Vectors<kStep>* values,
                               bool* open_vectors) const {
    using O32 = HwyOpsOf<D>;
    constexpr Grid kGrid = GridOf(kFp16 ? FloatType::kFloat16 : FloatType::kBFloat16);
    bool all = true;
    for (size_t j = 0; j < kStep; ++j) {
      const V value = UnweightedLoss32<O32>(in.x[j], in.t[j], Log1pExpNeg32<O32>(hn::Abs(in.x[j])));
      open_vectors[j] = !hn::AllTrue(D(), FarFrom16Boundaries32<kLoss32Reach32>(value, kFp16));
      all = all && !open_vectors[j];
      (*values)[j] = O32::RoundToGrid(value, kGrid.precision, kGrid.min_exponent);
    }
    return all;
  }

  // With weight or pos_weight (either may be the constant 1): WeightedLoss32, w * S, whose error
  // (kWeightedLoss32Error) is what kWeightedLoss32Reach32 reaches; t, w and p may be fp32 (only x
  // is 16-bit). Settled where every lane passes that bit test with its value a normal fp32 below
  // the grid's limit and S >= 2^-102, or has w = 0, whose loss is exactly +0 (S is finite for
  // finite inputs, though in fp32 its linear term may overflow).
  template <size_t kStep, bool kFp16>
  HWY_INLINE bool FastWeightedLoss16Of(const In<kStep>& in, Vectors<kStep>* values,
                                       bool* open_vectors) const {
    using O32 = HwyOpsOf<D>;
    constexpr Grid kGrid = GridOf(kFp16 ? FloatType::kFloat16 : FloatType::kBFloat16);
    bool all = true;
    for (size_t j = 0; j < kStep; ++j) {
      const V w = in.w[j];
      const auto [inner, value] =
          WeightedLoss32<O32>(in.x[j], in.t[j], w, in.p[j], Log1pExpNeg32<O32>(hn::Abs(in.x[j])));
      const auto settled = hn::And(
          hn::And(
              FarFrom16Boundaries32<kWeightedLoss32Reach32>(value, kFp16),
              InNormalRange(value, kFp32LeastNormalBits, kFp16 ? kFp16LimitBits : kBf16LimitBits)),
          hn::Ge(inner, hn::Set(D(), 0x1p-102f)));
      const auto zero_weight = hn::Eq(w, hn::Zero(D()));
      open_vectors[j] = !hn::AllTrue(D(), hn::Or(settled, zero_weight));
      all = all && !open_vectors[j];
      (*values)[j] = hn::IfThenZeroElse(
          zero_weight, O32::RoundToGrid(value, kGrid.precision, kGrid.min_exponent));
    }
    return all;
  }

  // A 16-bit self gradient of 16-bit logits wholly in fp32 lanes, for a scale in [2^-64, 2^64]:
  // (c - sign*l*m) * g*w*scale, l = 1 without weights, as one fused difference and a product
  // (see kSigmoidComplementError32), the rounding tested per lane with a reach that grows as the
  // difference cancels (FarFromBoundariesBy), and the value rounded onto the grid. With weights,
  // lanes where g or w is 0 (g*w*scale finite) and the difference's sign is certain are exact
  // zeros. False where any lane is left open (about 1 in 200 fp16 lanes of random soft labels, far
  // fewer for hard ones, whose difference hardly cancels) or out of the grid's normal range:
  // *open_vectors then names the vectors for the fp64 evaluator.
  template <size_t kStep, bool kFp16>
  HWY_INLINE bool FastGradSelf16Of(const In<kStep>& in, Vectors<kStep>* values,
                                   bool* open_vectors) const {
    bool all = true;
    constexpr Grid kGrid = GridOf(kFp16 ? FloatType::kFloat16 : FloatType::kBFloat16);
    const hn::RebindToUnsigned<D> du;
    const V one = hn::Set(D(), 1.0f), zero = hn::Zero(D());
    const V scale = hn::Set(D(), static_cast<float>(scale64));
    const V per_ratio =
        hn::Set(D(), kUnweighted ? kGradSelf32ReachPerRatio : kWeightedGradSelf32ReachPerRatio);
    const V floor = hn::Set(D(), BiasedReachFloor());
    for (size_t j = 0; j < kStep; ++j) {
      const V x = in.x[j], t = in.t[j];
      const V e = ExpNeg32<HwyOpsOf<D>>(hn::Abs(x));
      const V r = one / (one + e);
      const auto x_non_negative = hn::Ge(x, zero);
      // x >= 0: (1 - t) - l*m; x < 0: l*m - p*t.
      V c, scaled_e, coef;
      if constexpr (kUnweighted) {
        c = hn::IfThenElseZero(x_non_negative, one) - t;
        scaled_e = e;
        coef = in.g[j] * scale;
      } else {
        const V pos_part = in.p[j] * t, neg_part = one - t;
        c = hn::IfThenElse(x_non_negative, neg_part, hn::Neg(pos_part));
        scaled_e = (neg_part + pos_part) * e;
        coef = (in.g[j] * in.w[j]) * scale;
      }
      const V d = hn::MulAdd(hn::IfThenElse(x_non_negative, hn::Neg(scaled_e), scaled_e), r, c);
      const V v = d * coef;
      const auto reach = ReachBits(
          hn::MulAdd((scaled_e * r) * hn::ApproximateReciprocal(hn::Abs(d)), per_ratio, floor));
      // g*w*scale a normal fp32 (not rounded below the normal range, nor infinite or NaN).
      const auto settled =
          hn::And(SettledOnGridBy<kFp16>(v, reach),
                  InNormalRange(hn::Abs(coef), kFp32LeastNormalBits, kFp32InfinityBits));
      open_vectors[j] = !hn::AllTrue(D(), settled);
      // With weights, the exact zeros (weights of 0 mask elements out), only where a lane is open
      // (without weights the branch alone cost 15% more instructions per step).
      if (!kUnweighted && HWY_UNLIKELY(open_vectors[j])) {
        // g*w*scale finite too: 0 * inf is NaN, not a zero (the fp64 path gives it its NaN).
        const auto zero_coef =
            hn::And(hn::Or(hn::Eq(in.g[j], zero), hn::Eq(in.w[j], zero)), hn::IsFinite(coef));
        const auto sign_certain = hn::RebindMask(D(), hn::Lt(reach, hn::Set(du, kReachCap32)));
        open_vectors[j] = !hn::AllTrue(D(), hn::Or(settled, hn::And(zero_coef, sign_certain)));
      }
      all = all && !open_vectors[j];
      (*values)[j] = HwyOpsOf<D>::RoundToGrid(v, kGrid.precision, kGrid.min_exponent);
    }
    return all;
  }

  // A 16-bit target gradient of 16-bit logits with weight or pos_weight wholly in fp32 lanes, for
  // a scale in [2^-64, 2^64]: g*w*scale * ((p - 1)*L + K*|x|) as GradTarget64, the rounding
  // tested per lane with a reach that grows as the inner sum cancels (kGradTarget32ReachPerRatio),
  // where g*w*scale is a normal fp32 and the inner sum a finite one of at least 2^-100 (K*|x|
  // rounded in fp32's subnormal range, for a subnormal fp32 p, is then below 2^-43 of it).
  // Settled too, as exact zeros with the fp64 formula's sign: lanes where g or w is 0 (g*w*scale
  // finite) and the inner sum's sign is certain (its reach below the cap), and those where x = 0
  // and p = 1 (the inner sum exactly +0) with g*w*scale finite.
  template <size_t kStep, bool kFp16>
  HWY_INLINE bool FastGradTarget16Of(const In<kStep>& in, Vectors<kStep>* values,
                                     bool* open_vectors) const {
    using O32 = HwyOpsOf<D>;
    constexpr Grid kGrid = GridOf(kFp16 ? FloatType::kFloat16 : FloatType::kBFloat16);
    const hn::RebindToUnsigned<D> du;
    const V one = hn::Set(D(), 1.0f), zero = hn::Zero(D());
    const V scale = hn::Set(D(), static_cast<float>(scale64));
    const V floor = hn::Set(D(), BiasedReachFloor());
    constexpr uint32_t kLeastInnerBits = 0x0d800000u;  // 2^-100
    bool all = true;
    for (size_t j = 0; j < kStep; ++j) {
      const V x = in.x[j], p = in.p[j], g = in.g[j], w = in.w[j];
      const V a = hn::Abs(x);
      const V log_term = Log1pExpNeg32<O32>(a);
      const V log_coef = p - one;
      const V linear = a * hn::IfThenElse(hn::Lt(x, zero), p, hn::Neg(one));
      const V inner = hn::MulAdd(log_coef, log_term, linear);
      const V terms = hn::MulAdd(hn::Abs(log_coef), log_term, hn::Abs(linear));
      const V coef = (g * w) * scale;
      const V v = coef * inner;
      const auto reach = ReachBits(hn::MulAdd(terms * hn::ApproximateReciprocal(hn::Abs(inner)),
                                              hn::Set(D(), kGradTarget32ReachPerRatio), floor));
      const auto inner_in_range = InNormalRange(hn::Abs(inner), kLeastInnerBits, kFp32InfinityBits);
      const auto settled =
          hn::And(hn::And(SettledOnGridBy<kFp16>(v, reach), inner_in_range),
                  InNormalRange(hn::Abs(coef), kFp32LeastNormalBits, kFp32InfinityBits));
      const auto sign_certain = hn::RebindMask(D(), hn::Lt(reach, hn::Set(du, kReachCap32)));
      const auto zero_coef =
          hn::And(hn::And(hn::Or(hn::Eq(g, zero), hn::Eq(w, zero)), hn::IsFinite(coef)),
                  hn::And(sign_certain, inner_in_range));
      const auto zero_inner = hn::And(hn::And(hn::Eq(x, zero), hn::Eq(p, one)), hn::IsFinite(coef));
      open_vectors[j] = !hn::AllTrue(D(), hn::Or(settled, hn::Or(zero_coef, zero_inner)));
      all = all && !open_vectors[j];
      (*values)[j] = O32::RoundToGrid(v, kGrid.precision, kGrid.min_exponent);
    }
    return all;
  }

  // The target gradient without weights, for a scale 2^k (|k| <= 64; RunTileWeighted), in fp32
  // lanes: -x*g*scale, no transcendental. g*scale is exact where it is a normal fp32. A 16-bit
  // result (`kType`) of 16-bit logits and gradOutput: the product of two 16-bit values (at most
  // 22 bits) is exact too wherever the value is a normal fp32, and its rounding onto the grid is
  // then the result. An fp32 result: the product's own rounding is the result (IEEE rounds it
  // once, correctly), here where it is a normal fp32. Formed as GradTarget64 forms it (x >= 0:
  // 0 - |x|), so that the exact zeros (x or g zero, x and g*scale finite) get its sign.
  template <size_t kStep, FloatType kType>
  HWY_INLINE bool ExactGradTargetOf(const In<kStep>& in, Vectors<kStep>* values,
                                    bool* open_vectors) const {
    constexpr uint32_t kLimitBits = kType == FloatType::kFloat32   ? kFp32InfinityBits
                                    : kType == FloatType::kFloat16 ? kFp16LimitBits
                                                                   : kBf16LimitBits;
    const V zero = hn::Zero(D()), scale = hn::Set(D(), static_cast<float>(scale64));
    bool all = true;
    for (size_t j = 0; j < kStep; ++j) {
      const V x = in.x[j], g = in.g[j];
      const V a = hn::Abs(x);
      const V scaled_g = g * scale;
      const V v = scaled_g * hn::IfThenElse(hn::Lt(x, zero), a, zero - a);
      const auto exact =
          hn::And(InNormalRange(hn::Abs(v), kFp32LeastNormalBits, kLimitBits),
                  InNormalRange(hn::Abs(scaled_g), kFp32LeastNormalBits, kFp32InfinityBits));
      const auto exact_zero = hn::And(hn::Or(hn::Eq(x, zero), hn::Eq(g, zero)),
                                      hn::And(hn::IsFinite(scaled_g), hn::IsFinite(x)));
      open_vectors[j] = !hn::AllTrue(D(), hn::Or(exact, exact_zero));
      all = all && !open_vectors[j];
      if constexpr (kType == FloatType::kFloat32) {
        (*values)[j] = v;
      } else {
        constexpr Grid kGrid = GridOf(kType);
        (*values)[j] = HwyOpsOf<D>::RoundToGrid(v, kGrid.precision, kGrid.min_exponent);
      }
    }
    return all;
  }

  // The relative errors the fp64 formulas take the transcendentals with.
  static constexpr double kLogError = kFast32 ? math::kLossError32 : math::kEstimateError64;
  static constexpr double kSigmoidError =
      kFast32 ? math::kSelfGradientError32 : math::kEstimateError64;

  // The step's results; where `open` is given, a vector whose rounding the estimates leave open
  // sets it instead of settling its lanes one by one.
  template <size_t kStep>
  void ComputeInto(const In<kStep>& in, int64_t i, StepResults<kStep>& results,
                   bool* open = nullptr) const {
    if constexpr (!kFast32) {
      ComputeInFp64(in, i, results, open);
    } else if (!kFused || !targets.store_value) {
      // The fused pass of a 16-bit mean or sum too: SumTerms32 formed the loss terms, and the
      // gradient is the self gradient's own (FastGradSelf16Of).
      ComputeInFp32(in, i, results, open);
    } else {
      ComputeInFp64(WithFp64(in, i), i, results, open);
    }
  }
  // kFast32's evaluation wholly in fp32 lanes: the kind's (the fused pass's: the self gradient's)
  // 16-bit results. The unweighted target gradient only for a power-of-two scale
  // (RunTileWeighted). What they leave open, the fp64 evaluator takes, a vector at a time: a
  // step's other vector is usually settled (on the ramp inputs about one step in seven or eight
  // has an open one), and per vector fp64 costs twice what fp32 does. A step whose loss terms may
  // be negative, or whose scale is out of range, takes it whole.
  template <size_t kStep>
  void ComputeInFp32(const In<kStep>& in, int64_t i, StepResults<kStep>& results,
                     bool* open) const {
    constexpr LossKind kFastKind = kFused ? LossKind::kGradSelf : kKind;
    if (kFastKind == LossKind::kLoss ? !NonNegativeTerms(in) : !scale_in_range) {
      *open = true;
      return;
    }
    auto& out = kFused ? results.gradient : results.value;
    const FloatType type = kFused ? targets.gradient_type : targets.value_type;
    bool open_vectors[kStep];
    const auto on_grid = [&](auto fp16) {
      constexpr bool kFp16 = decltype(fp16)::value;
      if constexpr (kFastKind == LossKind::kLoss && kUnweighted) {
        return FastLoss16Of<kStep, kFp16>(in, &out, open_vectors);
      } else if constexpr (kFastKind == LossKind::kLoss) {
        return FastWeightedLoss16Of<kStep, kFp16>(in, &out, open_vectors);
      } else if constexpr (kFastKind == LossKind::kGradSelf) {
        return FastGradSelf16Of<kStep, kFp16>(in, &out, open_vectors);
      } else if constexpr (kUnweighted) {
        constexpr FloatType kType = kFp16 ? FloatType::kFloat16 : FloatType::kBFloat16;
        return ExactGradTargetOf<kStep, kType>(in, &out, open_vectors);
      } else {
        return FastGradTarget16Of<kStep, kFp16>(in, &out, open_vectors);
      }
    };
    bool settled;
    if (kExactTarget && type == FloatType::kFloat32) {
      settled = ExactGradTargetOf<kStep, FloatType::kFloat32>(in, &out, open_vectors);
    } else {
      settled =
          type == FloatType::kFloat16 ? on_grid(std::true_type{}) : on_grid(std::false_type{});
    }
    for (size_t j = 0; !settled && j < kStep; ++j) {
      if (open_vectors[j]) out[j] = VectorInFp64(i + static_cast<int64_t>(j) * kLanes);
    }
  }
  // The step's operands with their fp64 parts (kFast32's fused pass, where it stores the loss).
  template <size_t kStep>
  Operands<kStep, true> WithFp64(const In<kStep>& in, int64_t i) const {
    Operands<kStep, true> wide;
    wide.x = in.x;
    wide.t = in.t;
    wide.w = in.w;
    wide.p = in.p;
    wide.g = in.g;
    WidenInto(wide, i, true);
    return wide;
  }
  // The fp64 formulas' results of the step.
  template <size_t kStep>
  void ComputeInFp64(const Operands<kStep, true>& in, int64_t i, StepResults<kStep>& results,
                     bool* open) const {
    using O64 = WideOps64<2 * kStep>;
    const auto &x64 = in.x64, &w64 = in.w64, &p64 = in.p64;
    const auto scale = O64::Set(scale64);
    if constexpr (kKind == LossKind::kGradTarget) {
      // Where every p is 1 (no pos_weight) the log term's coefficient is 0: skip computing it.
      auto log_term = O64::Set(0.0);
      bool every_p_is_one = true;
      for (size_t j = 0; j < kStep; ++j) {
        every_p_is_one = every_p_is_one && hn::AllTrue(D(), hn::Eq(in.p[j], hn::Set(D(), 1.0f)));
      }
      if (!every_p_is_one) log_term = TranscendentalsOf(in, true, false).log_term;
      const auto estimate = GradTarget64<O64>(x64, w64, p64, in.g64, scale, log_term, kLogError);
      if (kUnweighted && scale_is_power_of_two && NonZeroFinite(estimate.value)) {
        // -x*g*scale: a product of two fp32 values, times a power of two, is exact in fp64.
        results.value = RoundExact<kStep>(estimate.value, targets.value_type);
      } else {
        results.value = Settle<kStep>(estimate, i, LossKind::kGradTarget, targets.value_type, open);
      }
    } else {
      const auto& t64 = in.t64;
      constexpr bool kLog = kKind == LossKind::kLoss;
      constexpr bool kReciprocal = kKind == LossKind::kGradSelf || kFused;
      const auto transcendentals = TranscendentalsOf(in, kLog, kReciprocal);
      if constexpr (kLog) {
        const auto& log_term = transcendentals.log_term;
        // A kFast32 step with weights that FastWeightedLoss16Of left open takes Loss64 and its
        // interval test: the bit test's bound, kLossError32 of the whole value, would leave it
        // open again about as often.
        if ((!kFast32 || kUnweighted) && NonNegativeTerms(in)) {
          // The bound, kEstimateError64 of the value (kFast32: kLossError32), is formed only
          // where it is read; kFast32's sums are SumTerms32's, formed before this.
          const auto value = kUnweighted ? UnweightedNonNegativeLoss64<O64>(x64, t64, log_term)
                                         : NonNegativeLoss64<O64>(x64, t64, w64, p64, log_term);
          if constexpr (kFast32) {
            // The interval test where the bit test leaves a vector open takes Loss64's bound,
            // kLossError32 of the log term alone (not of the whole value, much looser where the
            // linear term dominates).
            results.value = SettleRelative16<kStep>(value, i, targets.value_type, open, [&] {
              return Loss64<O64>(x64, t64, w64, p64, log_term, kLogError);
            });
          } else if (targets.store_value) {
            results.value =
                targets.value_type == FloatType::kFloat32
                    ? SettleRelative<kStep>(value, i)
                    : Settle<kStep>(NonNegativeEstimate64<O64>(value, math::kEstimateError64), i,
                                    LossKind::kLoss, targets.value_type, open);
          }
          if (!kFast32 && targets.sum) {
            results.sum = SumTerms<kStep>(NonNegativeEstimate64<O64>(value, math::kEstimateError64),
                                          i, &results.bound);
          }
        } else {
          const auto loss = Loss64<O64>(x64, t64, w64, p64, log_term, kLogError);
          if (targets.store_value) {
            results.value = Settle<kStep>(loss, i, LossKind::kLoss, targets.value_type, open);
          }
          if (!kFast32 && targets.sum) results.sum = SumTerms<kStep>(loss, i, &results.bound);
        }
      }
      if constexpr (kReciprocal) {
        const auto estimate = GradSelf64<O64>(x64, t64, w64, p64, in.g64, scale, transcendentals.e,
                                              transcendentals.reciprocal, kSigmoidError);
        auto& out = kKind == LossKind::kGradSelf ? results.value : results.gradient;
        out = Settle<kStep>(
            estimate, i, LossKind::kGradSelf,
            kKind == LossKind::kGradSelf ? targets.value_type : targets.gradient_type, open);
      }
    }
  }
  template <size_t kStep>
  StepResults<kStep> Compute(const In<kStep>& in, int64_t i) const {
    StepResults<kStep> results;
    ComputeInto(in, i, results);
    return results;
  }

  // Whether every lane of `value` is finite and not zero. Zeros and non-finite values keep the
  // rounding test, whose exact path gives them the reference's sign and NaN.
  template <size_t kParts>
  static bool NonZeroFinite(const Wide64<kParts>& value) {
    auto lanes = hn::And(hn::IsFinite(value.part[0]), hn::Ne(value.part[0], hn::Zero(D64())));
    for (size_t k = 1; k < kParts; ++k) {
      lanes = hn::And(lanes,
                      hn::And(hn::IsFinite(value.part[k]), hn::Ne(value.part[k], hn::Zero(D64()))));
    }
    return hn::AllTrue(D64(), lanes);
  }

  // Exact fp64 values rounded once to `type`, to nearest even as the exact path rounds: fp32 by
  // the conversion, 16-bit types onto their grid in fp64 (whose points fp32 holds exactly).
  template <size_t kStep>
  static Vectors<kStep> RoundExact(const Wide64<2 * kStep>& value, FloatType type) {
    const Grid grid = GridOf(type);
    const Wide64<2 * kStep> rounded =
        type == FloatType::kFloat32
            ? value
            : WideOps64<2 * kStep>::RoundToGrid(value, grid.precision, grid.min_exponent);
    Vectors<kStep> values;
    for (size_t j = 0; j < kStep; ++j) values[j] = Narrow(rounded, j);
    return values;
  }

  // The estimates of the step at i rounded to `type`, with the lanes whose rounding they leave
  // open recomputed. The rounding test rounds both ends of the error interval to `type` (fp16,
  // bf16: onto its grid in fp64, exactly representable in fp32) and compares them as fp32, bit for
  // bit (-0 and +0 differ) and as numbers (NaN, from a non-finite input, is open): where they are
  // the same, so is every value between them, and the lower end is the result.
  template <size_t kStep>
  Vectors<kStep> Settle(const Estimate64<WideOps64<2 * kStep>>& estimate, int64_t i, LossKind kind,
                        FloatType type, bool* open, const bool* skip = nullptr) const {
    using O64 = WideOps64<2 * kStep>;
    auto [low, high] = ErrorInterval(estimate);
    const Grid grid = GridOf(type);
    const bool on_grid = type != FloatType::kFloat32;
    if (on_grid && !kGridIn32) {
      low = O64::RoundToGrid(low, grid.precision, grid.min_exponent);
      high = O64::RoundToGrid(high, grid.precision, grid.min_exponent);
    }
    Vectors<kStep> values;
    for (size_t j = 0; j < kStep; ++j) {
      if (skip != nullptr && skip[j]) {  // settled already: SettleRelative16 keeps its own value
        values[j] = hn::Zero(D());
        continue;
      }
      V upper;
      if (!on_grid || !GridIn32(low, high, j, grid, &values[j], &upper)) {
        values[j] = Narrow(low, j);
        upper = Narrow(high, j);
      }
      const hn::RebindToSigned<D> di;
      const auto settled =
          hn::And(hn::Eq(values[j], upper),
                  hn::RebindMask(D(), hn::Eq(hn::BitCast(di, values[j]), hn::BitCast(di, upper))));
      if (HWY_LIKELY(hn::AllTrue(D(), settled))) continue;
      if (open != nullptr) {
        *open = true;
        continue;
      }
      values[j] = SettleLanes(kind, type, hn::VecFromMask(D(), settled),
                              i + static_cast<int64_t>(j) * kLanes, values[j]);
    }
    return values;
  }

  // Settle for fp32 results of non-negative loss values (NonNegativeEstimate64): where the bit
  // test (FarFromBoundaries, InNormalRange) settles every lane, the values' own rounding;
  // a step that it leaves open (zeros, tiny or huge values, a value near a boundary: about 2^-17
  // of random lanes) takes the interval test, Settle.
  template <size_t kStep>
  Vectors<kStep> SettleRelative(const Wide64<2 * kStep>& value, int64_t i) const {
    Vectors<kStep> values;
    bool settled = true;
    for (size_t j = 0; j < kStep; ++j) {
      values[j] = Narrow(value, j);
      settled =
          settled &&
          hn::AllTrue(D64(), hn::And(FarFromBoundaries<24, kLossReach>(value.part[2 * j]),
                                     FarFromBoundaries<24, kLossReach>(value.part[2 * j + 1]))) &&
          hn::AllTrue(D(), InNormalRange(values[j], kFp32LeastNormalBits, kFp32InfinityBits));
    }
    if (HWY_LIKELY(settled)) return values;
    return Settle<kStep>(NonNegativeEstimate64<WideOps64<2 * kStep>>(value, math::kEstimateError64),
                         i, LossKind::kLoss, FloatType::kFloat32, nullptr);
  }

  // kFast32's Settle for non-negative loss values, whose bound is within kLossError32 of the
  // value, in the 16-bit `type`: the bit test (SettledOnGrid16) per float vector; a vector where
  // it leaves any lane open (about 2^-9 of random fp16 lanes, 2^-12 of bf16 ones, and values
  // outside the type's range) takes the interval test of `estimate()`, Settle (where that leaves
  // a lane open: *open, and the step is evaluated again in fp64).
  template <size_t kStep, class EstimateOp>
  Vectors<kStep> SettleRelative16(const Wide64<2 * kStep>& value, int64_t i, FloatType type,
                                  bool* open, EstimateOp estimate) const {
    Vectors<kStep> values;
    bool settled[kStep];
    bool all = true;
    for (size_t j = 0; j < kStep; ++j) {
      settled[j] = SettledOnGrid16(value.part[2 * j], value.part[2 * j + 1], type,
                                   FarFrom16Boundaries, &values[j]);
      all = all && settled[j];
    }
    if (HWY_LIKELY(all)) return values;
    const Vectors<kStep> tested =
        Settle<kStep>(estimate(), i, LossKind::kLoss, type, open, settled);
    for (size_t j = 0; j < kStep; ++j) {
      if (!settled[j]) values[j] = tested[j];
    }
    return values;
  }

  // The loss estimates of the step at i as mean/sum add them, with `bound` their bounds: where an
  // input is not finite (the bound is then not finite) the lanes take the reference value, as
  // BceLossTerm says.
  template <size_t kStep>
  Wide64<2 * kStep> SumTerms(const Estimate64<WideOps64<2 * kStep>>& loss, int64_t i,
                             Wide64<2 * kStep>* bound) const {
    Wide64<2 * kStep> values = loss.value;
    *bound = loss.bound;
    for (size_t j = 0; j < kStep; ++j) {
      V64& lower = values.part[2 * j];
      V64& upper = values.part[2 * j + 1];
      // Not finite: NaN (BceLossTerm), or the bound of a non-finite value.
      const auto first = hn::Not(hn::IsFinite(loss.bound.part[2 * j]));
      const auto second = hn::Not(hn::IsFinite(loss.bound.part[2 * j + 1]));
      if (HWY_LIKELY(hn::AllFalse(D64(), hn::Or(first, second)))) continue;
      const V reference = ReferenceLanes(i + static_cast<int64_t>(j) * kLanes);
      lower = hn::IfThenElse(first, Lower64(reference), lower);
      upper = hn::IfThenElse(second, Upper64(reference), upper);
    }
    return values;
  }

  // The lanes of the vector at `at` by the scalar loss-term definition (out of line: the rare
  // non-finite case); lanes past the tile are 0.
  HWY_NOINLINE V ReferenceLanes(int64_t at) const {
    HWY_ALIGN float values[kLanes] = {};
    for (int64_t lane = 0; lane < kLanes && at + lane < count; ++lane) {
      values[lane] = static_cast<float>(BceLossTerm(ElementAt(at + lane)).value);
    }
    return hn::Load(D(), values);
  }

  // The lanes of the vector at `at` that the estimates left unsettled (settled lanes 0)
  // recomputed by the scalar element function from the inputs in memory; out of line, so the
  // common path keeps its registers. Lanes past the tile are left as they are.
  HWY_NOINLINE V SettleLanes(LossKind kind, FloatType type, V settled, int64_t at,
                             V rounded) const {
    HWY_ALIGN float values[kLanes];
    HWY_ALIGN float settled_lanes[kLanes];
    hn::Store(rounded, D(), values);
    hn::Store(settled, D(), settled_lanes);
    for (int64_t lane = 0; lane < kLanes && at + lane < count; ++lane) {
      if (BitCast<uint32_t>(settled_lanes[lane]) != 0) continue;
      values[lane] = BceElement(kind, scale64, ElementAt(at + lane), type);
    }
    return hn::Load(D(), values);
  }

  // Element k's inputs, those the kind does not read as 1.
  ElementInputs ElementAt(int64_t k) const {
    ElementInputs element;
    element.x = sources[kSelf].Element(k);
    element.t = kReadsTarget ? sources[kTarget].Element(k) : 1.0f;
    element.g = kReadsGradOutput ? sources[kGradOutput].Element(k) : 1.0f;
    element.w = kUnweighted ? 1.0f : sources[kWeight].Element(k);
    element.p = kUnweighted ? 1.0f : sources[kPosWeight].Element(k);
    return element;
  }
};

// The 16 lanes of the block order (element i to lane i % 16), each a Partial (sum and bound), as
// 32/N vectors of N/2 doubles each, N the float lanes: a float vector at a multiple of 16 plus k*N
// feeds vectors 2k, 2k+1.
class BlockAccumulator {
 public:
  static constexpr size_t kLanes = hn::MaxLanes(D());
  static_assert(kLanes <= 16 && 16 % kLanes == 0, "the block order needs N dividing 16");
  static constexpr size_t kGroups = 16 / kLanes;

  BlockAccumulator() {
    for (size_t k = 0; k < 2 * kGroups; ++k) sums_[k] = bounds_[k] = hn::Zero(D64());
  }

  template <size_t kParts>
  void Add(size_t group, const Wide64<kParts>& sum, const Wide64<kParts>& bound, size_t j) {
    for (size_t half = 0; half < 2; ++half) {
      sums_[2 * group + half] = sums_[2 * group + half] + sum.part[2 * j + half];
      bounds_[2 * group + half] = bounds_[2 * group + half] + bound.part[2 * j + half];
    }
  }
  // A step of kStep float vectors from a multiple of 16: vector j into group j % kGroups.
  template <size_t kStep>
  void AddStep(const Wide64<2 * kStep>& sum, const Wide64<2 * kStep>& bound) {
    for (size_t j = 0; j < kStep; ++j) Add(j % kGroups, sum, bound, j);
  }
  // The sums alone, for BoundsFromSums.
  template <size_t kStep>
  void AddSums(const Wide64<2 * kStep>& sum) {
    for (size_t j = 0; j < kStep; ++j) {
      const size_t group = j % kGroups;
      for (size_t half = 0; half < 2; ++half) {
        sums_[2 * group + half] = sums_[2 * group + half] + sum.part[2 * j + half];
      }
    }
  }
  // Each lane's bound as `fraction` (a power of two) of its sum: exactly the sum of its terms'
  // bounds where each was that fraction of its value.
  void BoundsFromSums(double fraction) {
    for (size_t k = 0; k < 2 * kGroups; ++k) bounds_[k] = sums_[k] * hn::Set(D64(), fraction);
  }

  void StoreLanes(Partial* lanes) const {
    HWY_ALIGN double sums[16], bounds[16];
    for (size_t k = 0; k < 2 * kGroups; ++k) {
      hn::Store(sums_[k], D64(), sums + k * (kLanes / 2));
      hn::Store(bounds_[k], D64(), bounds + k * (kLanes / 2));
    }
    for (int lane = 0; lane < 16; ++lane) lanes[lane] = {sums[lane], bounds[lane]};
  }

 private:
  V64 sums_[2 * kGroups];
  V64 bounds_[2 * kGroups];
};

// Where a tile's results go: the output, the fused pass's gradient.
struct TileSinks {
  const TileOutput& output;
  const TileOutput& gradient;
};

// Elements [i, count), fewer than a step: one step with partial loads, stored and summed per
// element (one instantiation of the formulas per evaluator keeps compile time in bounds: under
// the sanitizers each one costs minutes).
template <size_t kStep, class Eval>
void RunRemainder(const Eval& eval, int64_t i, int64_t count, const TileSinks& sinks,
                  Partial* lanes) {
  constexpr size_t kLanes = hn::MaxLanes(D());
  if (i >= count) return;
  const auto results = eval.template AtPartial<kStep>(i, count - i);
  const Targets& targets = eval.targets;
  HWY_ALIGN float values[kStep * kLanes];
  HWY_ALIGN float gradients[kStep * kLanes];
  HWY_ALIGN double sums[kStep * kLanes];
  HWY_ALIGN double bounds[kStep * kLanes];
  for (size_t j = 0; j < kStep; ++j) {
    if (targets.store_value) {
      hn::Store(results.value[j], D(), values + j * kLanes);
    }
    if (Eval::kWithGradient) {
      hn::Store(results.gradient[j], D(), gradients + j * kLanes);
    }
    if (targets.sum) {
      for (size_t half = 0; half < 2; ++half) {
        const size_t at = j * kLanes + half * kLanes / 2;
        hn::Store(results.sum.part[2 * j + half], D64(), sums + at);
        hn::Store(results.bound.part[2 * j + half], D64(), bounds + at);
      }
    }
  }
  const TileOutput &output = sinks.output, &gradient = sinks.gradient;
  for (int64_t k = 0; k < count - i; ++k) {
    if (targets.store_value) cpu::StoreFrom32(output.data, output.StoredAs(), i + k, values[k]);
    if (Eval::kWithGradient) {
      cpu::StoreFrom32(gradient.data, gradient.StoredAs(), i + k, gradients[k]);
    }
    if (targets.sum) lanes[(i + k) % 16] = lanes[(i + k) % 16] + Partial{sums[k], bounds[k]};
  }
}

// RunSteps for the 16-bit sums alone (kSumsIn32, nothing stored), in a loop of their own up to
// the first step with a term in fp64, and without bounds: every term's is kLossTerm32Bound of its
// value, so theirs is that of the sums (an accumulator that starts at zero, as a tile's does).
// Beside the stored values' paths, or with the fp64 call inside it, GCC kept the accumulator and
// the step's sums on the stack (32 accesses per step, then 26; now none but spilled constants).
template <size_t kStep, class Eval>
int64_t RunSums32(const Eval& eval, int64_t i, int64_t count, BlockAccumulator& accumulator) {
  constexpr int64_t kStepElements = static_cast<int64_t>(kStep * BlockAccumulator::kLanes);
  BlockAccumulator local = accumulator;
  bool open = false;
  for (; i + kStepElements <= count; i += kStepElements) {
    const auto results = eval.template SumsAt<kStep>(i, &open);
    if (HWY_UNLIKELY(open)) break;
    local.AddSums<kStep>(results.sum);
  }
  local.BoundsFromSums(math::kLossTerm32Bound);
  for (; i + kStepElements <= count; i += kStepElements) {
    const auto results = eval.template SumsAt<kStep>(i);
    local.AddStep<kStep>(results.sum, results.bound);
  }
  accumulator = local;
  return i;
}

// Elements from i in steps of kStep float vectors while a whole step fits and is a whole number
// of 16-element groups; vector j of a step adds into accumulator group j % kGroups, which keeps
// the block order. Returns where it stopped. Flattened: GCC's inliner otherwise stops short of
// the formulas on 4-vector values, and passes them through memory (a third slower); but not
// under the sanitizers, whose checks make the flattened function take minutes to compile.
template <size_t kStep, class Eval>
OPENACLNN_FLATTEN int64_t RunSteps(const Eval& eval, int64_t i, int64_t count,
                                   const TileSinks& sinks, BlockAccumulator& accumulator) {
  constexpr size_t kLanes = BlockAccumulator::kLanes;
  constexpr int64_t kStepElements = static_cast<int64_t>(kStep * kLanes);
  static_assert(kStepElements % 16 == 0, "a step must be whole 16-element groups");
  const Targets& targets = eval.targets;
  if constexpr (Eval::kSumsIn32 && !Eval::kWithGradient) {
    if (!targets.store_value) return RunSums32<kStep>(eval, i, count, accumulator);
  }
  // A copy whose address never escapes can stay in registers, where the caller's would be loaded
  // and stored on every step.
  BlockAccumulator local = accumulator;
  for (; i + kStepElements <= count; i += kStepElements) {
    const auto results = eval.template At<kStep>(i);
    for (size_t j = 0; j < kStep; ++j) {
      const int64_t at = i + static_cast<int64_t>(j * kLanes);
      if (targets.store_value) {
        Store<Eval::kStoredAs>(sinks.output, at, results.value[j]);
      }
      if (Eval::kWithGradient) {
        Store<Eval::kStoredAs>(sinks.gradient, at, results.gradient[j]);
      }
    }
    if (targets.sum) local.AddStep<kStep>(results.sum, results.bound);
  }
  accumulator = local;
  return i;
}

template <LossKind kKind, bool kFused, bool kUnweighted, bool kFast32,
          Uniform kUniform = Uniform::kAny>
Partial RunTileOf(double gradient_scale, const TileInputs& inputs, int64_t count,
                  const TileSinks& sinks, const Targets& targets, TileStaging& staging) {
  using Eval = Evaluator<kKind, kFused, kUnweighted, kFast32, kUniform>;
  const Eval eval{
      StageInputs<typename Eval::SourceT>(kKind, kFused, kUnweighted, inputs, count, staging),
      count, gradient_scale, targets};
  constexpr size_t kGroups = BlockAccumulator::kGroups;
  BlockAccumulator accumulator;
  // Two float vectors (4 fp64 parts) side by side (8 parts spill on AVX-512, and AVX2 has half
  // its registers); more where vectors are so narrow that a 16-element group needs more.
  constexpr size_t kStep = kGroups > 2 ? kGroups : 2;
  const int64_t i = RunSteps<kStep>(eval, 0, count, sinks, accumulator);
  Partial lanes[16];
  accumulator.StoreLanes(lanes);
  RunRemainder<kStep>(eval, i, count, sinks, lanes);
  return FoldLanes(lanes);
}

inline bool Is16Bit(FloatType type) { return type != FloatType::kFloat32; }

// The type every operand the kind reads and every output it stores lies in memory as, where they
// share one: each read operand contiguous, none splat or absent (those are staged in fp32).
inline Uniform UniformOf(LossKind kind, bool fused, bool unweighted, const TileInputs& inputs,
                         const TileSinks& sinks, const Targets& targets) {
  const FloatType type = inputs.operand[kSelf].StoredAs();
  for (int which = kSelf; which < kOut; ++which) {
    if (!Reads(kind, fused, unweighted, which)) continue;
    const TileOperand& operand = inputs.operand[which];
    if (operand.data == nullptr || operand.splat || operand.StoredAs() != type) {
      return Uniform::kAny;
    }
  }
  if (targets.store_value && sinks.output.StoredAs() != type) return Uniform::kAny;
  if (fused && sinks.gradient.StoredAs() != type) return Uniform::kAny;
  return type == FloatType::kFloat16    ? Uniform::kFloat16
         : type == FloatType::kBFloat16 ? Uniform::kBFloat16
                                        : Uniform::kFloat32;
}

template <LossKind kKind, bool kFused, bool kUnweighted>
Partial RunTileWeighted(double gradient_scale, const TileInputs& inputs, int64_t count,
                        const TileSinks& sinks, bool sum, TileStaging& staging) {
  const Targets targets{sinks.output.data != nullptr, sum && kKind == LossKind::kLoss,
                        sinks.output.type, sinks.gradient.type};
  // Stored 16-bit results of 16-bit logits are formed in fp32 lanes (kFast32), with a rounding
  // test per lane: the fp32 transcendentals' errors are measured over every 16-bit |x|
  // (bce_error_budget.h: kExpError32, kLog1pExpError32). The fused pass takes them into the fp64
  // formulas instead; the target gradient without weights needs none (exact_target below; otherwise
  // the fp64 path rounds it once from fp64, or by the interval test).
  // A mean or sum with fp32 terms (SumsFp32Terms: BceLossTerm32) takes kFast32, which forms them;
  // any other adds the fp64 terms of the fp64 evaluator.
  const bool x16 = Is16Bit(inputs.operand[kSelf].type);
  const bool sum32 =
      SumsFp32Terms(inputs.operand[kSelf].type, targets.value_type, kFused, targets.gradient_type);
  // The target gradient without weights for a power-of-two scale, -x*g*scale in fp32: to an fp32
  // result of any operand types; to a 16-bit one only of 16-bit logits and gradOutput, whose
  // product fp32 holds exactly (an fp32 one would be rounded twice).
  constexpr bool kExactTarget = kKind == LossKind::kGradTarget && kUnweighted;
  const bool exact_target =
      kExactTarget && targets.store_value && IsPowerOfTwo(gradient_scale) &&
      (targets.value_type == FloatType::kFloat32 ||
       (x16 && Is16Bit(targets.value_type) && Is16Bit(inputs.operand[kGradOutput].type)));
  const bool store32 = !kExactTarget && targets.store_value && x16 && Is16Bit(targets.value_type) &&
                       (!kFused || Is16Bit(targets.gradient_type));
  const bool fast32 = targets.sum ? sum32 : store32 || exact_target;
  if (fast32) {
    const auto run = [&](auto uniform) {
      return RunTileOf<kKind, kFused, kUnweighted, true, decltype(uniform)::value>(
          gradient_scale, inputs, count, sinks, targets, staging);
    };
    using enum Uniform;
    switch (UniformOf(kKind, kFused, kUnweighted, inputs, sinks, targets)) {
      case kFloat16:
        return run(std::integral_constant<Uniform, kFloat16>{});
      case kBFloat16:
        return run(std::integral_constant<Uniform, kBFloat16>{});
      case kFloat32:  // only the exact target gradient takes kFast32 with fp32 logits
        if constexpr (kExactTarget) return run(std::integral_constant<Uniform, kFloat32>{});
        [[fallthrough]];
      default:
        return run(std::integral_constant<Uniform, kAny>{});
    }
  }
  return RunTileOf<kKind, kFused, kUnweighted, false>(gradient_scale, inputs, count, sinks, targets,
                                                      staging);
}

template <LossKind kKind, bool kFused = false>
Partial RunTile(double gradient_scale, const TileInputs& inputs, int64_t count,
                const TileOutput& output, bool sum, TileStaging& staging,
                const TileOutput& gradient = {}) {
  const TileSinks sinks{output, gradient};
  const bool unweighted =
      inputs.operand[kWeight].data == nullptr && inputs.operand[kPosWeight].data == nullptr;
  return unweighted ? RunTileWeighted<kKind, kFused, true>(gradient_scale, inputs, count, sinks,
                                                           sum, staging)
                    : RunTileWeighted<kKind, kFused, false>(gradient_scale, inputs, count, sinks,
                                                            sum, staging);
}
