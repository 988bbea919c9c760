#include "runtime/memory_registry.h"
#include "runtime/fork.h"

#include <functional>
#include <map>
#include <mutex>

namespace openaclnn {
namespace {

struct Table {
  std::mutex mu;
  // Ordered by address, so the block holding an interior address is found by one search.
  std::map<const void*, Allocation, std::less<>> live;
};

Table& Live() {
  static auto* table = [] {
    auto* created = new Table;
    HoldAcrossFork(&created->mu, ForkRank::kTable);
    return created;
  }();
  return *table;
}

}  // namespace

void RememberAllocation(void* address, const Allocation& allocation) {
  Table& table = Live();
  std::lock_guard<std::mutex> lock(table.mu);
  table.live[address] = allocation;
}

TakeResult TakeAllocation(void* address, MemoryKind kind, Allocation* allocation) {
  Table& table = Live();
  std::lock_guard<std::mutex> lock(table.mu);
  const auto found = table.live.find(address);
  if (found == table.live.end()) return TakeResult::kUnknown;
  if (found->second.kind != kind) return TakeResult::kWrongKind;
  *allocation = found->second;
  table.live.erase(found);
  return TakeResult::kTaken;
}

bool FindBlock(const void* address, BlockPosition* position) {
  Table& table = Live();
  std::lock_guard<std::mutex> lock(table.mu);
  auto after = table.live.upper_bound(address);  // the first block starting above `address`
  if (after == table.live.begin()) return false;
  const auto& [start, allocation] = *std::prev(after);
  // std::less orders unrelated pointers too; subtracting them would not be defined.
  const auto offset = reinterpret_cast<uintptr_t>(address) - reinterpret_cast<uintptr_t>(start);
  if (offset >= allocation.bytes) return false;
  *position = {static_cast<size_t>(offset), allocation.bytes};
  return true;
}

}  // namespace openaclnn
