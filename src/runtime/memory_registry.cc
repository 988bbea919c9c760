#include "runtime/memory_registry.h"

#include <mutex>
#include <unordered_map>

namespace openaclnn {
namespace {

struct Table {
  std::mutex mu;
  std::unordered_map<void*, Allocation> live;
};

Table& Live() {
  static auto* table = new Table;
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

}  // namespace openaclnn
