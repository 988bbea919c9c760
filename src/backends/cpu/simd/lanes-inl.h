// Lane plumbing between float vectors and their fp64 halves: widening, narrowing (rounded once or
// directed), and the kStep-vector arrays a step works on.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_LANES_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_LANES_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_LANES_INL_H_
#endif

#include "backends/cpu/simd/vector_ops-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The fp64 lanes of each half of a float vector, and back, rounded once.
HWY_INLINE V64 Lower64(V v) { return hn::PromoteTo(D64(), hn::LowerHalf(hn::Half<D>(), v)); }
HWY_INLINE V64 Upper64(V v) { return hn::PromoteTo(D64(), hn::UpperHalf(hn::Half<D>(), v)); }
inline V Narrow(V64 lower, V64 upper) {
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

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_LANES_INL_H_
