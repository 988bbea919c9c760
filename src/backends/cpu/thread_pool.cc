#include "backends/cpu/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "runtime/fork.h"
#include "runtime/log.h"
#include "runtime/spin.h"

namespace openaclnn::cpu {
namespace {

int AvailableCpus() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
#endif
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

// OPENACLNN_NUM_THREADS, else the CPUs available. More than 4 threads per CPU (64 at least)
// only costs memory and switches, and a huge value once meant creating threads until the system
// refused one: such values are capped, and text that is not a positive integer is ignored, each
// with a warning.
int DefaultThreads() {
  const int cpus = AvailableCpus();
  const char* text = std::getenv("OPENACLNN_NUM_THREADS");
  if (text == nullptr) return cpus;
  char* end = nullptr;
  errno = 0;
  const long requested = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || requested < 1) {
    Log(LogLevel::kWarning, "OPENACLNN_NUM_THREADS=\"%s\" is not a positive integer; using %d",
        text, cpus);
    return cpus;
  }
  const long cap = std::max(4L * cpus, 64L);
  if (errno == ERANGE || requested > cap) {
    Log(LogLevel::kWarning, "OPENACLNN_NUM_THREADS=%s is more than %ld (4 per CPU); using %ld",
        text, cap, cap);
    return static_cast<int>(cap);
  }
  return static_cast<int>(requested);
}

// The pool in use. Never destroyed: stream workers may still run kernels while static objects
// are torn down. A fork()ed child replaces it (ReplaceInChild).
std::atomic<ThreadPool*> current{nullptr};

}  // namespace

ThreadPool& ThreadPool::Instance() {
  static const bool started = [] {
    current.store(new ThreadPool(DefaultThreads()), std::memory_order_release);
    RepairInForkedChild(ForkRepair::kThreadPool, ReplaceInChild);
    return true;
  }();
  (void)started;
  return *current.load(std::memory_order_acquire);
}

// The parent's workers do not exist in a child of fork(), and its locks and condition variables
// may be held or waited on by threads that vanished. The child gets a fresh pool of the same
// size whose workers start with its first parallel Run; the old one stays reachable, unused.
void ThreadPool::ReplaceInChild() {
  ThreadPool* parent = current.load(std::memory_order_relaxed);
  auto* fresh = new ThreadPool(1);
  fresh->threads_.store(parent->threads(), std::memory_order_relaxed);
  fresh->parent_ = parent;
  current.store(fresh, std::memory_order_release);
}

ThreadPool::ThreadPool(int threads) : threads_(1) { SetThreads(threads); }

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_seq_cst);
  generation_.fetch_add(1, std::memory_order_seq_cst);
  { std::lock_guard<std::mutex> lock(sleep_mu_); }
  work_cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::SetThreads(int threads) {
  if (threads < 1) threads = 1;
  while (static_cast<int>(workers_.size()) + 1 < threads) {
    const int worker = static_cast<int>(workers_.size()) + 1;
    // The worker starts from the generation current now, so a job published before the thread
    // gets going is not mistaken for an old one.
    const uint64_t seen = generation_.load(std::memory_order_acquire);
    try {
      workers_.emplace_back([this, worker, seen] { WorkerLoop(worker, seen); });
    } catch (const std::exception& error) {  // std::system_error, or std::bad_alloc
      Log(LogLevel::kWarning, "could start only %d of %d kernel threads (%s); using %d", worker,
          threads, error.what(), worker);
      threads = worker;
    }
  }
  threads_.store(threads, std::memory_order_relaxed);
}

void ThreadPool::Run(int participants, Task task, void* context) {
  if (participants > threads()) participants = threads();
  std::unique_lock<std::mutex> lock(run_mu_, std::try_to_lock);
  if (participants <= 1 || !lock.owns_lock()) {
    task(context, 0);
    return;
  }
  if (static_cast<int>(workers_.size()) + 1 < threads()) {  // a forked child's first Run
    SetThreads(threads());
    participants = std::min(participants, threads());
  }
  task_ = task;
  context_ = context;
  participants_ = participants;
  // Every worker acknowledges every job, taking part or not, so that none is still reading this
  // job's fields when the next Run writes them.
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_seq_cst);  // publishes the job
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    { std::lock_guard<std::mutex> guard(sleep_mu_); }
    work_cv_.notify_all();
  }
  task(context, 0);
  WaitUntilDone();
}

void ThreadPool::WaitUntilDone() {
  const auto done = [this] { return pending_.load(std::memory_order_seq_cst) == 0; };
  if (SpinUntil(done)) return;
  std::unique_lock<std::mutex> lock(sleep_mu_);
  caller_sleeping_.store(true, std::memory_order_seq_cst);
  done_cv_.wait(lock, done);
  caller_sleeping_.store(false, std::memory_order_relaxed);
}

void ThreadPool::WaitForWork(uint64_t seen) {
  const auto changed = [&] { return generation_.load(std::memory_order_seq_cst) != seen; };
  if (SpinUntil(changed)) return;
  std::unique_lock<std::mutex> lock(sleep_mu_);
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  work_cv_.wait(lock, changed);
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
}

void ThreadPool::WorkerLoop(int worker, uint64_t seen) {
  for (;;) {
    WaitForWork(seen);
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    if (worker < participants_) task_(context_, worker);
    // The last one to finish wakes a caller that stopped spinning.
    if (pending_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        caller_sleeping_.load(std::memory_order_seq_cst)) {
      { std::lock_guard<std::mutex> lock(sleep_mu_); }
      done_cv_.notify_all();
    }
  }
}

}  // namespace openaclnn::cpu
