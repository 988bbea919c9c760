// EvaluateTile in SIMD: the element math's and BCE's formulas (kernels/bce_math.h) instantiated
// with a Highway vector policy, compiled once per target and chosen at run time. Every operation is
// the IEEE operation the scalar policy performs, so each lane gets the scalar path's bits; only
// targets with a native fused multiply-add run this code, the others run EvaluateTileScalar.

// SSSE3/SSE4 have no FMA; SVE vectors are sizeless (no operators, no arrays of vectors); RVV
// likewise. Those CPUs take the scalar path.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "backends/cpu/strided.h"
#include "backends/cpu/tile_math.h"
#include "kernels/bce_element.h"
#include "kernels/bce_exact.h"
#include "kernels/bce_math.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/tile_math_simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

// RunSteps is flattened for speed, except under the sanitizers (see there).
#ifndef OPENACLNN_FLATTEN
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OPENACLNN_FLATTEN
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OPENACLNN_FLATTEN
#endif
#endif
#ifndef OPENACLNN_FLATTEN
#define OPENACLNN_FLATTEN HWY_FLATTEN
#endif
#endif

#ifndef OPENACLNN_TILE_STAGING_DEFINED
#define OPENACLNN_TILE_STAGING_DEFINED
namespace openaclnn {
// A thread's fp32 copies of the operands of a tile that do not lie in memory as contiguous fp32
// (tile_simd-inl.h: StageInputs).
struct TileStaging {
  alignas(64) float operand[kOut][kReductionBlock];
};
}  // namespace openaclnn
#endif

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {

// Highway says per target whether its MulAdd is one fused operation (HWY_NATIVE_FMA): only then
// do the lanes get the scalar code's bits.
#if HWY_NATIVE_FMA
namespace hn = hwy::HWY_NAMESPACE;

#include "backends/cpu/tile_simd-inl.h"

Partial EvaluateTileImpl(LossKind kind, double gradient_scale, const TileInputs& inputs,
                         int64_t count, const TileOutput& output, bool sum,
                         const TileOutput& gradient, TileStaging& staging) {
  switch (kind) {
    case LossKind::kLoss:
      if (gradient.data != nullptr) {
        return RunTile<LossKind::kLoss, true>(gradient_scale, inputs, count, output, sum, staging,
                                              gradient);
      }
      return RunTile<LossKind::kLoss>(gradient_scale, inputs, count, output, sum, staging);
    case LossKind::kGradSelf:
      return RunTile<LossKind::kGradSelf>(gradient_scale, inputs, count, output, sum, staging);
    default:
      return RunTile<LossKind::kGradTarget>(gradient_scale, inputs, count, output, sum, staging);
  }
}

const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

void SettlesLossBitsImpl(FloatType type, LossBitTest test, const double* values, int64_t count,
                         bool* settled, float* rounded) {
  // One value at a time, in every lane: the tests decide whole vectors.
  for (int64_t i = 0; i < count; ++i) {
    const V64 value = hn::Set(D64(), values[i]);
    V result;
    if (test != LossBitTest::kFp64) {  // fp32 values, 16-bit types: FastLoss16Of's test
      const V value32 = hn::Set(D(), static_cast<float>(values[i]));
      const Grid grid = GridOf(type);
      const bool fp16 = type == FloatType::kFloat16;
      result = HwyOpsOf<D>::RoundToGrid(value32, grid.precision, grid.min_exponent);
      settled[i] =
          hn::AllTrue(D(), test == LossBitTest::kFp32Unweighted
                               ? FarFrom16Boundaries32<kLoss32Reach32>(value32, fp16)
                               : FarFrom16Boundaries32<kWeightedLoss32Reach32>(value32, fp16));
    } else if (type == FloatType::kFloat32) {
      result = Narrow(value, value);
      settled[i] = hn::AllTrue(D64(), FarFromBoundaries<24, kLossReach>(value)) &&
                   hn::AllTrue(D(), InNormalRange(result, kFp32LeastNormalBits, kFp32InfinityBits));
    } else {
      settled[i] = SettledOnGrid16(value, value, type, FarFrom16Boundaries, &result);
    }
    rounded[i] = hn::GetLane(result);
  }
}

#else  // no fused multiply-add on this target: the scalar code gives the defined bits

Partial EvaluateTileImpl(LossKind kind, double gradient_scale, const TileInputs& inputs,
                         int64_t count, const TileOutput& output, bool sum,
                         const TileOutput& gradient, TileStaging& /*staging*/) {
  return EvaluateTileScalar(kind, gradient_scale, inputs, count, output, sum, gradient);
}

const char* TargetNameImpl() { return "scalar"; }

void SettlesLossBitsImpl(FloatType /*type*/, LossBitTest /*test*/, const double* /*values*/,
                         int64_t count, bool* settled, float* rounded) {
  for (int64_t i = 0; i < count; ++i) {  // no SIMD evaluator, no bit test
    settled[i] = false;
    rounded[i] = 0.0f;
  }
}

#endif

}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn {

HWY_EXPORT(EvaluateTileImpl);
HWY_EXPORT(TargetNameImpl);
HWY_EXPORT(SettlesLossBitsImpl);

Partial EvaluateTile(LossKind kind, double gradient_scale, const TileInputs& inputs, int64_t count,
                     const TileOutput& output, bool sum, const TileOutput& gradient) {
  thread_local TileStaging staging;
  return HWY_DYNAMIC_DISPATCH(EvaluateTileImpl)(kind, gradient_scale, inputs, count, output, sum,
                                                gradient, staging);
}

const char* EvaluateTileTarget() { return HWY_DYNAMIC_DISPATCH(TargetNameImpl)(); }

void SettlesLossBits(FloatType type, const double* values, int64_t count, bool* settled,
                     float* rounded, LossBitTest test) {
  HWY_DYNAMIC_DISPATCH(SettlesLossBitsImpl)(type, test, values, count, settled, rounded);
}

}  // namespace openaclnn
#endif  // HWY_ONCE
