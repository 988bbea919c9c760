// What a step of the evaluators works on and produces: its operands, its results, and how a result
// vector is stored in its output type.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstdint>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_STEP_VALUES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_STEP_VALUES_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_STEP_VALUES_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_STEP_VALUES_INL_H_
#endif

#include "backends/cpu/simd/operand_sources-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// fp32 -> bf16 bits, rounded to nearest even; NaN stays a quiet NaN (as FloatToBFloat16).
inline hn::Vec<hn::Rebind<uint16_t, D>> ToBFloat16(V v) {
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
// The vector's elements to `output` at i, in its type (kShared: that type, known at compile
// time).
template <SharedType kShared = SharedType::kMixed>
void Store(const TileOutput& output, int64_t i, V v) {
  if constexpr (kShared != SharedType::kMixed) {
    StoreAs<TypeOf(kShared)>(output.data, i, v);
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
// Without the fp64 parts, for the fp32-lane evaluators, which never read them.
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

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_STEP_VALUES_INL_H_
