#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <system_error>
#include <utility>
#include <vector>

#include "runtime/context.h"
#include "runtime/fork.h"
#include "runtime/handle_registry.h"
#include "runtime/log.h"
#include "runtime/report.h"
#include "runtime/spin.h"
#include "runtime/stream_impl.h"

namespace openaclnn {
namespace {

constexpr size_t kInitialRingSize = 64;
// How long process exit waits for tasks that are running at that moment.
constexpr std::chrono::milliseconds kExitGrace{500};

void RepairStreamsInChild();

HandleRegistry<Stream>& Streams() {
  // Never destroyed: workers and the exit handler use it while statics are being torn down.
  static auto* registry = [] {
    auto* created = new HandleRegistry<Stream>(0x5354);  // "ST"
    RepairInForkedChild(ForkRepair::kStreams, RepairStreamsInChild);
    return created;
  }();
  return *registry;
}

void RepairStreamsInChild() {
  for (Stream* stream : Streams().All()) stream->AfterForkInChild();
}

// A parent's worker, in a child of fork(): its std::thread can be neither joined (that would
// wait forever for a thread that does not exist here) nor destroyed (it is joinable). Kept here,
// reachable, for the child's life.
void Orphan(std::thread&& worker) {
  static auto* orphans = new std::vector<std::thread>;
  orphans->push_back(std::move(worker));
}

// A program may exit without destroying its streams (or even synchronizing them). Stop the
// workers before the rest of the process is torn down: queued work is dropped, running work gets
// a short grace period, and a worker stuck in a user callback is detached rather than joined.
void StopStreamsAtExit() {
  const auto grace = std::chrono::steady_clock::now() + kExitGrace;
  for (Stream* stream : Streams().All()) {
    if (!stream->Abandon(grace)) {
      Log(LogLevel::kWarning, "a stream was still running a task at process exit");
    }
  }
}

void RegisterExitHandlerOnce() {
  static const bool registered = [] {
    std::atexit(StopStreamsAtExit);
    return true;
  }();
  (void)registered;
}

}  // namespace

Stream::Stream(Context* context, bool is_default)
    : context_(context),
      is_default_(is_default),
      device_(GetDevice(context->device)),
      native_(device_->CreateQueue()),
      ring_(kInitialRingSize) {
  if (native_ == nullptr) StartWorker();
}

void Stream::StartWorker() {
  worker_ = std::thread([this] { Run(); });
  worker_id_ = worker_.get_id();
  has_worker_ = true;
}

void Stream::AfterForkInChild() {
  if (native_ != nullptr) return;  // a device queue is the device's (docs/contract/runtime.md)
  ForgetParentThreads();
  for (const Task& task : TakeQueued()) task.Dropped();
  // The parent's queued and running work never runs here: done, as far as the child can wait.
  completed_.store(submitted_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  if (stop_) return;  // the parent was stopping it (process exit): it takes no more work
  try {
    StartWorker();
  } catch (const std::system_error& error) {
    Log(LogLevel::kWarning, "no stream worker in the forked child (%s): work runs on the caller",
        error.what());
  }
}

void Stream::ForgetParentThreads() {
  // Made anew, not destroyed: destroying a lock that a vanished thread held is undefined.
  new (&mu_) std::mutex;
  new (&work_cv_) std::condition_variable;
  new (&done_cv_) std::condition_variable;
  if (worker_.joinable()) Orphan(std::move(worker_));
  has_worker_ = false;
  worker_sleeping_ = running_here_ = exited_ = false;
  sync_waiters_.store(0, std::memory_order_relaxed);
}

std::vector<Task> Stream::TakeQueued() {
  std::vector<Task> taken;
  taken.reserve(count_);
  for (; count_ > 0; --count_, head_ = (head_ + 1) % ring_.size()) taken.push_back(ring_[head_]);
  queued_.store(0, std::memory_order_release);
  return taken;
}

void Stream::Push(const Task& task) {
  if (!has_worker_) {  // only in a forked child that could not start one: nothing is queued
    submitted_.fetch_add(1, std::memory_order_release);
    task();
    return Finish();
  }
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    PushLocked(task);
    wake = worker_sleeping_ && !running_here_;
  }
  if (wake) work_cv_.notify_one();
}

void Stream::PushLocked(const Task& task) {
  if (count_ == ring_.size()) Grow();
  ring_[(head_ + count_) % ring_.size()] = task;
  ++count_;
  queued_.store(count_, std::memory_order_release);
  submitted_.fetch_add(1, std::memory_order_release);
}

void Stream::RunHereOrPush(const Task& task) {
  bool here;
  {
    std::lock_guard<std::mutex> lock(mu_);
    here = count_ == 0 && !running_here_ && !stop_ && Idle();
    if (here) {
      running_here_ = true;
      submitted_.fetch_add(1, std::memory_order_release);
    }
  }
  if (!here) return Push(task);
  task();
  Finish();
  std::lock_guard<std::mutex> lock(mu_);
  running_here_ = false;
  // The worker may be waiting for this, with work queued meanwhile or a stop; with neither, its
  // wait would go on, and waking it for nothing costs a system call here and a context switch
  // there on every small call. Notified under the lock: once it is released, a concurrent
  // aclrtDestroyStream may free the stream.
  if (worker_sleeping_ && (count_ != 0 || stop_)) work_cv_.notify_one();
}

void Stream::RecordFault(const char* text) {
  std::lock_guard<std::mutex> lock(fault_mu_);
  if (faulted_) return;
  faulted_ = true;
  std::snprintf(fault_, sizeof fault_, "%s", text);
}

bool Stream::TakeFault(char (&text)[kFaultTextSize]) {
  std::lock_guard<std::mutex> lock(fault_mu_);
  if (!faulted_) return false;
  faulted_ = false;
  std::memcpy(text, fault_, sizeof fault_);
  return true;
}

void Stream::Grow() {
  std::vector<Task> bigger(ring_.size() * 2);
  for (size_t i = 0; i < count_; ++i) bigger[i] = ring_[(head_ + i) % ring_.size()];
  ring_.swap(bigger);
  head_ = 0;
}

void Stream::Run() {
  Task task;
  while (Take(&task)) {
    task();
    Finish();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    exited_ = true;
  }
  done_cv_.notify_all();
}

bool Stream::Take(Task* task) {
  // Poll first: work queued within a few tens of microseconds is picked up without a wake-up.
  SpinUntil([this] { return queued_.load(std::memory_order_acquire) != 0; });
  std::unique_lock<std::mutex> lock(mu_);
  const auto may_take = [this] { return !running_here_ && (count_ != 0 || stop_); };
  if (!may_take()) {
    worker_sleeping_ = true;
    work_cv_.wait(lock, may_take);
    worker_sleeping_ = false;
  }
  if (abandon_ || count_ == 0) return false;
  *task = ring_[head_];
  head_ = (head_ + 1) % ring_.size();
  --count_;
  queued_.store(count_, std::memory_order_release);
  return true;
}

void Stream::Finish() {
  // seq_cst on both sides (here and in WaitUntilCompleted) guarantees that either this thread
  // sees the waiter or the waiter sees the new count, so no wake-up is lost.
  completed_.fetch_add(1, std::memory_order_seq_cst);
  if (sync_waiters_.load(std::memory_order_seq_cst) > 0) {
    { std::lock_guard<std::mutex> lock(mu_); }
    done_cv_.notify_all();
  }
}

bool Stream::Synchronize(int64_t timeout_ms) {
  if (native_ != nullptr) return device_->SynchronizeQueue(native_, timeout_ms);
  return WaitUntilCompleted(submitted_.load(std::memory_order_acquire), timeout_ms);
}

bool Stream::WaitUntilCompleted(uint64_t target, int64_t timeout_ms) {
  const auto done = [&] { return completed_.load(std::memory_order_seq_cst) >= target; };
  if (done() || SpinUntil(done)) return true;
  std::unique_lock<std::mutex> lock(mu_);
  sync_waiters_.fetch_add(1, std::memory_order_seq_cst);
  bool finished = true;
  if (timeout_ms < 0) {
    done_cv_.wait(lock, done);
  } else {
    finished = done_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), done);
  }
  sync_waiters_.fetch_sub(1, std::memory_order_seq_cst);
  return finished;
}

