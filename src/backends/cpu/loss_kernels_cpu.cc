// CPU execution of LossProblem: the flat index space is cut into reduction blocks, shared by the
// thread pool's workers; each block's operands are read in place where they are contiguous (any
// dtype, widened in registers) or copied into fp32 tiles, the element math runs in SIMD, and
// the block's results are stored or summed into the block's fp64 partial. A problem whose output
// elements each sum a segment of the space (a reduction into a smaller shape) gives each worker
// whole output elements instead.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <mutex>

#include "backends/cpu/class_axis_cpu.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_families.h"
#include "backends/cpu/operand_plan.h"
#include "backends/cpu/strided.h"
#include "backends/cpu/thread_pool.h"
#include "kernels/class_axis_families.h"
#include "kernels/loss_families.h"

namespace openaclnn {
namespace {

using cpu::Access;
using cpu::CpuFamily;
using cpu::ForEachRun;
using cpu::OperandPlan;

const CpuFamily& FamilyOf(const LossProblem& problem) { return cpu::CpuFamilyOf(problem.family); }

// Below this many blocks the kernel runs on the launching thread alone: handing work to the
// pool costs about a microsecond, as much as one block of math.
inline constexpr int64_t kMinBlocksPerThread = 2;

struct Tiles {
  float input[kOut][kReductionBlock];
  float result[kReductionBlock];
  float gradient[kReductionBlock];  // the fused pass's second output
};

// What every worker needs for one launch; lives on the launching thread's stack.
struct Launch {
  const LossProblem* problem;
  const TensorAddresses* addresses;
  OperandPlan plans[kOperandCount];
  ReductionWorkspace workspace{};
  int64_t units;  // what workers claim: blocks, or output elements where each sums a segment
  // A total's pass: the first (kSettled here: the blocks' results, and partials with fp32 terms
  // where SumsFp32Terms), the partials again with fp64 terms, or the exact one (into `exact`).
  ReductionPass pass = ReductionPass::kSettled;
  std::atomic<int64_t> next_unit{0};
  std::mutex exact_mutex;  // guards *workspace.exact, into which the exact pass's workers add
};

// Stores `count` fp32 results to output operand `which` through its strides, from flat index
// `begin`.
void WriteBlock(const LossProblem& problem, const TensorAddresses& addresses, int which,
                int64_t begin, int64_t count, const float* values) {
  const StridedOperand& out = problem.operands[which];
  void* base = addresses[out.slot];
  ForEachRun(out, problem.shape, problem.rank, begin, count,
             [&](int64_t element, int64_t length, int64_t stride) {
               for (int64_t i = 0; i < length; ++i) {
                 cpu::StoreFrom32(base, out.type, element + i * stride, values[i]);
               }
               values += length;
             });
}

// Where the block's results for output operand `which` go: in place when that output is
// contiguous, else the fp32 `tile`, written through its strides afterwards (WriteBlock).
TileOutput BlockOutput(const Launch& launch, int which, int64_t begin, float* tile) {
  const StridedOperand& out = launch.problem->operands[which];
  if (launch.plans[which].access != Access::kFlat) return {tile, out.type, true};
  return {static_cast<char*>((*launch.addresses)[out.slot]) +
              (out.offset + begin) * ElementSize(out.type),
          out.type};
}

// The operands of flat elements [begin, begin + count) as tile inputs.
TileInputs BlockInputs(const Launch& launch, int64_t begin, int64_t count, Tiles& tiles) {
  const LossProblem& problem = *launch.problem;
  TileInputs inputs;
  for (int which = kSelf; which < kOut; ++which) {
    const int slot = problem.operands[which].slot;
    inputs.operand[which] =
        cpu::BlockOperand(problem, slot < 0 ? nullptr : (*launch.addresses)[slot], which,
                          launch.plans[which], begin, count, tiles.input[which]);
  }
  return inputs;
}

// Flat elements [begin, begin + count) in `pass`: their results where they are element-wise (with
// kGradSelfOut, the gradient as well), or the partial sum of their terms.
Partial RunBlock(const Launch& launch, ReductionPass pass, int64_t begin, int64_t count,
                 Tiles& tiles) {
  const LossProblem& problem = *launch.problem;
  const TensorAddresses& addresses = *launch.addresses;
  const TileInputs inputs = BlockInputs(launch, begin, count, tiles);
  const bool sum = problem.Reduces();
  // A sum stores nothing per element, but its terms follow the result's type (SumsFp32Terms);
  // its fp64 pass forms them as for an fp32 result, whose are fp64.
  const FloatType terms_for =
      pass == ReductionPass::kFp64Terms ? FloatType::kFloat32 : problem.operands[kOut].type;
  const TileOutput output =
      sum ? TileOutput{nullptr, terms_for} : BlockOutput(launch, kOut, begin, tiles.result);
  // The fused pass: the gradient in the same pass; the fp64 pass's terms alone (the first pass
  // stored the gradient).
  const bool fused = problem.operands[kGradSelfOut].slot >= 0 && pass != ReductionPass::kFp64Terms;
  const TileOutput gradient =
      fused ? BlockOutput(launch, kGradSelfOut, begin, tiles.gradient) : TileOutput{};
  const Partial partial = FamilyOf(problem).evaluate(problem.kind, problem.parameters, inputs,
                                                     count, output, sum, gradient);
  if (output.data == tiles.result) WriteBlock(problem, addresses, kOut, begin, count, tiles.result);
  if (gradient.data == tiles.gradient) {
    WriteBlock(problem, addresses, kGradSelfOut, begin, count, tiles.gradient);
  }
  return partial;
}

// The exact terms of flat elements [begin, begin + count) added to `sum`.
void AddExactBlock(const Launch& launch, int64_t begin, int64_t count, Tiles& tiles,
                   math::exact::ExactSum& sum) {
  const LossProblem& problem = *launch.problem;
  FamilyOf(problem).exact_sum(problem.kind, problem.parameters,
                              BlockInputs(launch, begin, count, tiles), count, sum);
}

// The blocks of a total or of element-wise results: each block's partial goes to the workspace;
// the exact pass adds each worker's terms into one ExactSum (exact, so in any order).
void RunBlocks(Launch& launch, Tiles& tiles) {
  const LossProblem& problem = *launch.problem;
  math::exact::ExactSum exact;
  for (;;) {
    const int64_t block = launch.next_unit.fetch_add(1, std::memory_order_relaxed);
    if (block >= launch.units) break;
    const int64_t begin = block * kReductionBlock;
    const int64_t count = std::min(kReductionBlock, problem.count - begin);
    if (launch.pass == ReductionPass::kExact) {
      AddExactBlock(launch, begin, count, tiles, exact);
      continue;
    }
    const Partial partial = RunBlock(launch, launch.pass, begin, count, tiles);
    if (problem.Total()) launch.workspace.partials[block] = partial;
  }
  if (launch.pass == ReductionPass::kExact) {
    const std::lock_guard<std::mutex> lock(launch.exact_mutex);
    launch.workspace.exact->Add(exact);
  }
}

// An output element that sums a segment: the first pass's sum of its blocks' partials and its
// rounding test; where that fails, the fp64 terms' pass (after fp32 terms) and then the exact one.
double SegmentValue(const Launch& launch, int64_t first, Tiles& tiles) {
  const LossProblem& problem = *launch.problem;
  const CpuFamily& family = FamilyOf(problem);
  const FloatType type = problem.operands[kOut].type;
  const int64_t divisor = problem.parameters.divisor;
  const auto total_of = [&](ReductionPass pass) {
    PartialsTotal total;
    for (int64_t begin = first; begin < first + problem.segment; begin += kReductionBlock) {
      const int64_t count = std::min(kReductionBlock, first + problem.segment - begin);
      total.Add(RunBlock(launch, pass, begin, count, tiles));
    }
    return total;
  };
  double value = 0.0;
  const bool fp32_terms = family.sums_fp32_terms(problem.operands[kSelf].type, type, false, type);
  if (total_of(ReductionPass::kSettled).Settle(divisor, type, family.term_error, &value)) {
    return value;
  }
  if (fp32_terms &&
      total_of(ReductionPass::kFp64Terms).Settle(divisor, type, family.term_error, &value)) {
    return value;
  }
  math::exact::ExactSum exact;
  for (int64_t begin = first; begin < first + problem.segment; begin += kReductionBlock) {
    AddExactBlock(launch, begin, std::min(kReductionBlock, first + problem.segment - begin), tiles,
                  exact);
  }
  return math::exact::RoundedQuotient(
      exact, math::exact::DivisorOf(family.term_denominator(problem.parameters), divisor), type);
}

// Output elements claimed one at a time, each summing its segment on one worker.
void RunSegments(Launch& launch, Tiles& tiles) {
  const LossProblem& problem = *launch.problem;
  const StridedOperand& out = problem.operands[kOut];
  void* base = (*launch.addresses)[out.slot];
  for (;;) {
    const int64_t element = launch.next_unit.fetch_add(1, std::memory_order_relaxed);
    if (element >= launch.units) return;
    const int64_t first = element * problem.segment;
    const float value = RoundedTo(SegmentValue(launch, first, tiles), out.type);
    cpu::StoreFrom32(base, out.type, ElementOf(out, problem.shape, problem.rank, first), value);
  }
}

// A worker's share of a launch: units claimed one at a time, so any number of workers covers them
// all and each result is the same whoever computes it.
void RunWorker(void* context, int /*worker*/) {
  thread_local Tiles tiles;
  auto& launch = *static_cast<Launch*>(context);
  if (launch.problem->Reduces() && !launch.problem->Total()) {
    RunSegments(launch, tiles);
  } else {
    RunBlocks(launch, tiles);
  }
}

const char* FillCpu(const StridedOperand& out, const int64_t* shape, int rank, double value,
                    const LaunchContext& context);

// The total of a problem whose one output sums everything: the blocks' partials combined in block
// order; where the total's rounding is in doubt, the fp64 pass (after fp32 terms) and then the
// exact pass.
const char* FinishTotal(Launch& launch, int participants, const LaunchContext& context) {
  const LossProblem& problem = *launch.problem;
  const FloatType type = problem.operands[kOut].type;
  const CpuFamily& family = FamilyOf(problem);
  const int64_t divisor = problem.parameters.divisor;
  const bool fp32_terms = family.sums_fp32_terms(problem.operands[kSelf].type, type,
                                                 problem.operands[kGradSelfOut].slot >= 0,
                                                 problem.operands[kGradSelfOut].type);
  double total = 0.0;
  const auto settle = [&](bool partials_of_fp32_terms) {
    return NextReductionPass(SettleReduction(launch.workspace.partials, launch.units, divisor, type,
                                             family.term_error, &total),
                             partials_of_fp32_terms);
  };
  const auto run_pass = [&](ReductionPass pass) {
    launch.pass = pass;
    launch.next_unit = 0;
    cpu::ThreadPool::Instance().Run(participants, RunWorker, &launch);
  };
  ReductionPass next = settle(fp32_terms);
  if (next == ReductionPass::kFp64Terms) {
    run_pass(next);
    next = settle(false);
  }
  if (next == ReductionPass::kExact) {
    *launch.workspace.exact = math::exact::ExactSum();
    run_pass(next);
    total = math::exact::RoundedQuotient(
        *launch.workspace.exact,
        math::exact::DivisorOf(family.term_denominator(problem.parameters), divisor), type);
  }
  return FillCpu(problem.operands[kOut], nullptr, 0, total, context);
}

const char* RunCpu(const LossProblem& problem, const LaunchContext& context) {
  if (problem.integer) return cpu::RunIntegerCpu(problem, context);
  Launch launch;
  launch.problem = &problem;
  launch.addresses = &context.addresses;
  for (int which = 0; which < kOperandCount; ++which) {
    launch.plans[which] = cpu::PlanOperand(problem.operands[which], problem);
  }
  const bool segments = problem.Reduces() && !problem.Total();
  launch.units = segments ? problem.count / problem.segment : ReductionBlocks(problem.count);
  if (problem.Total()) launch.workspace = ReductionWorkspaceAt(context.workspace, problem.count);
  // Segments: an output element per unit, each as much work as its segment.
  const int64_t blocks_per_unit = segments ? ReductionBlocks(problem.segment) : 1;
  const int participants = static_cast<int>(
      std::min<int64_t>(launch.units * blocks_per_unit / kMinBlocksPerThread, 1 << 20));
  cpu::ThreadPool::Instance().Run(participants, RunWorker, &launch);
  if (!problem.Total()) return nullptr;
  return FinishTotal(launch, participants, context);
}

const char* FillCpu(const StridedOperand& out, const int64_t* shape, int rank, double value,
                    const LaunchContext& context) {
  static constexpr int64_t kOneElement[] = {1};
  if (rank == 0) {  // a rank-0 tensor is one element, reached through no stride
    shape = kOneElement;
    rank = 1;
  }
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) count *= shape[d];
  // The element's bytes: an integer output's whole number, else `value` rounded once.
  unsigned char pattern[8];
  const size_t size = StoredSize(out);
  if (out.integer != IntegerType::kNone) {
    const int64_t whole = static_cast<int64_t>(value);  // the fills write 0
    std::memcpy(pattern, &whole, size);                 // little-endian: the low bytes
  } else {
    const uint32_t bits = RoundOnce(value, out.type);  // fp16/bf16 in its low half
    std::memcpy(pattern, &bits, size);                 // little-endian: the low bytes
  }
  char* base = static_cast<char*>(context.addresses[out.slot]);
  ForEachRun(out, shape, rank, 0, count, [&](int64_t element, int64_t length, int64_t stride) {
    for (int64_t i = 0; i < length; ++i) {
      std::memcpy(base + (element + i * stride) * static_cast<int64_t>(size), pattern, size);
    }
  });
  return nullptr;
}

int PoolThreads() { return cpu::ThreadPool::Instance().threads(); }

}  // namespace

const LossKernels kCpuLossKernels = {.abi_version = kLossKernelsAbiVersion,
                                     .ops = kEveryFamilyKernelOps | kEveryClassAxisKernelOps,
                                     .workspace_bytes = ReductionWorkspaceBytes,
                                     .run = RunCpu,
                                     .run_class_axis = cpu::RunClassAxisCpu,
                                     .fill = FillCpu,
                                     .simd_target = EvaluateTileTarget,
                                     .threads = PoolThreads};

}  // namespace openaclnn
