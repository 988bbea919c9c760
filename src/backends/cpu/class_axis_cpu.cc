// The CPU's class-axis kernels: the positions in blocks of about kReductionBlock elements of
// work, shared by the thread pool, each position's work and the totals' rounding as every backend
// does them (kernels/class_axis_totals.h); its own are the rows (SIMD where they are contiguous
// fp32) and NLL's reductions over one axis in a tight gather loop.
#include "backends/cpu/class_axis_cpu.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "backends/cpu/row_math.h"
#include "backends/cpu/thread_pool.h"
#include "kernels/class_axis_families.h"
#include "kernels/class_axis_totals.h"
#include "kernels/exact_sum.h"

namespace openaclnn::cpu {
namespace {

using class_axis::Fault;
using class_axis::Total;
using class_axis::View;

struct Launch {
  View view;  // ViewOf's, once per launch
  RowConstants constants;
  int64_t positions_per_block = 1;
  int64_t blocks = 0;
  std::atomic<int64_t> next_block{0};
  std::mutex mu;  // guards what follows: the workers' sums and faults, merged as each finishes
  Total loss, weight;
  Fault fault;
};

// self's row at a position, read as the families read it; a contiguous fp32 row's log-sum-exp in
// SIMD (row_math.h).
struct Row {
  const void* base;
  FloatType type;
  int64_t start, stride;
  const log_sum_exp::LogSumExp* log_sum_exp = nullptr;  // computed beforehand (ShortRows)
  double At(int64_t c) const { return LoadAs32(base, type, start + c * stride); }
  const float* Contiguous32() const {
    return type == FloatType::kFloat32 && stride == 1 ? static_cast<const float*>(base) + start
                                                      : nullptr;
  }
  log_sum_exp::LogSumExp LogSumExp(int64_t classes) const {
    if (log_sum_exp != nullptr) return *log_sum_exp;
    if (const float* row = Contiguous32()) return EstimateLogSumExp32(row, classes);
    return log_sum_exp::EstimateLogSumExp(*this, classes);
  }
  // In the calling thread's scratch row.
  const double* Exponentials(int64_t classes) const {
    double* scratch = ScratchRow(classes);
    if (const float* row = Contiguous32()) {
      Exponentials32(row, classes, scratch);
    } else {
      log_sum_exp::Exponentials(*this, classes, scratch);
    }
    return scratch;
  }
  // The calling thread's row of doubles, which grows to the longest row it has held.
  static double* ScratchRow(int64_t classes) {
    thread_local std::vector<double> scratch;
    if (static_cast<int64_t>(scratch.size()) < classes) scratch.resize(classes);
    return scratch.data();
  }
};

// out's row at a position (a gradient's, or the log-probabilities'), written as the families
// write it.
struct OutRow {
  void* base;
  FloatType type;
  int64_t start, stride, classes;
  void Zero() {
    if (stride == 1) {  // zero is all-zero bits in every float type
      std::memset(static_cast<char*>(base) + start * ElementSize(type), 0,
                  classes * ElementSize(type));
      return;
    }
    for (int64_t c = 0; c < classes; ++c) StoreFrom32(base, type, start + c * stride, 0.0f);
  }
  void Set(int64_t c, double value) {
    StoreFrom32(base, type, start + c * stride, RoundedTo(value, type));
  }
  void Fill(double value) {
    for (int64_t c = 0; c < classes; ++c) Set(c, value);
  }
  // A log-softmax gradient row from `row`'s log-probabilities (in SIMD where the rows and weights
  // are contiguous fp32), `element(c, e^lp_c)` giving what the vector estimate leaves open.
  template <class Weights, class Element>
  void WriteLogSoftmaxGradient(const Row& row, const Weights& weights, int64_t target,
                               const log_sum_exp::LogSoftmaxGradient& factors, Element&& element) {
    const float* in = row.Contiguous32();
    const bool simd = in != nullptr && type == FloatType::kFloat32 && stride == 1 &&
                      (weights.base == nullptr || weights.Contiguous32() != nullptr);
    if (!simd) {
      const double* exponentials = row.Exponentials(classes);
      for (int64_t c = 0; c < classes; ++c) Set(c, element(c, exponentials[c]));
      return;
    }
    double* exponentials = Row::ScratchRow(classes);
    auto round = [&](int64_t c) { return element(c, exponentials[c]); };
    const OpenElement open{&round, [](const void* context, int64_t c) {
                             return (*static_cast<const decltype(round)*>(context))(c);
                           }};
    WriteLogSoftmaxGradient32(in, classes, weights.Contiguous32(), target, factors, exponentials,
                              static_cast<float*>(base) + start, open);
  }
  // Each log-probability of `row` rounded once (in SIMD where both rows are contiguous fp32).
  void WriteLogProbabilities(const Row& row, const log_sum_exp::LogSumExp& lse) {
    const float* in = row.Contiguous32();
    if (in != nullptr && type == FloatType::kFloat32 && stride == 1) {
      WriteLogProbabilities32(in, classes, lse, static_cast<float*>(base) + start);
      return;
    }
    log_sum_exp::WriteLogProbabilities(row, classes, lse, *this);
  }
};

// An output row its block has zeroed already (ZeroedRows): GradientRow's Zero() has nothing to do.
struct ZeroedOutRow : OutRow {
  void Zero() {}
};

// Zeroes a gradient block's output rows at once where the family's rows are sparse and the rows
// are adjacent (one axis, contiguous classes, C apart): true where it did.
template <class Family>
bool ZeroedRows(const Launch& launch, int64_t first, int64_t last) {
  const ClassAxisProblem& problem = launch.view.problem;
  const StridedOperand& out = problem.operands[kOut];
  if (!Family::kSparseGradientRows || problem.kind != LossKind::kGradSelf || problem.rank != 1 ||
      problem.class_strides[kOut] != 1 || out.strides[0] != problem.classes) {
    return false;
  }
  const class_axis::At at = launch.view.Locate(kOut, first);
  const size_t size = ElementSize(out.type);
  std::memset(static_cast<char*>(at.base) + at.element * size, 0,
              static_cast<size_t>((last - first) * problem.classes) * size);
  return true;
}

// The log-sum-exps of a block's rows, where they are short contiguous fp32 rows one position
// apart on one axis, computed a vector of rows at a time (EstimateLogSumExpRows32) in the calling
// thread's scratch: entry p - first is position p's. nullptr where the rows are not such, or the
// family's losses do not read their rows.
template <class Family>
const log_sum_exp::LogSumExp* ShortRows(const Launch& launch, int64_t first, int64_t last) {
  const ClassAxisProblem& problem = launch.view.problem;
  if (!Family::kLossReadsRows || problem.kind != LossKind::kLoss || problem.rank != 1 ||
      problem.classes >= kShortRow || problem.operands[kSelf].strides[0] >= (int64_t{1} << 24)) {
    return nullptr;
  }
  const float* row = launch.view.SelfRow<Row>(first).Contiguous32();
  if (row == nullptr) return nullptr;
  thread_local std::vector<log_sum_exp::LogSumExp> rows;
  if (static_cast<int64_t>(rows.size()) < last - first) rows.resize(last - first);
  EstimateLogSumExpRows32(row, last - first, problem.classes, problem.operands[kSelf].strides[0],
                          rows.data());
  return rows.data();
}

// Out of line: inlined with the shared position step, it made RunWorker too large for GCC to
// inline ReduceGathered's loads (nll_loss/forward of class_axis_bench 1.8x slower).
template <class Family>
[[gnu::noinline]] void RunBlock(const Launch& launch, int64_t first, int64_t last, Total* loss,
                                Total* weight, Fault* fault) {
  Total block_loss, block_weight;  // local, so that they can live in registers
  const log_sum_exp::LogSumExp* short_rows = ShortRows<Family>(launch, first, last);
  const bool zeroed = ZeroedRows<Family>(launch, first, last);
  for (int64_t position = first; position < last; ++position) {
    Row row = launch.view.SelfRow<Row>(position);
    if (short_rows != nullptr) row.log_sum_exp = &short_rows[position - first];
    if (zeroed) {
      class_axis::RunPosition<Family, Row, ZeroedOutRow>(launch.view, launch.constants, position,
                                                         row, block_loss, block_weight, *fault);
    } else {
      class_axis::RunPosition<Family, Row, OutRow>(launch.view, launch.constants, position, row,
                                                   block_loss, block_weight, *fault);
    }
  }
  loss->Add(block_loss);
  weight->Add(block_weight);
}

// A reduction's block of positions on one axis (rank 1) whose losses each read one element of
// self (kLossReadsRows false: NLL's): a loop with nothing else in it, so that many positions'
// gathered loads are in flight at once. RunBlock's results, as it would add them.
template <class Family, class Index>
void ReduceGathered(const Launch& launch, int64_t first, int64_t last, Total* loss, Total* weight,
                    Fault* fault) {
  const View& view = launch.view;
  const ClassAxisProblem& problem = view.problem;
  const class_axis::At targets = view.Locate(kTarget, first);
  const Index* target = static_cast<const Index*>(targets.base) + targets.element;
  const int64_t target_step = problem.operands[kTarget].strides[0];
  const int64_t self_step = problem.operands[kSelf].strides[0];
  Row row = view.SelfRow<Row>(first);
  Total block_loss, block_weight;
  for (int64_t position = first; position < last;
       ++position, target += target_step, row.start += self_step) {
    int64_t index = *target;
    const class_axis::TargetIs is = class_axis::Classify(problem, index);
    if (is == class_axis::TargetIs::kIgnored) continue;
    if (is == class_axis::TargetIs::kOutOfRange) {
      fault->Add(position, index);
      block_loss.Add(kCanonicalNaN);
      continue;
    }
    block_loss.Add(Family::LossRow(row, view.weights, static_cast<OutRow*>(nullptr), &index,
                                   launch.constants));
    block_weight.Add(view.weights(index));
  }
  loss->Add(block_loss);
  weight->Add(block_weight);
}

// RunBlock, or ReduceGathered where it applies.
template <class Family>
void RunPositions(const Launch& launch, int64_t first, int64_t last, Total* loss, Total* weight,
                  Fault* fault) {
  const ClassAxisProblem& problem = launch.view.problem;
  if constexpr (!Family::kLossReadsRows) {
    if (problem.kind == LossKind::kLoss && problem.reduction != Reduction::kNone &&
        problem.rank == 1) {
      if (problem.operands[kTarget].integer == IntegerType::kInt64) {
        return ReduceGathered<Family, int64_t>(launch, first, last, loss, weight, fault);
      }
      if (problem.operands[kTarget].integer == IntegerType::kInt32) {
        return ReduceGathered<Family, int32_t>(launch, first, last, loss, weight, fault);
      }
    }
  }
  RunBlock<Family>(launch, first, last, loss, weight, fault);
}

template <class Family>
void RunWorker(void* context, int /*worker*/) {
  auto& launch = *static_cast<Launch*>(context);
  Total loss, weight;
  Fault fault;
  const int64_t positions = launch.view.problem.positions;
  for (;;) {
    const int64_t block = launch.next_block.fetch_add(1, std::memory_order_relaxed);
    if (block >= launch.blocks) break;
    const int64_t first = block * launch.positions_per_block;
    RunPositions<Family>(launch, first, std::min(positions, first + launch.positions_per_block),
                         &loss, &weight, &fault);
  }
  std::lock_guard<std::mutex> lock(launch.mu);
  launch.loss.Add(loss);
  launch.weight.Add(weight);
  launch.fault.Add(fault);
}

// The rows' constants; a mean gradient's counted weights summed here, in one thread.
RowConstants ConstantsOf(const View& view) {
  math::exact::ExactSum counted_weights;
  if (class_axis::NeedsCountedWeights(view.problem)) {
    for (int64_t position = 0; position < view.problem.positions; ++position) {
      class_axis::AddCountedWeight(view, position, counted_weights);
    }
  }
  return class_axis::ConstantsOf(view, &counted_weights);
}

}  // namespace

const char* RunClassAxisCpu(const ClassAxisProblem& problem, const LaunchContext& context) {
  Launch launch;
  launch.view = class_axis::ViewOf(problem, context);
  launch.constants = ConstantsOf(launch.view);
  WithClassAxisFamily(problem.family, [&](auto family) {
    using Family = decltype(family);
    const bool reads_rows = problem.kind == LossKind::kGradSelf || Family::kLossReadsRows;
    // A position that reads one element counts as one: counted as eight (its gathered load's
    // cost), NLL's forward at (4096, 1000) and (100000, 10) took 4-6 times longer on two threads
    // of a loaded machine, waiting for the second worker, than in one block.
    const int64_t per_position = reads_rows ? std::max<int64_t>(1, problem.classes) : 1;
    launch.positions_per_block = std::max<int64_t>(1, kReductionBlock / per_position);
    launch.blocks =
        (problem.positions + launch.positions_per_block - 1) / launch.positions_per_block;
    const int participants = static_cast<int>(std::min<int64_t>(launch.blocks / 2, 1 << 20));
    ThreadPool::Instance().Run(std::max(participants, 1), RunWorker<Family>, &launch);
    class_axis::StoreTotals<Family, Row>(launch.view, launch.constants, launch.loss, launch.weight);
  });
  return launch.fault.Any() ? class_axis::FaultText(problem, launch.fault) : nullptr;
}

}  // namespace openaclnn::cpu
