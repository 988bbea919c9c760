// The CPU backend at the edges: strides that must never be stepped along, and a thread pool that
// the system refuses threads.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <tuple>
#include <vector>

#include "backends/cpu/strided.h"
#include "backends/cpu/thread_pool.h"
#include "kernels/loss_problem.h"

namespace openaclnn {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

using Visit = std::tuple<int64_t, int64_t, int64_t>;  // first element, length, stride

std::vector<Visit> Runs(const StridedOperand& operand, const std::vector<int64_t>& shape,
                        int64_t begin, int64_t count) {
  std::vector<Visit> runs;
  cpu::ForEachRun(operand, shape.data(), static_cast<int>(shape.size()), begin, count,
                  [&](int64_t first, int64_t length, int64_t stride) {
                    runs.emplace_back(first, length, stride);
                  });
  return runs;
}

// UBSan flagged the walker stepping one past the end along a size-1 dimension's huge stride.
TEST(StridedWalker, AHugeStrideOfASizeOneDimensionIsNeverStepped) {
  StridedOperand operand;
  operand.offset = 4;
  operand.strides[0] = kInt64Max - 1;
  EXPECT_EQ(Runs(operand, {1}, 0, 1), (std::vector<Visit>{{4, 1, kInt64Max - 1}}));
  operand.strides[0] = kInt64Max / 2;  // outer, size 1
  operand.strides[1] = 3;
  operand.strides[2] = kInt64Max - 9;  // inner, size 1
  operand.offset = 0;
  EXPECT_EQ(
      Runs(operand, {1, 3, 1}, 0, 3),
      (std::vector<Visit>{{0, 1, kInt64Max - 9}, {3, 1, kInt64Max - 9}, {6, 1, kInt64Max - 9}}));
}

TEST(StridedWalker, RunsMatchTheRowMajorFormulaFromAnyStart) {
  const std::vector<int64_t> shape = {3, 2, 4};
  StridedOperand operand;
  operand.offset = 5;
  operand.strides[0] = 100;
  operand.strides[1] = 1000;
  operand.strides[2] = 7;
  for (int64_t begin = 0; begin < 24; ++begin) {
    for (int64_t count = 1; begin + count <= 24; ++count) {
      std::vector<int64_t> visited;
      for (const auto& [first, length, stride] : Runs(operand, shape, begin, count)) {
        for (int64_t i = 0; i < length; ++i) visited.push_back(first + i * stride);
      }
      std::vector<int64_t> expected;
      for (int64_t flat = begin; flat < begin + count; ++flat) {
        expected.push_back(5 + flat / 8 * 100 + flat / 4 % 2 * 1000 + flat % 4 * 7);
      }
      EXPECT_EQ(visited, expected) << begin << "+" << count;
    }
  }
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // their shadow memory does not fit under a small RLIMIT_AS
#else
constexpr bool kSanitized = false;
#endif

// A system that refuses threads (here: too little address space for their stacks) leaves the
// pool with the threads it got, instead of an exception that ends the process.
TEST(ThreadPoolLimits, RefusedThreadsAreDoneWithout) {
  if (kSanitized) GTEST_SKIP() << "RLIMIT_AS is not usable under this sanitizer";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cpu::ThreadPool& pool = cpu::ThreadPool::Instance();
    // Room for a few 8 MiB stacks more than the process has now, not for 4096 of them.
    unsigned long pages = 0;
    FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr || std::fscanf(statm, "%lu", &pages) != 1) _exit(2);
    std::fclose(statm);
    rlimit limit{};
    getrlimit(RLIMIT_AS, &limit);
    limit.rlim_cur = pages * static_cast<unsigned long>(sysconf(_SC_PAGESIZE)) + (64ul << 20);
    setrlimit(RLIMIT_AS, &limit);
    pool.SetThreads(4096);
    const bool reduced = pool.threads() > 0 && pool.threads() < 4096;
    std::vector<int> done(static_cast<size_t>(pool.threads()), 0);
    pool.Run(
        pool.threads(), [](void* context, int worker) { static_cast<int*>(context)[worker] = 1; },
        done.data());
    int ran = 0;
    for (int flag : done) ran += flag;
    _exit(reduced && ran == pool.threads() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace openaclnn
