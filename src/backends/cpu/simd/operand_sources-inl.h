// How the evaluators read their input operands: a Source per operand, contiguous fp32 in place or
// staged, or (NarrowSource) any float type widened as it is loaded.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <array>
#include <cstdint>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_OPERAND_SOURCES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_OPERAND_SOURCES_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_OPERAND_SOURCES_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_OPERAND_SOURCES_INL_H_
#endif

#include "backends/cpu/simd/lanes-inl.h"
#include "backends/cpu/simd/tile_staging.h"
#include "backends/cpu/strided.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

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
inline V LoadWidened(const void* data, FloatType type, int64_t i) {
  return type == FloatType::kFloat16 ? LoadAs<FloatType::kFloat16>(data, i)
                                     : LoadAs<FloatType::kBFloat16>(data, i);
}

// The one in-memory type of every operand an fp32-lane evaluator reads and of the outputs it
// stores, where they share one (SharedTypeOf); kMixed: each its own, read and stored with a branch
// on it per vector (in the fp16 self gradient 13% of its time).
enum class SharedType { kMixed, kFloat32, kFloat16, kBFloat16 };
constexpr FloatType TypeOf(SharedType shared) {
  return shared == SharedType::kFloat16    ? FloatType::kFloat16
         : shared == SharedType::kBFloat16 ? FloatType::kBFloat16
                                           : FloatType::kFloat32;
}

// A Source of any float type, widened as it is loaded: the operands of the fp32-lane evaluators
// (but the fused pass with weights: Fp32LaneSource), whose 16-bit inputs staged in
// fp32 first cost a sixth of their time (three 16 KiB buffers written, which with the inputs do
// not fit L1). The type is the same for every load of a tile: its branch is always predicted.
template <SharedType kShared>
struct NarrowSource {
  static constexpr bool kNarrow = true;
  const void* data = nullptr;
  FloatType type = FloatType::kFloat32;

  V Load(int64_t i) const {
    if constexpr (kShared != SharedType::kMixed) {
      return LoadAs<TypeOf(kShared)>(data, i);
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
inline void StageOperand(const TileOperand& operand, int64_t count, float* staged) {
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

// Which input operands a kind reads (self always): the one statement that loading (Load,
// ElementAt), staging (StageInputs) and the choice of a shared type (SharedTypeOf) follow. The
// target gradient does not read the target, the loss (unless fused with the self gradient) not
// gradOutput; weight and pos_weight are not read when both are absent (`unweighted`). A family
// without a pos_weight operand reads it nowhere (WithoutPosWeight).
struct OperandsRead {
  bool target, grad_output, weight, pos_weight;
  constexpr bool Of(int which) const {
    return which == kTarget       ? target
           : which == kGradOutput ? grad_output
           : which == kWeight     ? weight
           : which == kPosWeight  ? pos_weight
                                  : true;
  }
};
constexpr OperandsRead OperandsReadBy(LossKind kind, bool fused, bool unweighted) {
  return {kind != LossKind::kGradTarget, kind != LossKind::kLoss || fused, !unweighted,
          !unweighted};
}
constexpr OperandsRead WithoutPosWeight(OperandsRead reads) {
  return {reads.target, reads.grad_output, reads.weight, false};
}

// The operands a kind reads, each as a contiguous fp32 Source: in place where it is one, else
// staged (StageOperand). A NarrowSource reads every contiguous operand in place, whatever its type.
template <class SourceT>
std::array<SourceT, kOut> StageInputs(OperandsRead reads, const TileInputs& in, int64_t count,
                                      TileStaging& staging) {
  constexpr bool kNarrow = SourceT::kNarrow;
  std::array<SourceT, kOut> sources;
  for (int which = kSelf; which < kOut; ++which) {
    if (!reads.Of(which)) continue;
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

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_OPERAND_SOURCES_INL_H_
