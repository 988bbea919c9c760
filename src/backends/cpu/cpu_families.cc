#include "backends/cpu/cpu_families.h"

#include <concepts>
#include <iterator>

#include "backends/cpu/tile_elements.h"
#include "kernels/loss_families.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

namespace openaclnn::cpu {
namespace {

using EvaluateFn = decltype(CpuFamily::evaluate);

template <class Family>
concept HasIntegerElement = requires(int64_t v) {
  { Family::IntegerElement(v, v) } -> std::same_as<int64_t>;
};

// A family's row: its tile evaluator (a SIMD one where speed asks for it, else the element-at-a-
// time definition) and what the generic code reads of its struct.
template <class Family>
constexpr CpuFamily RowOf(EvaluateFn evaluate = EvaluateTileElements<Family>) {
  int64_t (*integer_element)(int64_t, int64_t) = nullptr;
  if constexpr (HasIntegerElement<Family>) integer_element = Family::IntegerElement;
  return {evaluate,
          ExactTileElementsSum<Family>,
          Family::kTermError,
          Family::TermDenominator,
          Family::SumsFp32Terms,
          integer_element};
}

}  // namespace

const CpuFamily kCpuFamilies[] = {
    RowOf<BceWithLogitsFamily>(EvaluateTile),
    RowOf<BinaryCrossEntropyFamily>(EvaluateBinaryCrossEntropyTile),
};
static_assert(std::size(kCpuFamilies) == kLossFamilyCount, "a row for every family, in order");

}  // namespace openaclnn::cpu
