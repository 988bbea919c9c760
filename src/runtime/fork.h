// fork() copies the process with only the calling thread. A lock that another thread held at
// that moment would stay held in the child forever, and worker threads (streams, the kernel
// pool) are gone there. The library's locks are therefore held by the forking thread across
// fork(), taken in rank order (the order in which the library nests them, so taking them all
// cannot deadlock against a call in progress), and released on both sides; modules then repair
// in the child what threads owned (see docs/contract/runtime.md §3, fork).
#pragma once

#include <mutex>

namespace openaclnn {

// Lower ranks are taken first: a lock that is ever held while another is taken ranks lower.
enum class ForkRank {
  kInit = 0,     // aclInit/aclFinalize's state
  kRuntime = 1,  // RuntimeMutex: devices, contexts, stream lists
  kTable = 2,    // leaf tables: handle and object registries, memory, parameters
};

// Holds `mutex` across fork() from now on; ReleaseFromFork undoes it (for a mutex about to be
// destroyed). Both are safe to call from any thread.
void HoldAcrossFork(std::mutex* mutex, ForkRank rank);
void ReleaseFromFork(std::mutex* mutex);

// What is repaired in a child, in this order: events first, since dropping a stream's queued
// work completes the event records in it.
enum class ForkRepair { kEvents = 0, kStreams = 1, kThreadPool = 2, kCount = 3 };

// Runs `repair` in every child of fork(), after the locks are released.
void RepairInForkedChild(ForkRepair what, void (*repair)());

}  // namespace openaclnn
