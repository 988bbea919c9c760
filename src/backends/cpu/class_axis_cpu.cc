// The CPU's class-axis kernels: the positions in blocks of about kReductionBlock elements of
// work, shared by the thread pool; per position its target's check, its class weight and the
// family's loss (and row of log-probabilities) or gradient row; a reduction's sums exact
// (ExactSum) beside the sum of their terms' error bounds, so the one rounding of a mean or sum is
// the same whatever the threads and the order they add in (where the bounds leave it open, an
// exact pass adds every term again in double-double).
#include "backends/cpu/class_axis_cpu.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

#include "backends/cpu/row_math.h"
#include "backends/cpu/thread_pool.h"
#include "kernels/class_axis_families.h"
#include "kernels/exact_sum.h"

namespace openaclnn::cpu {
namespace {

using math::exact::ExactSum;

// A sum of estimated terms in fp64, added in any order, beside what bounds its distance from the
// sum of the terms' exact values (Estimate): their own bounds, and the additions' roundings, at
// most gamma(n) = n 2^-53 / (1 - n 2^-53) times the sum of the terms' magnitudes for n terms in any
// order (Higham, Accuracy and Stability of Numerical Algorithms, 4.2). A result whose rounding
// this leaves open takes the exact pass (ExactTotals). Infinities and NaNs apart: their sum is
// the same in any order.
// An estimate that settles nothing.
Estimated Open() { return {0.0, std::numeric_limits<double>::infinity()}; }

struct Total {
  double sum = 0.0, magnitude = 0.0, bound = 0.0;
  int64_t count = 0;
  double special = 0.0;
  bool has_special = false;
  void Add(double term) {
    if (std::isfinite(term)) {
      sum += term;
      magnitude += std::fabs(term);
      ++count;
    } else {
      special += term;
      has_special = true;
    }
  }
  void Add(const Estimated& term) {
    Add(term.value);
    if (std::isfinite(term.value)) bound += term.bound;
  }
  void Add(const Total& other) {
    sum += other.sum;
    magnitude += other.magnitude;
    bound += other.bound;
    count += other.count;
    if (other.has_special) Add(other.special);
  }
  // The finite terms' sum and its bound (Open() where it could overflow or n 2^-53 is not
  // small). The bound's own roundings (in magnitude, in the sum of bounds and in the product,
  // each within gamma(n) < 2^-21 relatively) are covered by a factor of 1 + 2^-19.
  Estimated Estimate() const {
    const double gamma = static_cast<double>(count) * 0x1p-53;
    if (gamma >= 0x1p-22 || !std::isfinite(magnitude)) return Open();
    return {sum, (bound + gamma * (1.0 + 0x1p-21) * magnitude) * (1.0 + 0x1p-19)};
  }
};

// The class weights (1 without a weight tensor).
struct Weights {
  const void* base;  // nullptr: no weights
  FloatType type;
  int64_t offset, stride;
  double operator()(int64_t c) const {
    return base == nullptr ? 1.0 : LoadAs32(base, type, offset + c * stride);
  }
  const float* Contiguous32() const {
    return base != nullptr && type == FloatType::kFloat32 && stride == 1
               ? static_cast<const float*>(base) + offset
               : nullptr;
  }
};

struct Launch {
  const ClassAxisProblem* problem = nullptr;
  const TensorAddresses* addresses = nullptr;
  Weights weights;  // WeightsOf's, once per launch
  RowConstants constants;
  int64_t positions_per_block = 1;
  int64_t blocks = 0;
  std::atomic<int64_t> next_block{0};
  std::mutex mu;  // guards what follows: the workers' sums and faults, merged as each finishes
  Total loss, weight;
  int64_t fault_position = std::numeric_limits<int64_t>::max();
  int64_t fault_target = 0;
};

// Where operand `which` is at a position (its base address and the element there); a
// one-element operand (kOne: a reduced result, a total weight) is at its offset.
struct At {
  void* base;
  int64_t element;
};
constexpr int64_t kOne = -1;
At Locate(const Launch& launch, int which, int64_t position) {
  const ClassAxisProblem& problem = *launch.problem;
  const StridedOperand& operand = problem.operands[which];
  return {(*launch.addresses)[operand.slot],
          position == kOne ? operand.offset
                           : ElementOf(operand, problem.shape, problem.rank, position)};
}

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
  // are contiguous fp32), `element(c, exponentials)` giving what the vector estimate leaves open.
  template <class Weights, class Element>
  void WriteLogSoftmaxGradient(const Row& row, const Weights& weights, int64_t target,
                               const log_sum_exp::LogSoftmaxGradient& factors, Element&& element) {
    const float* in = row.Contiguous32();
    const bool simd = in != nullptr && type == FloatType::kFloat32 && stride == 1 &&
                      (weights.base == nullptr || weights.Contiguous32() != nullptr);
    if (!simd) {
      const double* exponentials = row.Exponentials(classes);
      for (int64_t c = 0; c < classes; ++c) Set(c, element(c, exponentials));
      return;
    }
    double* exponentials = Row::ScratchRow(classes);
    auto round = [&](int64_t c) { return element(c, exponentials); };
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

Weights WeightsOf(const Launch& launch) {
  const ClassAxisProblem& problem = *launch.problem;
  const StridedOperand& weights = problem.operands[kWeight];
  if (weights.slot < 0) return {nullptr, FloatType::kFloat32, 0, 0};
  return {(*launch.addresses)[weights.slot], weights.type, weights.offset,
          problem.class_strides[kWeight]};
}

// A self-shaped operand's row at a position.
OutRow RowOf(const Launch& launch, int which, int64_t position) {
  const At at = Locate(launch, which, position);
  const ClassAxisProblem& problem = *launch.problem;
  return {at.base, problem.operands[which].type, at.element, problem.class_strides[which],
          problem.classes};
}

// A position's target: counted (its class, its weight), ignored, or out of range (a fault).
enum class TargetIs { kCounted, kIgnored, kOutOfRange };
inline TargetIs ReadTarget(const Launch& launch, int64_t position, int64_t* target,
                           double* weight) {
  const ClassAxisProblem& problem = *launch.problem;
  const At at = Locate(launch, kTarget, position);
  *target = LoadInteger(at.base, problem.operands[kTarget].integer, at.element);
  if (*target == problem.ignore_index) return TargetIs::kIgnored;
  if (*target < 0 || *target >= problem.classes) return TargetIs::kOutOfRange;
  *weight = launch.weights(*target);
  return TargetIs::kCounted;
}

// An input's element at a position (a gradient per position, or one for all) or kOne.
double LoadScalar(const Launch& launch, int which, int64_t position) {
  const At at = Locate(launch, which, position);
  return LoadAs32(at.base, launch.problem->operands[which].type, at.element);
}

void StoreAt(const Launch& launch, int which, int64_t position, double value) {
  const At at = Locate(launch, which, position);
  const FloatType type = launch.problem->operands[which].type;
  StoreFrom32(at.base, type, at.element, RoundedTo(value, type));
}

Row SelfRow(const Launch& launch, int64_t position) {
  const At at = Locate(launch, kSelf, position);
  return {at.base, launch.problem->operands[kSelf].type, at.element,
          launch.problem->class_strides[kSelf]};
}

// A counted position's loss rounded once: its estimate where the bound settles the rounding, else
// the family's exact term.
template <class Family>
double SettledLoss(const Launch& launch, int64_t position, int64_t target, const Estimated& loss) {
  double value = loss.value;
  if (loss.bound == 0.0 || Settles(loss, launch.problem->operands[kOut].type, &value)) {
    return value;
  }
  return math::exact::RoundToOdd(
      Family::ExactLossTerm(SelfRow(launch, position), launch.weights, target, launch.constants));
}

// The log-sum-exps of a block's rows, where they are short contiguous fp32 rows one position
// apart on one axis, computed a vector of rows at a time (EstimateLogSumExpRows32) in the calling
// thread's scratch: entry p - first is position p's. nullptr where the rows are not such, or the
// family's losses do not read their rows.
template <class Family>
const log_sum_exp::LogSumExp* ShortRows(const Launch& launch, int64_t first, int64_t last) {
  const ClassAxisProblem& problem = *launch.problem;
  if (!Family::kLossReadsRows || problem.kind != LossKind::kLoss || problem.rank != 1 ||
      problem.classes >= kShortRow || problem.operands[kSelf].strides[0] >= (int64_t{1} << 24)) {
    return nullptr;
  }
  const float* row = SelfRow(launch, first).Contiguous32();
  if (row == nullptr) return nullptr;
  thread_local std::vector<log_sum_exp::LogSumExp> rows;
  if (static_cast<int64_t>(rows.size()) < last - first) rows.resize(last - first);
  EstimateLogSumExpRows32(row, last - first, problem.classes, problem.operands[kSelf].strides[0],
                          rows.data());
  return rows.data();
}

template <class Family>
void RunBlock(Launch& launch, int64_t first, int64_t last, Total* loss, Total* weight,
              int64_t* fault_position, int64_t* fault_target) {
  const ClassAxisProblem& problem = *launch.problem;
  const bool reduces = problem.reduction != Reduction::kNone;
  const bool has_log_prob = problem.operands[kLogProbOut].slot >= 0;
  const Weights& weights = launch.weights;
  Total block_loss, block_weight;  // local, so that they can live in registers
  const log_sum_exp::LogSumExp* short_rows = ShortRows<Family>(launch, first, last);
  for (int64_t position = first; position < last; ++position) {
    int64_t target = 0;
    double class_weight = 0.0;
    const TargetIs is = ReadTarget(launch, position, &target, &class_weight);
    if (is == TargetIs::kOutOfRange && position < *fault_position) {
      *fault_position = position;
      *fault_target = target;
    }
    Row row = SelfRow(launch, position);
    if (short_rows != nullptr) row.log_sum_exp = &short_rows[position - first];
    if (problem.kind == LossKind::kGradSelf) {
      OutRow out_row = RowOf(launch, kOut, position);
      if (is == TargetIs::kIgnored) out_row.Zero();
      if (is == TargetIs::kOutOfRange) out_row.Fill(kCanonicalNaN);
      if (is != TargetIs::kCounted) continue;
      Family::GradientRow(row, out_row, weights, target, LoadScalar(launch, kGradOutput, position),
                          launch.constants, out_row.type);
      continue;
    }
    OutRow log_prob = has_log_prob ? RowOf(launch, kLogProbOut, position) : OutRow{};
    Estimated term =
        Family::LossRow(row, weights, has_log_prob ? &log_prob : nullptr,
                        is == TargetIs::kCounted ? &target : nullptr, launch.constants);
    if (is == TargetIs::kOutOfRange) term = {kCanonicalNaN, NAN};
    if (!reduces) {
      const double value = is == TargetIs::kCounted
                               ? SettledLoss<Family>(launch, position, target, term)
                               : term.value;
      StoreAt(launch, kOut, position, value);
    } else if (is != TargetIs::kIgnored) {
      block_loss.Add(term);
      if (is == TargetIs::kCounted) block_weight.Add(class_weight);
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
                    int64_t* fault_position, int64_t* fault_target) {
  const ClassAxisProblem& problem = *launch.problem;
  const At targets = Locate(launch, kTarget, first);
  const Index* target = static_cast<const Index*>(targets.base) + targets.element;
  const int64_t target_step = problem.operands[kTarget].strides[0];
  const int64_t self_step = problem.operands[kSelf].strides[0];
  Row row = SelfRow(launch, first);
  Total block_loss, block_weight;
  for (int64_t position = first; position < last;
       ++position, target += target_step, row.start += self_step) {
    int64_t index = *target;
    if (index == problem.ignore_index) continue;
    if (index < 0 || index >= problem.classes) {
      if (position < *fault_position) *fault_position = position, *fault_target = index;
      block_loss.Add(kCanonicalNaN);
      continue;
    }
    block_loss.Add(
        Family::LossRow(row, launch.weights, static_cast<Row*>(nullptr), &index, launch.constants));
    block_weight.Add(launch.weights(index));
  }
  loss->Add(block_loss);
  weight->Add(block_weight);
}

// RunBlock, or ReduceGathered where it applies.
template <class Family>
void RunPositions(Launch& launch, int64_t first, int64_t last, Total* loss, Total* weight,
                  int64_t* fault_position, int64_t* fault_target) {
  const ClassAxisProblem& problem = *launch.problem;
  if constexpr (!Family::kLossReadsRows) {
    if (problem.kind == LossKind::kLoss && problem.reduction != Reduction::kNone &&
        problem.rank == 1) {
      if (problem.operands[kTarget].integer == IntegerType::kInt64) {
        return ReduceGathered<Family, int64_t>(launch, first, last, loss, weight, fault_position,
                                               fault_target);
      }
      if (problem.operands[kTarget].integer == IntegerType::kInt32) {
        return ReduceGathered<Family, int32_t>(launch, first, last, loss, weight, fault_position,
                                               fault_target);
      }
    }
  }
  RunBlock<Family>(launch, first, last, loss, weight, fault_position, fault_target);
}

template <class Family>
void RunWorker(void* context, int /*worker*/) {
  auto& launch = *static_cast<Launch*>(context);
  Total loss, weight;
  int64_t fault_position = std::numeric_limits<int64_t>::max(), fault_target = 0;
  const int64_t positions = launch.problem->positions;
  for (;;) {
    const int64_t block = launch.next_block.fetch_add(1, std::memory_order_relaxed);
    if (block >= launch.blocks) break;
    const int64_t first = block * launch.positions_per_block;
    RunPositions<Family>(launch, first, std::min(positions, first + launch.positions_per_block),
                         &loss, &weight, &fault_position, &fault_target);
  }
  std::lock_guard<std::mutex> lock(launch.mu);
  launch.loss.Add(loss);
  launch.weight.Add(weight);
  if (fault_position < launch.fault_position) {
    launch.fault_position = fault_position;
    launch.fault_target = fault_target;
  }
}

// A reduction's sum and total weight, exact: every counted position's term again (exact or in
// double-double) and its weight. For the results the estimates leave open, which are rare: one
// thread.
struct ExactTotals {
  ExactSum loss, weight;
};
template <class Family>
ExactTotals ExactPass(const Launch& launch) {
  ExactTotals totals;
  for (int64_t position = 0; position < launch.problem->positions; ++position) {
    int64_t target = 0;
    double class_weight = 0.0;
    if (ReadTarget(launch, position, &target, &class_weight) != TargetIs::kCounted) continue;
    totals.weight.Add(class_weight);
    totals.loss.Add(
        Family::ExactLossTerm(SelfRow(launch, position), launch.weights, target, launch.constants));
  }
  return totals;
}

// The estimate of the sum S over the total weight W, and its bound: with |S* - S| <= eS and
// |W* - W| <= eW < |W|, |S*/W* - S/W| <= (eS + |S/W| eW) / (|W| - eW), and fl(S/W) is within
// 2^-53 of S/W. Open() where W's sign is open or the quotient is not finite.
Estimated Quotient(const Estimated& sum, const Estimated& weight) {
  const double margin = std::fabs(weight.value) - weight.bound;
  const double q = sum.value / weight.value;
  if (!(margin > 0.0) || !std::isfinite(q)) return Open();
  const double magnitude = std::fabs(q) * (1.0 + 0x1p-52);
  return {q, (sum.bound + magnitude * weight.bound) / margin + magnitude * 0x1p-53};
}

// The reduced loss (the sum, or its quotient by the total weight) and the total weight, each
// rounded once: from the estimates where their bounds settle it, else from the exact pass.
template <class Family>
void StoreTotals(const Launch& launch) {
  const ClassAxisProblem& problem = *launch.problem;
  if (problem.kind != LossKind::kLoss) return;
  std::optional<ExactTotals> exact;
  const auto exact_totals = [&]() -> const ExactTotals& {
    if (!exact) exact = ExactPass<Family>(launch);
    return *exact;
  };
  const Total& loss = launch.loss;
  const Total& weight = launch.weight;
  const auto total_weight = [&](FloatType type) {
    double value = weight.special;
    if (weight.has_special || Settles(weight.Estimate(), type, &value)) return value;
    return exact_totals().weight.RoundedToOdd();
  };
  if (problem.operands[kTotalWeightOut].slot >= 0) {
    StoreAt(launch, kTotalWeightOut, kOne, total_weight(problem.operands[kTotalWeightOut].type));
  }
  if (problem.reduction == Reduction::kNone) return;
  const FloatType type = problem.operands[kOut].type;
  const bool mean = problem.reduction == Reduction::kMean;
  double value;
  if (loss.has_special || weight.has_special) {
    value = loss.has_special ? loss.special : exact_totals().loss.RoundedToOdd();
    if (mean) value /= total_weight(FloatType::kFloat32);  // a special's class, its sign
  } else if (!Settles(mean ? Quotient(loss.Estimate(), weight.Estimate()) : loss.Estimate(), type,
                      &value)) {
    const ExactTotals& totals = exact_totals();
    value = mean ? math::exact::RoundedQuotient(totals.loss, totals.weight, type)
                 : totals.loss.RoundedToOdd();
  }
  StoreAt(launch, kOut, kOne, value);
}

// The constants of every row: C, eps, Omega, and a gradient's divisor: a mean's total weight, the
// op's totalWeight where it has one, else the exact sum of the counted positions' weights.
RowConstants ConstantsOf(const Launch& launch) {
  const ClassAxisProblem& problem = *launch.problem;
  RowConstants k;
  k.classes = problem.classes;
  k.smoothing = problem.label_smoothing;
  if (k.smoothing != 0.0) {  // Omega's only use: the smoothing part (0 by default)
    const Weights& weights = launch.weights;
    ExactSum omega;
    for (int64_t c = 0; c < problem.classes; ++c) omega.Add(weights(c));
    k.weight_sum = LeadingTwo(omega);
  }
  if (problem.kind != LossKind::kGradSelf || problem.reduction != Reduction::kMean) return k;
  if (problem.operands[kTotalWeight].slot >= 0) {
    k.divisor = {LoadScalar(launch, kTotalWeight, kOne), 0.0};
    return k;
  }
  ExactSum total;
  for (int64_t position = 0; position < problem.positions; ++position) {
    int64_t target = 0;
    double class_weight = 0.0;
    if (ReadTarget(launch, position, &target, &class_weight) == TargetIs::kCounted) {
      total.Add(class_weight);
    }
  }
  k.divisor = LeadingTwo(total);
  return k;
}

const char* Fault(const Launch& launch) {
  thread_local char text[256];
  std::snprintf(text, sizeof text,
                "target %" PRId64 " of position %" PRId64
                " is out of range: a class index must lie in [0, %" PRId64
                ") or equal ignoreIndex (%" PRId64 ").",
                launch.fault_target, launch.fault_position, launch.problem->classes,
                launch.problem->ignore_index);
  return text;
}

}  // namespace

const char* RunClassAxisCpu(const ClassAxisProblem& problem, const LaunchContext& context) {
  Launch launch;
  launch.problem = &problem;
  launch.addresses = &context.addresses;
  launch.weights = WeightsOf(launch);
  launch.constants = ConstantsOf(launch);
  WithClassAxisFamily(problem.family, [&](auto family) {
    using Family = decltype(family);
    const bool reads_rows = problem.kind == LossKind::kGradSelf || Family::kLossReadsRows;
    // A position that reads one element costs about as much as eight that stream (a gathered
    // load, the target's check and weight).
    const int64_t per_position = reads_rows ? std::max<int64_t>(1, problem.classes) : 8;
    launch.positions_per_block = std::max<int64_t>(1, kReductionBlock / per_position);
    launch.blocks =
        (problem.positions + launch.positions_per_block - 1) / launch.positions_per_block;
    const int participants = static_cast<int>(std::min<int64_t>(launch.blocks / 2, 1 << 20));
    ThreadPool::Instance().Run(std::max(participants, 1), RunWorker<Family>, &launch);
    StoreTotals<Family>(launch);
  });
  return launch.fault_position == std::numeric_limits<int64_t>::max() ? nullptr : Fault(launch);
}

}  // namespace openaclnn::cpu
