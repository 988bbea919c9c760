// CPU execution of LossProblem: the flat index space is cut into reduction blocks, shared by the
// thread pool's workers; each block's operands are read in place where they are contiguous (any
// dtype, widened in registers) or copied into fp32 tiles, the element math runs in SIMD, and
// the block's results are stored or summed into the block's fp64 partial.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/operand_plan.h"
#include "backends/cpu/strided.h"
#include "backends/cpu/thread_pool.h"
#include "backends/cpu/tile_math.h"
#include "kernels/loss_families.h"
#include "losses/binary_cross_entropy/cpu/binary_cross_entropy_tile.h"
#include "losses/binary_cross_entropy_with_logits/cpu/bce_with_logits_tile.h"

namespace openaclnn {
namespace {

using cpu::Access;
using cpu::ForEachRun;
using cpu::OperandPlan;

// A family's tile math on the CPU (its cpu/ folder's tile header): one row per LossFamily, in
// its order.
struct CpuFamily {
  Partial (*evaluate)(LossKind kind, double gradient_scale, const TileInputs& inputs, int64_t count,
                      const TileOutput& output, bool sum, const TileOutput& gradient);
  math::exact::DD (*exact_sum)(const TileInputs& inputs, int64_t count);
  double loss_term_error;  // the family's kLossTermError (kernels/loss_families.h)
  bool (*sums_fp32_terms)(FloatType self, FloatType result, bool fused, FloatType gradient);
};
constexpr CpuFamily kCpuFamilies[] = {
    {EvaluateTile, ExactTileSum, BceWithLogitsFamily::kLossTermError,
     BceWithLogitsFamily::SumsFp32Terms},
    {EvaluateBinaryCrossEntropyTile, ExactBinaryCrossEntropyTileSum,
     BinaryCrossEntropyFamily::kLossTermError, BinaryCrossEntropyFamily::SumsFp32Terms},
};
static_assert(std::size(kCpuFamilies) == kLossFamilyCount, "a row for every family");

const CpuFamily& FamilyOf(const LossProblem& problem) {
  return kCpuFamilies[static_cast<int>(problem.family)];
}

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
  int64_t blocks;
  // The pass the workers run: the first (kSettled here: the blocks' results, and partials with
  // fp32 terms where SumsFp32Terms), the partials again with fp64 terms, or the blocks' exact
  // sums (ExactTileSum).
  ReductionPass pass = ReductionPass::kSettled;
  std::atomic<int64_t> next_block{0};
};

// Stores a block's fp32 results to output operand `which` through its strides.
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

void RunBlock(const Launch& launch, int64_t block, Tiles& tiles) {
  const LossProblem& problem = *launch.problem;
  const TensorAddresses& addresses = *launch.addresses;
  const int64_t begin = block * kReductionBlock;
  const int64_t count = std::min(kReductionBlock, problem.count - begin);
  TileInputs inputs;
  for (int which = kSelf; which < kOut; ++which) {
    const int slot = problem.operands[which].slot;
    inputs.operand[which] =
        cpu::BlockOperand(problem, slot < 0 ? nullptr : addresses[slot], which, launch.plans[which],
                          begin, count, tiles.input[which]);
  }
  const bool sum = problem.reduction != Reduction::kNone;
  if (launch.pass == ReductionPass::kExact) {
    launch.workspace.exact[block] = FamilyOf(problem).exact_sum(inputs, count);
    return;
  }
  // A mean or sum stores nothing per element, but its terms follow the result's type
  // (SumsFp32Terms); its fp64 pass forms them as for an fp32 result, whose are fp64.
  const FloatType terms_for =
      launch.pass == ReductionPass::kFp64Terms ? FloatType::kFloat32 : problem.operands[kOut].type;
  const TileOutput output =
      sum ? TileOutput{nullptr, terms_for} : BlockOutput(launch, kOut, begin, tiles.result);
  // The fused pass: the gradient in the same pass, from the same exp(-|x|); the fp64 pass's
  // terms alone (the first pass stored the gradient).
  const bool fused =
      problem.operands[kGradSelfOut].slot >= 0 && launch.pass != ReductionPass::kFp64Terms;
  const TileOutput gradient =
      fused ? BlockOutput(launch, kGradSelfOut, begin, tiles.gradient) : TileOutput{};
  const Partial partial = FamilyOf(problem).evaluate(problem.kind, problem.gradient_scale, inputs,
                                                     count, output, sum, gradient);
  if (sum) launch.workspace.partials[block] = partial;
  if (output.data == tiles.result) WriteBlock(problem, addresses, kOut, begin, count, tiles.result);
  if (gradient.data == tiles.gradient) {
    WriteBlock(problem, addresses, kGradSelfOut, begin, count, tiles.gradient);
  }
}

// A worker's share: blocks claimed one at a time, so any number of workers covers them all and
// each block's result is the same whoever computes it.
void RunWorker(void* context, int /*worker*/) {
  thread_local Tiles tiles;
  auto& launch = *static_cast<Launch*>(context);
  for (;;) {
    const int64_t block = launch.next_block.fetch_add(1, std::memory_order_relaxed);
    if (block >= launch.blocks) return;
    RunBlock(launch, block, tiles);
  }
}

const char* FillCpu(const StridedOperand& out, const int64_t* shape, int rank, double value,
                    const LaunchContext& context);

const char* RunCpu(const LossProblem& problem, const LaunchContext& context) {
  Launch launch;
  launch.problem = &problem;
  launch.addresses = &context.addresses;
  for (int which = 0; which < kOperandCount; ++which) {
    launch.plans[which] = cpu::PlanOperand(problem.operands[which], problem);
  }
  launch.blocks = ReductionBlocks(problem.count);
  if (problem.reduction != Reduction::kNone) {
    launch.workspace = ReductionWorkspaceAt(context.workspace, problem.count);
  }
  const int participants =
      static_cast<int>(std::min<int64_t>(launch.blocks / kMinBlocksPerThread, 1 << 20));
  cpu::ThreadPool::Instance().Run(participants, RunWorker, &launch);
  if (problem.reduction == Reduction::kNone) return nullptr;
  // Fixed combine order, whatever worker produced each partial; where the total's rounding is in
  // doubt, the fp64 pass (after fp32 terms) and then the exact pass.
  const bool mean = problem.reduction == Reduction::kMean;
  const FloatType type = problem.operands[kOut].type;
  const CpuFamily& family = FamilyOf(problem);
  const bool fp32_terms = family.sums_fp32_terms(problem.operands[kSelf].type, type,
                                                 problem.operands[kGradSelfOut].slot >= 0,
                                                 problem.operands[kGradSelfOut].type);
  double total = 0.0;
  const auto settle = [&](bool partials_of_fp32_terms) {
    return NextReductionPass(
        SettleReduction(launch.workspace.partials, launch.blocks, problem.count, mean, type,
                        family.loss_term_error, &total),
        partials_of_fp32_terms);
  };
  const auto run_pass = [&](ReductionPass pass) {
    launch.pass = pass;
    launch.next_block = 0;
    cpu::ThreadPool::Instance().Run(participants, RunWorker, &launch);
  };
  ReductionPass next = settle(fp32_terms);
  if (next == ReductionPass::kFp64Terms) {
    run_pass(next);
    next = settle(false);
  }
  if (next == ReductionPass::kExact) {
    run_pass(next);
    total = ExactReduction(launch.workspace.exact, launch.blocks, problem.count, mean);
  }
  return FillCpu(problem.operands[kOut], nullptr, 0, total, context);
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
  const uint32_t bits = RoundOnce(value, out.type);
  const uint16_t half_bits = static_cast<uint16_t>(bits);
  const void* pattern = out.type == FloatType::kFloat32 ? static_cast<const void*>(&bits)
                                                        : static_cast<const void*>(&half_bits);
  const size_t size = ElementSize(out.type);
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
                                     .ops = kEveryFamilyKernelOps,
                                     .workspace_bytes = ReductionWorkspaceBytes,
                                     .run = RunCpu,
                                     .fill = FillCpu,
                                     .simd_target = EvaluateTileTarget,
                                     .threads = PoolThreads};

}  // namespace openaclnn
