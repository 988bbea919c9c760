// The CPU's class-axis kernels: the positions in blocks of about kReductionBlock elements of
// work, shared by the thread pool; per position its target's check, its class weight and the
// family's loss term or gradient row; a reduction's sums exact (ExactSum), so the one rounding of
// a mean or sum is the same whatever the threads and the order they add in.
#include "backends/cpu/class_axis_cpu.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>

#include "backends/cpu/thread_pool.h"
#include "kernels/class_axis_families.h"
#include "kernels/exact_sum.h"

namespace openaclnn::cpu {
namespace {

using math::exact::ExactSum;

// An exact sum of finite terms beside the fp64 sum of the others (infinities and NaNs, whose sum
// is the same in any order): the value is the latter where there is one.
struct Total {
  ExactSum finite;
  double special = 0.0;
  bool has_special = false;
  void Add(double term) {
    if (std::isfinite(term)) {
      finite.Add(term);
    } else {
      special += term;
      has_special = true;
    }
  }
  void Add(const Total& other) {
    finite.Add(other.finite);
    if (other.has_special) Add(other.special);
  }
  // A double whose one rounding to any output type is the total's.
  double RoundedToOdd() const { return has_special ? special : finite.RoundedToOdd(); }
};

struct Launch {
  const ClassAxisProblem* problem = nullptr;
  const TensorAddresses* addresses = nullptr;
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

// self's row at a position, read as the families read it.
struct Row {
  const void* base;
  FloatType type;
  int64_t start, stride;
  double At(int64_t c) const { return LoadAs32(base, type, start + c * stride); }
};

// out's row at a position (a gradient's), written as the families write it.
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
};

// A position's target: counted (its class, its weight), ignored, or out of range (a fault).
enum class TargetIs { kCounted, kIgnored, kOutOfRange };
TargetIs ReadTarget(const Launch& launch, int64_t position, int64_t* target, double* weight) {
  const ClassAxisProblem& problem = *launch.problem;
  const At at = Locate(launch, kTarget, position);
  *target = LoadInteger(at.base, problem.operands[kTarget].integer, at.element);
  if (*target == problem.ignore_index) return TargetIs::kIgnored;
  if (*target < 0 || *target >= problem.classes) return TargetIs::kOutOfRange;
  *weight = 1.0;
  const StridedOperand& weights = problem.operands[kWeight];
  if (weights.slot >= 0) {
    *weight = LoadAs32((*launch.addresses)[weights.slot], weights.type,
                       weights.offset + *target * problem.class_strides[kWeight]);
  }
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

template <class Family>
void RunBlock(Launch& launch, int64_t first, int64_t last, Total* loss, Total* weight,
              int64_t* fault_position, int64_t* fault_target) {
  const ClassAxisProblem& problem = *launch.problem;
  const bool reduces = problem.reduction != Reduction::kNone;
  const StridedOperand& self = problem.operands[kSelf];
  const StridedOperand& out = problem.operands[kOut];
  const double divisor =
      problem.kind == LossKind::kGradSelf && problem.reduction == Reduction::kMean
          ? LoadScalar(launch, kTotalWeight, kOne)
          : 1.0;
  for (int64_t position = first; position < last; ++position) {
    int64_t target = 0;
    double class_weight = 0.0;
    const TargetIs is = ReadTarget(launch, position, &target, &class_weight);
    if (is == TargetIs::kOutOfRange && position < *fault_position) {
      *fault_position = position;
      *fault_target = target;
    }
    const At self_at = Locate(launch, kSelf, position);
    const Row row{self_at.base, self.type, self_at.element, problem.class_strides[kSelf]};
    if (problem.kind == LossKind::kGradSelf) {
      const At out_at = Locate(launch, kOut, position);
      OutRow out_row{out_at.base, out.type, out_at.element, problem.class_strides[kOut],
                     problem.classes};
      if (is == TargetIs::kIgnored) out_row.Zero();
      if (is == TargetIs::kOutOfRange) out_row.Fill(kCanonicalNaN);
      if (is != TargetIs::kCounted) continue;
      Family::GradientRow(row, out_row, target, class_weight,
                          LoadScalar(launch, kGradOutput, position), divisor, out.type);
      continue;
    }
    const double term = is == TargetIs::kCounted   ? Family::LossTerm(row, target, class_weight)
                        : is == TargetIs::kIgnored ? 0.0
                                                   : kCanonicalNaN;
    if (!reduces) {
      StoreAt(launch, kOut, position, term);
    } else if (is != TargetIs::kIgnored) {
      loss->Add(term);
      if (is == TargetIs::kCounted) weight->Add(class_weight);
    }
  }
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
    RunBlock<Family>(launch, first, std::min(positions, first + launch.positions_per_block), &loss,
                     &weight, &fault_position, &fault_target);
  }
  std::lock_guard<std::mutex> lock(launch.mu);
  launch.loss.Add(loss);
  launch.weight.Add(weight);
  if (fault_position < launch.fault_position) {
    launch.fault_position = fault_position;
    launch.fault_target = fault_target;
  }
}

// The reduced loss (the sum, or its exact quotient by the total weight) and the total weight.
void StoreTotals(const Launch& launch) {
  const ClassAxisProblem& problem = *launch.problem;
  if (problem.kind != LossKind::kLoss) return;
  if (problem.operands[kTotalWeightOut].slot >= 0) {
    StoreAt(launch, kTotalWeightOut, kOne, launch.weight.RoundedToOdd());
  }
  if (problem.reduction == Reduction::kNone) return;
  double value = launch.loss.RoundedToOdd();
  if (problem.reduction == Reduction::kMean) {
    value = launch.loss.has_special || launch.weight.has_special
                ? value / launch.weight.RoundedToOdd()
                : math::exact::RoundedQuotient(launch.loss.finite, launch.weight.finite,
                                               problem.operands[kOut].type);
  }
  StoreAt(launch, kOut, kOne, value);
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
  const int64_t per_position = problem.kind == LossKind::kGradSelf ? problem.classes : 1;
  launch.positions_per_block =
      std::max<int64_t>(1, kReductionBlock / std::max<int64_t>(1, per_position));
  launch.blocks = (problem.positions + launch.positions_per_block - 1) / launch.positions_per_block;
  const int participants = static_cast<int>(std::min<int64_t>(launch.blocks / 2, 1 << 20));
  WithClassAxisFamily(problem.family, [&](auto family) {
    ThreadPool::Instance().Run(std::max(participants, 1), RunWorker<decltype(family)>, &launch);
  });
  StoreTotals(launch);
  return launch.fault_position == std::numeric_limits<int64_t>::max() ? nullptr : Fault(launch);
}

}  // namespace openaclnn::cpu
