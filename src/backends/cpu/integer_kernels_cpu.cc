// CPU execution of an integer problem (LossProblem::integer: L1Loss of INT64 inputs): each
// element's integer value, stored (as an integer, or rounded once to a floating output) or summed
// with wrapping, as CANN's Sub, Abs and ReduceSum do. A wrapping sum is the same in any order, so
// the workers' shares combine in any order too.
#include <algorithm>
#include <atomic>

#include "backends/cpu/cpu_families.h"
#include "backends/cpu/strided.h"
#include "backends/cpu/thread_pool.h"

namespace openaclnn::cpu {
namespace {

struct IntegerLaunch {
  const LossProblem* problem;
  const TensorAddresses* addresses;
  int64_t (*element)(int64_t x, int64_t t);
  int64_t blocks;
  std::atomic<int64_t> next_block{0};
  std::atomic<uint64_t> total{0};  // unsigned: wraps without undefined behaviour
};

// Flat elements [begin, begin + count) of integer operand `which` into `values`.
void ReadBlock(const IntegerLaunch& launch, int which, int64_t begin, int64_t count,
               int64_t* values) {
  const LossProblem& problem = *launch.problem;
  const StridedOperand& operand = problem.operands[which];
  const void* base = (*launch.addresses)[operand.slot];
  ForEachRun(operand, problem.shape, problem.rank, begin, count,
             [&](int64_t element, int64_t length, int64_t stride) {
               for (int64_t i = 0; i < length; ++i) {
                 *values++ = LoadInteger(base, operand.integer, element + i * stride);
               }
             });
}

// Stores `values` to the output through its strides: as integers, or each rounded once.
void WriteBlock(const IntegerLaunch& launch, int64_t begin, int64_t count, const int64_t* values) {
  const LossProblem& problem = *launch.problem;
  const StridedOperand& out = problem.operands[kOut];
  void* base = (*launch.addresses)[out.slot];
  ForEachRun(out, problem.shape, problem.rank, begin, count,
             [&](int64_t element, int64_t length, int64_t stride) {
               for (int64_t i = 0; i < length; ++i, ++values) {
                 const int64_t at = element + i * stride;
                 if (out.integer == IntegerType::kInt64) {
                   static_cast<int64_t*>(base)[at] = *values;
                 } else {
                   StoreFrom32(base, out.type, at, IntegerToFloat(*values, out.type));
                 }
               }
             });
}

void RunWorker(void* context, int /*worker*/) {
  auto& launch = *static_cast<IntegerLaunch*>(context);
  const LossProblem& problem = *launch.problem;
  thread_local int64_t x[kReductionBlock], t[kReductionBlock], values[kReductionBlock];
  uint64_t sum = 0;
  for (;;) {
    const int64_t block = launch.next_block.fetch_add(1, std::memory_order_relaxed);
    if (block >= launch.blocks) break;
    const int64_t begin = block * kReductionBlock;
    const int64_t count = std::min(kReductionBlock, problem.count - begin);
    ReadBlock(launch, kSelf, begin, count, x);
    ReadBlock(launch, kTarget, begin, count, t);
    for (int64_t i = 0; i < count; ++i) values[i] = launch.element(x[i], t[i]);
    if (!problem.Reduces()) {
      WriteBlock(launch, begin, count, values);
      continue;
    }
    for (int64_t i = 0; i < count; ++i) sum += static_cast<uint64_t>(values[i]);
  }
  launch.total.fetch_add(sum, std::memory_order_relaxed);
}

}  // namespace

const char* RunIntegerCpu(const LossProblem& problem, const LaunchContext& context) {
  IntegerLaunch launch;
  launch.problem = &problem;
  launch.addresses = &context.addresses;
  launch.element = CpuFamilyOf(problem.family).integer_element;
  if (launch.element == nullptr) return "the family has no integer arithmetic";
  // Integer problems are element-wise or one total (L1Loss: none or sum).
  if (problem.Reduces() && !problem.Total()) return "an integer reduction into a shape";
  launch.blocks = ReductionBlocks(problem.count);
  const int participants = static_cast<int>(std::min<int64_t>(launch.blocks / 2, 1 << 20));
  ThreadPool::Instance().Run(participants, RunWorker, &launch);
  if (problem.Reduces()) {
    const int64_t total = static_cast<int64_t>(launch.total.load());
    WriteBlock(launch, 0, 1, &total);
  }
  return nullptr;
}

}  // namespace openaclnn::cpu
