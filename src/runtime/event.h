// Events: markers recorded into streams. Each record gets a sequence number; on a host-worker
// stream the marker task stamps the time and marks that record complete when the stream reaches
// it. On a device with native events (CUDA) the device's event does that, and this object keeps
// the handle, the flags and whether it was ever recorded.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace openaclnn {

class Event {
 public:
  using Clock = std::chrono::steady_clock;

  struct State {
    bool recorded;            // aclrtRecordEvent was called at least once
    bool complete;            // the latest record has been reached by its stream
    Clock::time_point stamp;  // when the latest record completed
  };

  explicit Event(uint32_t flags) : flags_(flags) {}

  // Starts a new record and returns its sequence number; the caller queues Complete(sequence).
  uint64_t BeginRecord();
  void Complete(uint64_t sequence);
  // The sequence of the latest record, 0 when never recorded.
  uint64_t Latest();
  // Blocks (spinning briefly first) until record `sequence` is complete.
  void WaitFor(uint64_t sequence);
  State Snapshot();
  // In a child of fork(): forgets the parent's threads that held or waited on this event.
  void AfterForkInChild();

  // Queued tasks hold a reference, so aclrtDestroyEvent may run before its records complete.
  void Retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Release() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  uint32_t flags() const { return flags_; }
  void* handle = nullptr;
  class Device* device = nullptr;  // the device of the context it was created in
  void* native = nullptr;          // that device's own event; nullptr on the CPU

 private:
  ~Event() = default;

  const uint32_t flags_;
  std::atomic<int> refs_{1};
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t recorded_ = 0;               // guarded by mu_
  std::atomic<uint64_t> completed_{0};  // highest completed record; written under mu_
  Clock::time_point stamp_{};           // guarded by mu_
  int waiters_ = 0;                     // guarded by mu_
};

// The live-event table.
void* RegisterEvent(Event* event);
Event* LookupEvent(const void* handle);
Event* UnregisterEvent(const void* handle);

}  // namespace openaclnn
