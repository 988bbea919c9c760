// The sums and bounds of a tile's loss terms in registers, in the block order of FoldLanes.
// Re-included once per Highway target (the toggle guard below); defines its code inside
// namespace openaclnn::HWY_NAMESPACE, for targets with a native fused multiply-add only.

#include <cstddef>

#if defined(OPENACLNN_BACKENDS_CPU_SIMD_BLOCK_ACCUMULATOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_BACKENDS_CPU_SIMD_BLOCK_ACCUMULATOR_INL_H_
#undef OPENACLNN_BACKENDS_CPU_SIMD_BLOCK_ACCUMULATOR_INL_H_
#else
#define OPENACLNN_BACKENDS_CPU_SIMD_BLOCK_ACCUMULATOR_INL_H_
#endif

#include "backends/cpu/simd/vector_ops-inl.h"
#include "hwy/highway.h"
#include "kernels/reduction.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::HWY_NAMESPACE {
#if HWY_NATIVE_FMA

// The kBlockLanes lanes of the block order (element i to lane i % kBlockLanes), each a Partial
// (sum and bound), as 2 kBlockLanes/N vectors of N/2 doubles each, N the float lanes: a float
// vector at a multiple of kBlockLanes plus k*N feeds vectors 2k, 2k+1.
class BlockAccumulator {
 public:
  static constexpr size_t kLanes = hn::MaxLanes(D());
  static constexpr size_t kBlock = static_cast<size_t>(kBlockLanes);
  static_assert(kLanes <= kBlock && kBlock % kLanes == 0, "the block order needs N dividing it");
  static constexpr size_t kGroups = kBlock / kLanes;

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
  // A step of kStep float vectors from a multiple of kBlockLanes: vector j into group j % kGroups.
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
    HWY_ALIGN double sums[kBlock], bounds[kBlock];
    for (size_t k = 0; k < 2 * kGroups; ++k) {
      hn::Store(sums_[k], D64(), sums + k * (kLanes / 2));
      hn::Store(bounds_[k], D64(), bounds + k * (kLanes / 2));
    }
    for (size_t lane = 0; lane < kBlock; ++lane) lanes[lane] = {sums[lane], bounds[lane]};
  }

 private:
  V64 sums_[2 * kGroups];
  V64 bounds_[2 * kGroups];
};

#endif  // HWY_NATIVE_FMA
}  // namespace openaclnn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // OPENACLNN_BACKENDS_CPU_SIMD_BLOCK_ACCUMULATOR_INL_H_
