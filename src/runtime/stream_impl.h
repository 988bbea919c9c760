// The Stream object: a FIFO of Tasks drained in order by one worker thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/stream.h"
#include "runtime/task.h"

namespace openaclnn {

struct Context;

class Stream {
 public:
  // Takes the device's native queue, or starts the worker thread where the device has none;
  // throws std::system_error if the system refuses either.
  Stream(Context* context, bool is_default);
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  // Only after Drain() or Abandon() let the worker finish.
  ~Stream() = default;

  void Push(const Task& task);
  // Runs `task` on the calling thread when nothing is queued or running (the order is then the
  // same as queueing it); else pushes it.
  void RunHereOrPush(const Task& task);

  // Waits until all work queued before the call has run. timeout_ms < 0 waits forever; returns
  // false when the time ran out first.
  bool Synchronize(int64_t timeout_ms);
  // True when nothing queued is still pending.
  bool Idle() const;

  // Runs everything queued, then stops and joins the worker (aclrtDestroyStream).
  void Drain();
  // Drops the queued work, lets the running task finish (up to `grace`), then joins the worker,
  // or detaches it if it is still busy. Returns false in the detached case.
  bool Abandon(std::chrono::steady_clock::time_point grace);

  // In a child of fork(): the worker and any thread that held mu_ are gone. Drops what the
  // parent had queued (it counts as completed: the child never runs it) and starts a worker.
  void AfterForkInChild();

  // A task's work failed on the device (a kernel found data it cannot compute with, as an NPU
  // raises an AI Core exception): the first such failure is kept, `text` truncated to fit, until a
  // synchronization reports it (TakeFault).
  void RecordFault(const char* text);
  // Moves the kept failure into `text` and forgets it; false when there is none.
  bool TakeFault(char (&text)[kFaultTextSize]);

  bool OnWorkerThread() const { return std::this_thread::get_id() == worker_id_; }
  Context* context() const { return context_; }
  Device* device() const { return device_; }
  void* native() const { return native_; }
  bool is_default() const { return is_default_; }
  void* handle = nullptr;

 private:
  void Run();
  bool Take(Task* task);
  void Finish();
  void PushLocked(const Task& task);
  void Grow();
  void StartWorker();
  void ForgetParentThreads();
  // Empties the queue (the caller holds mu_, or is a forked child's only thread).
  std::vector<Task> TakeQueued();
  bool WaitUntilCompleted(uint64_t target, int64_t timeout_ms);

  Context* const context_;
  const bool is_default_;
  Device* const device_;
  void* native_ = nullptr;  // the device's own queue; nullptr: the worker below is the queue

  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // the worker waits here for work
  std::condition_variable done_cv_;  // synchronizing callers wait here for completion
  // Ring buffer of pending tasks; it only ever grows, so steady-state queueing never allocates.
  std::vector<Task> ring_;
  size_t head_ = 0;
  size_t count_ = 0;
  bool worker_sleeping_ = false;
  bool running_here_ = false;  // a caller is running a task itself; the worker must not start one
  bool stop_ = false;          // exit once the queue is empty
  bool abandon_ = false;       // exit without running what is queued
  bool exited_ = false;

  std::atomic<size_t> queued_{0};       // mirror of count_ for lock-free polling by the worker
  std::atomic<uint64_t> submitted_{0};  // tasks ever queued
  std::atomic<uint64_t> completed_{0};  // tasks ever finished
  std::atomic<int> sync_waiters_{0};    // callers parked on done_cv_

  std::mutex fault_mu_;
  bool faulted_ = false;
  char fault_[kFaultTextSize] = {};

  std::thread worker_;
  std::thread::id worker_id_;
  // False only in a fork()ed child that could not start a worker: tasks then run on the caller.
  bool has_worker_ = false;
};

// The live-stream table. CreateStream registers (and, for user streams, adds to the context's
// list; the caller holds RuntimeMutex for that); throws std::system_error or std::bad_alloc.
Stream* CreateStream(Context* context, bool is_default);
Stream* LookupStream(const void* handle);
// False when the stream was already unregistered (destroyed by someone else).
bool UnregisterStream(Stream* stream);
std::vector<Stream*> AllStreams();

// FindStream plus the recorded failure message naming `func` (for the acl* entry points).
aclError ResolveStream(const char* func, aclrtStream handle, Stream** stream);

}  // namespace openaclnn
