#include "runtime/fork.h"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <cstddef>

namespace openaclnn {
namespace {

struct Held {
  std::mutex* mutex;
  ForkRank rank;
};

// Fixed capacity: the handlers must not allocate, and the library has a known, small number of
// long-lived locks (about fifteen).
constexpr size_t kMaxHeld = 64;

struct Table {
  // Guards the lists below. Registration takes it under other locks (a registry made while
  // RuntimeMutex is held), so Prepare holds it only to copy the list, never while locking.
  std::mutex mu;
  std::array<Held, kMaxHeld> held{};
  size_t count = 0;
  std::array<void (*)(), static_cast<size_t>(ForkRepair::kCount)> repairs{};

  // One fork at a time, from Prepare to Parent/Child; taken nowhere else but ReleaseFromFork,
  // so that a lock is not destroyed while a fork holds it.
  std::mutex fork_mu;
  std::array<std::mutex*, kMaxHeld> holding{};  // what this fork took, in order
  size_t holding_count = 0;
};

void Prepare();
void Parent();
void Child();

Table& TheTable() {
  // Never destroyed: fork() may run while statics are torn down.
  static Table* const table = [] {
    auto* created = new Table;
    pthread_atfork(Prepare, Parent, Child);
    return created;
  }();
  return *table;
}

void Prepare() {
  Table& table = TheTable();
  table.fork_mu.lock();
  {
    std::lock_guard<std::mutex> lock(table.mu);
    for (size_t i = 0; i < table.count; ++i) table.holding[i] = table.held[i].mutex;
    table.holding_count = table.count;
  }
  for (size_t i = 0; i < table.holding_count; ++i) table.holding[i]->lock();
}

void ReleaseAll() {
  Table& table = TheTable();
  for (size_t i = table.holding_count; i-- > 0;) table.holding[i]->unlock();
  table.fork_mu.unlock();
}

void Parent() { ReleaseAll(); }

void Child() {
  ReleaseAll();
  for (void (*repair)() : TheTable().repairs) {
    if (repair != nullptr) repair();
  }
}

}  // namespace

void HoldAcrossFork(std::mutex* mutex, ForkRank rank) {
  Table& table = TheTable();
  std::lock_guard<std::mutex> lock(table.mu);
  // More locks than the library has (see kMaxHeld); not fatal: that lock is merely not held.
  if (table.count == kMaxHeld) return;
  // Kept sorted by rank (stable within a rank): Prepare takes them in this order.
  auto* end = table.held.begin() + table.count;
  auto* at = std::upper_bound(table.held.begin(), end, rank,
                              [](ForkRank r, const Held& held) { return r < held.rank; });
  std::move_backward(at, end, end + 1);
  *at = {mutex, rank};
  ++table.count;
}

void ReleaseFromFork(std::mutex* mutex) {
  Table& table = TheTable();
  std::lock_guard<std::mutex> no_fork(table.fork_mu);
  std::lock_guard<std::mutex> lock(table.mu);
  auto* end = table.held.begin() + table.count;
  auto* at = std::find_if(table.held.begin(), end,
                          [mutex](const Held& held) { return held.mutex == mutex; });
  if (at == end) return;
  std::move(at + 1, end, at);
  --table.count;
}

void RepairInForkedChild(ForkRepair what, void (*repair)()) {
  Table& table = TheTable();
  std::lock_guard<std::mutex> lock(table.mu);
  table.repairs[static_cast<size_t>(what)] = repair;
}

}  // namespace openaclnn
