// The process-wide pool of threads that share a kernel's blocks with the thread launching it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace openaclnn::cpu {

class ThreadPool {
 public:
  using Task = void (*)(void* context, int worker);

  // Sized by OPENACLNN_NUM_THREADS, else the number of CPUs this process may run on.
  static ThreadPool& Instance();

  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads a Run may use, the calling thread included.
  int threads() const { return threads_.load(std::memory_order_relaxed); }
  // Changes threads() (tests and benchmarks); starts more workers if needed. Not concurrent
  // with Run.
  void SetThreads(int threads);

  // Calls task(context, w) for w in [0, participants) and returns when all calls have returned;
  // the calling thread is worker 0. participants is capped at threads(). Tasks share the work by
  // claiming it as they go, so when another Run is in progress (a second stream) only
  // task(context, 0) runs, here, and does all of it.
  void Run(int participants, Task task, void* context);

 private:
  explicit ThreadPool(int threads);
  static void ReplaceInChild();
  void WorkerLoop(int worker, uint64_t seen);
  void WaitForWork(uint64_t seen);
  void WaitUntilDone();

  std::atomic<int> threads_;
  std::vector<std::thread> workers_;  // worker w is workers_[w - 1]
  std::mutex run_mu_;                 // one Run at a time

  // The current job, published by bumping generation_; pending_ counts the workers that have
  // not yet acknowledged it.
  Task task_ = nullptr;
  void* context_ = nullptr;
  int participants_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};

  // Sleeping after the spin budget: workers wait for a new generation, Run for pending_ == 0.
  std::mutex sleep_mu_;
  std::condition_variable work_cv_, done_cv_;
  std::atomic<int> sleepers_{0};
  std::atomic<bool> caller_sleeping_{false};

  ThreadPool* parent_ = nullptr;  // in a fork()ed child: the parent's pool, kept reachable
};

}  // namespace openaclnn::cpu
