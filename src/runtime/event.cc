#include "runtime/event.h"

#include <new>

#include "runtime/fork.h"
#include "runtime/handle_registry.h"
#include "runtime/spin.h"

namespace openaclnn {
namespace {

void RepairEventsInChild();

HandleRegistry<Event>& Events() {
  static auto* registry = [] {
    auto* created = new HandleRegistry<Event>(0x4556);  // "EV"
    RepairInForkedChild(ForkRepair::kEvents, RepairEventsInChild);
    return created;
  }();
  return *registry;
}

void RepairEventsInChild() {
  for (Event* event : Events().All()) event->AfterForkInChild();
}

}  // namespace

void Event::AfterForkInChild() {
  // A parent thread may have held mu_ or waited on cv_; neither exists here. Made anew (not
  // destroyed first: destroying a lock held by a vanished thread is undefined).
  new (&mu_) std::mutex;
  new (&cv_) std::condition_variable;
  waiters_ = 0;
}

uint64_t Event::BeginRecord() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++recorded_;
}

void Event::Complete(uint64_t sequence) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Records on different streams may finish out of order; only a newer one moves the stamp.
    if (sequence <= completed_.load(std::memory_order_relaxed)) return;
    stamp_ = Clock::now();
    completed_.store(sequence, std::memory_order_release);
    wake = waiters_ > 0;
  }
  if (wake) cv_.notify_all();
}

uint64_t Event::Latest() {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

void Event::WaitFor(uint64_t sequence) {
  const auto done = [&] { return completed_.load(std::memory_order_acquire) >= sequence; };
  if (SpinUntil(done)) return;
  std::unique_lock<std::mutex> lock(mu_);
  ++waiters_;
  cv_.wait(lock, done);
  --waiters_;
}

Event::State Event::Snapshot() {
  std::lock_guard<std::mutex> lock(mu_);
  return {recorded_ != 0, completed_.load(std::memory_order_relaxed) >= recorded_, stamp_};
}

void* RegisterEvent(Event* event) { return Events().Add(event); }
Event* LookupEvent(const void* handle) { return Events().Find(handle); }
Event* UnregisterEvent(const void* handle) { return Events().Remove(handle); }

}  // namespace openaclnn
