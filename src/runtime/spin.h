// Brief busy-waiting before blocking. Waking a thread parked on a condition variable costs tens of
// microseconds on the machines we run on, while stream work often finishes within that time, so
// both stream workers and synchronizing callers first poll for a short while.
#pragma once

#include <chrono>
#include <thread>

namespace openaclnn {

// How long a waiter polls before it parks on a condition variable.
inline constexpr std::chrono::microseconds kSpinBudget{40};
inline constexpr std::chrono::microseconds kSpinWithoutYield{10};

// Tells the CPU this is a spin loop (saves power, frees the sibling hyper-thread).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::this_thread::yield();
#endif
}

// Polls `ready` for up to kSpinBudget; true as soon as it holds. Yields now and then so that on a
// machine with few cores the thread being waited for still gets to run.
// The first few microseconds spin without yielding: a yield is a system call that can cost a
// microsecond itself, as long as a small call's whole kernel.
template <class Predicate>
bool SpinUntil(Predicate&& ready) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned round = 1;; ++round) {
    if (ready()) return true;
    if (round % 16 == 0) {
      const auto waited = std::chrono::steady_clock::now() - start;
      if (waited >= kSpinBudget) return false;
      if (waited >= kSpinWithoutYield) std::this_thread::yield();
    } else {
      CpuRelax();
    }
  }
}

}  // namespace openaclnn
