#include "backends/cpu/cpu_families.h"

#include <concepts>

#include "backends/cpu/tile_elements.h"
#include "kernels/loss_families.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"
#include "losses/kl_div/cpu/kl_div_tile.h"
#include "losses/l1_loss/cpu/l1_loss_tile.h"
#include "losses/mse_loss/cpu/mse_loss_tile.h"

namespace openaclnn::cpu {
namespace {

// A family's tile on the CPU: its element-at-a-time definition, unless a SIMD tile (in the
// family's cpu/ folder) specializes this, one line per family that has one.
template <class Family>
constexpr auto kTileOf = EvaluateTileElements<Family>;
template <>
constexpr auto kTileOf<BceWithLogitsFamily> = EvaluateTile;
template <>
constexpr auto kTileOf<BinaryCrossEntropyFamily> = EvaluateBinaryCrossEntropyTile;
template <>
constexpr auto kTileOf<L1LossFamily> = EvaluateL1LossTile;
template <>
constexpr auto kTileOf<KlDivFamily> = EvaluateKlDivTile;
template <>
constexpr auto kTileOf<MseLossFamily> = EvaluateMseLossTile;

template <class Family>
concept HasIntegerElement = requires(int64_t v) {
  { Family::IntegerElement(v, v) } -> std::same_as<int64_t>;
};

// What the CPU's generic code reads of a family.
template <class Family>
constexpr CpuFamily RowOf() {
  int64_t (*integer_element)(int64_t, int64_t) = nullptr;
  if constexpr (HasIntegerElement<Family>) integer_element = Family::IntegerElement;
  return {kTileOf<Family>,         ExactTileElementsSum<Family>, Family::kTermError,
          Family::TermDenominator, Family::SumsFp32Terms,        integer_element};
}

template <class Family>
constexpr CpuFamily kRow = RowOf<Family>();

}  // namespace

const CpuFamily& CpuFamilyOf(LossFamily family) {
  return WithFamily(family, [](auto each) -> const CpuFamily& { return kRow<decltype(each)>; });
}

}  // namespace openaclnn::cpu