bool Stream::Idle() const {
  if (native_ != nullptr) return device_->QueueIdle(native_);
  return completed_.load(std::memory_order_acquire) == submitted_.load(std::memory_order_acquire);
}

void Stream::Drain() {
  if (native_ != nullptr) {
    device_->SynchronizeQueue(native_, -1);
    device_->DestroyQueue(std::exchange(native_, nullptr));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_one();
  if (worker_.joinable()) worker_.join();
}

bool Stream::Abandon(std::chrono::steady_clock::time_point grace) {
  if (native_ != nullptr) {  // the device finishes what it already started, then frees it
    device_->DestroyQueue(std::exchange(native_, nullptr));
    return true;
  }
  std::unique_lock<std::mutex> lock(mu_);
  stop_ = true;
  abandon_ = true;
  work_cv_.notify_one();
  // The worker takes nothing more: what is queued is let go here (references released, event
  // records completed), outside the lock, since letting go may free other objects.
  const std::vector<Task> dropped = TakeQueued();
  lock.unlock();
  for (const Task& task : dropped) task.Dropped();
  // Dropped counts as done for anyone synchronizing with the dying stream.
  completed_.fetch_add(dropped.size(), std::memory_order_seq_cst);
  lock.lock();
  done_cv_.notify_all();
  if (!worker_.joinable()) return true;
  const bool self = OnWorkerThread();
  const bool exited = !self && done_cv_.wait_until(lock, grace, [this] { return exited_; });
  lock.unlock();
  if (exited) {
    worker_.join();
  } else {
    worker_.detach();
  }
  return exited;
}

Stream* CreateStream(Context* context, bool is_default) {
  RegisterExitHandlerOnce();
  auto* stream = new Stream(context, is_default);
  try {
    stream->handle = Streams().Add(stream);
  } catch (...) {
    stream->Drain();
    delete stream;
    throw;
  }
  return stream;
}

Stream* LookupStream(const void* handle) { return Streams().Find(handle); }

bool UnregisterStream(Stream* stream) { return Streams().Remove(stream->handle) != nullptr; }

std::vector<Stream*> AllStreams() { return Streams().All(); }

Stream* FindStream(aclrtStream handle, aclError* status) {
  if (handle == nullptr) {
    Context* context = CurrentContext();
    *status = context == nullptr ? ACL_ERROR_RT_CONTEXT_NULL : ACL_SUCCESS;
    return context == nullptr ? nullptr : context->default_stream;
  }
  Stream* stream = LookupStream(handle);
  *status = stream == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS;
  return stream;
}

aclError ResolveStream(const char* func, aclrtStream handle, Stream** stream) {
  aclError status = ACL_SUCCESS;
  *stream = FindStream(handle, &status);
  if (status == ACL_SUCCESS) return ACL_SUCCESS;
  if (handle == nullptr) {
    return ReportFailure(status, kRuntimeParamError,
                         "%s: the NULL stream means the current context's default stream, but this "
                         "thread has no current context. Reason: call aclrtSetDevice first.",
                         func);
  }
  return ReportInvalid(status, func, "stream", PointerText(handle),
                       "it is not a live stream (never created, or already destroyed)");
}

void* NativeQueue(const Stream* stream) { return stream->native(); }

DeviceError CopyAsync(Stream* stream, void* dst, const void* src, size_t bytes) {
  Device* device = stream->device();
  if (stream->native() != nullptr) return device->CopyAsync(stream->native(), dst, src, bytes);
  stream->Push(Task([device, dst, src, bytes] { device->Copy(dst, src, bytes); }));
  return nullptr;
}

DeviceError FillAsync(Stream* stream, void* dst, unsigned char value, size_t bytes) {
  Device* device = stream->device();
  if (stream->native() != nullptr) return device->FillAsync(stream->native(), dst, value, bytes);
  stream->Push(Task([device, dst, value, bytes] { device->Fill(dst, value, bytes); }));
  return nullptr;
}

DeviceError CallbackAsync(Stream* stream, void (*fn)(void*), void* data) {
  if (stream->native() != nullptr)
    return stream->device()->HostCallback(stream->native(), fn, data);
  stream->Push(Task([fn, data] { fn(data); }));
  return nullptr;
}

void Enqueue(Stream* stream, const Task& task) { stream->Push(task); }

void RunOrEnqueue(Stream* stream, const Task& task) { stream->RunHereOrPush(task); }

void RecordFault(Stream* stream, const char* text) { stream->RecordFault(text); }

}  // namespace openaclnn
