// What every backend's class-axis kernel does around the families' row functions
// (kernels/class_axis_families.h), host/device so that the backends cannot drift: a position's
// operands and target, its work (RunPosition), the reductions' totals (a sum of fp64 estimates
// beside a bound, in any order), their one rounding (StoreTotals, with the exact pass where the
// bound leaves it open), the rows' constants and the first out-of-range target. A backend brings
// the order it visits positions in, and its own Row and OutRow types (the families' contracts).
#pragma once

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "base/executor.h"
#include "kernels/class_axis_problem.h"
#include "kernels/class_axis_row.h"
#include "kernels/exact_sum.h"
#include "kernels/strided_operand.h"

namespace openaclnn::class_axis {

// An estimate that settles nothing.
OPENACLNN_HOST_DEVICE inline Estimated Open() { return {0.0, INFINITY}; }

// A sum of estimated terms in fp64, added in any order, beside what bounds its distance from the
// sum of the terms' exact values (Estimate): their own bounds, and the additions' roundings, at
// most gamma(n) = n 2^-53 / (1 - n 2^-53) times the sum of the terms' magnitudes for n terms in any
// order (Higham, Accuracy and Stability of Numerical Algorithms, 4.2). A result whose rounding
// this leaves open takes the exact pass (ExactPass). Infinities and NaNs apart: their sum is
// the same in any order.
struct Total {
  double sum = 0.0, magnitude = 0.0, bound = 0.0;
  int64_t count = 0;
  double special = 0.0;
  bool has_special = false;
  OPENACLNN_HOST_DEVICE void Add(double term) {
    if (std::isfinite(term)) {
      sum += term;
      magnitude += std::fabs(term);
      ++count;
    } else {
      special += term;
      has_special = true;
    }
  }
  OPENACLNN_HOST_DEVICE void Add(const Estimated& term) {
    Add(term.value);
    if (std::isfinite(term.value)) bound += term.bound;
  }
  OPENACLNN_HOST_DEVICE void Add(const Total& other) {
    sum += other.sum;
    magnitude += other.magnitude;
    bound += other.bound;
    count += other.count;
    if (other.has_special) Add(other.special);
  }
  // The finite terms' sum and its bound (Open() where it could overflow or n 2^-53 is not
  // small). The bound's own roundings (in magnitude, in the sum of bounds and in the product,
  // each within gamma(n) < 2^-21 relatively) are covered by a factor of 1 + 2^-19.
  OPENACLNN_HOST_DEVICE Estimated Estimate() const {
    const double gamma = static_cast<double>(count) * 0x1p-53;
    if (gamma >= 0x1p-22 || !std::isfinite(magnitude)) return Open();
    return {sum, (bound + gamma * (1.0 + 0x1p-21) * magnitude) * (1.0 + 0x1p-19)};
  }
};

// The estimate of the sum S over the total weight W, and its bound: with |S* - S| <= eS and
// |W* - W| <= eW < |W|, |S*/W* - S/W| <= (eS + |S/W| eW) / (|W| - eW), and fl(S/W) is within
// 2^-53 of S/W. Open() where W's sign is open or the quotient is not finite.
OPENACLNN_HOST_DEVICE inline Estimated Quotient(const Estimated& sum, const Estimated& weight) {
  const double margin = std::fabs(weight.value) - weight.bound;
  const double q = sum.value / weight.value;
  if (!(margin > 0.0) || !std::isfinite(q)) return Open();
  const double magnitude = std::fabs(q) * (1.0 + 0x1p-52);
  return {q, (sum.bound + magnitude * weight.bound) / margin + magnitude * 0x1p-53};
}

// The lowest position whose target is out of range, and that target (none: position INT64_MAX).
struct Fault {
  int64_t position = INT64_MAX;
  int64_t target = 0;
  OPENACLNN_HOST_DEVICE void Add(int64_t at, int64_t value) {
    if (at < position) position = at, target = value;
  }
  OPENACLNN_HOST_DEVICE void Add(const Fault& other) { Add(other.position, other.target); }
  OPENACLNN_HOST_DEVICE bool Any() const { return position != INT64_MAX; }
};

// A fault's reason, as every backend's run_class_axis returns it (in the calling thread's
// buffer).
inline const char* FaultText(const ClassAxisProblem& problem, const Fault& fault) {
  thread_local char text[256];
  std::snprintf(text, sizeof text,
                "target %" PRId64 " of position %" PRId64
                " is out of range: a class index must lie in [0, %" PRId64
                ") or equal ignoreIndex (%" PRId64 ").",
                fault.target, fault.position, problem.classes, problem.ignore_index);
  return text;
}

// The class weights (1 without a weight tensor).
struct Weights {
  const void* base;  // nullptr: no weights
  FloatType type;
  int64_t offset, stride;
  OPENACLNN_HOST_DEVICE double operator()(int64_t c) const {
    return base == nullptr ? 1.0 : LoadAs32(base, type, offset + c * stride);
  }
  OPENACLNN_HOST_DEVICE const float* Contiguous32() const {
    return base != nullptr && type == FloatType::kFloat32 && stride == 1
               ? static_cast<const float*>(base) + offset
               : nullptr;
  }
};

// Where operand `which` is at a position: its base address and the element there.
struct At {
  void* base;
  int64_t element;
};
// The position of a one-element operand (a reduced result, a total weight): its offset.
inline constexpr int64_t kOne = -1;

// A position's target: counted (its class, its weight), ignored, or out of range (a fault).
enum class TargetIs { kCounted, kIgnored, kOutOfRange };
OPENACLNN_HOST_DEVICE inline TargetIs Classify(const ClassAxisProblem& problem, int64_t target) {
  if (target == problem.ignore_index) return TargetIs::kIgnored;
  if (target < 0 || target >= problem.classes) return TargetIs::kOutOfRange;
  return TargetIs::kCounted;
}

// A launch's problem and tensor addresses as the steps read them, and its class weights.
struct View {
  ClassAxisProblem problem;
  void* addresses[kMaxOpTensors];
  Weights weights;

  OPENACLNN_HOST_DEVICE At Locate(int which, int64_t position) const {
    const StridedOperand& operand = problem.operands[which];
    return {addresses[operand.slot],
            position == kOne ? operand.offset
                             : ElementOf(operand, problem.shape, problem.rank, position)};
  }
  OPENACLNN_HOST_DEVICE TargetIs ReadTarget(int64_t position, int64_t* target,
                                            double* weight) const {
    const At at = Locate(kTarget, position);
    *target = LoadInteger(at.base, problem.operands[kTarget].integer, at.element);
    const TargetIs is = Classify(problem, *target);
    if (is == TargetIs::kCounted) *weight = weights(*target);
    return is;
  }
  // An input's element at a position (a gradient per position, or one for all) or kOne.
  OPENACLNN_HOST_DEVICE double LoadScalar(int which, int64_t position) const {
    const At at = Locate(which, position);
    return LoadAs32(at.base, problem.operands[which].type, at.element);
  }
  OPENACLNN_HOST_DEVICE void StoreAt(int which, int64_t position, double value) const {
    const At at = Locate(which, position);
    const FloatType type = problem.operands[which].type;
    StoreFrom32(at.base, type, at.element, RoundedTo(value, type));
  }
  // self's row at a position, through a backend's Row ({base, type, start, stride}).
  template <class Row>
  OPENACLNN_HOST_DEVICE Row SelfRow(int64_t position) const {
    const At at = Locate(kSelf, position);
    return {at.base, problem.operands[kSelf].type, at.element, problem.class_strides[kSelf]};
  }
  // A self-shaped output's row, through a backend's OutRow ({base, type, start, stride, C}).
  template <class OutRow>
  OPENACLNN_HOST_DEVICE OutRow RowOf(int which, int64_t position) const {
    const At at = Locate(which, position);
    return {at.base, problem.operands[which].type, at.element, problem.class_strides[which],
            problem.classes};
  }
};

inline View ViewOf(const ClassAxisProblem& problem, const LaunchContext& context) {
  View view;
  view.problem = problem;
  for (size_t slot = 0; slot < kMaxOpTensors; ++slot) {
    view.addresses[slot] = context.addresses[slot];
  }
  const StridedOperand& weights = problem.operands[kWeight];
  view.weights = weights.slot < 0 ? Weights{nullptr, FloatType::kFloat32, 0, 0}
                                  : Weights{view.addresses[weights.slot], weights.type,
                                            weights.offset, problem.class_strides[kWeight]};
  return view;
}

// A counted position's loss rounded once: its estimate where the bound settles the rounding, else
// the family's exact term.
template <class Family, class Row>
OPENACLNN_HOST_DEVICE double SettledLoss(const View& view, const RowConstants& k, const Row& row,
                                         int64_t target, const Estimated& loss) {
  double value = loss.value;
  if (loss.bound == 0.0 || Settles(loss, view.problem.operands[kOut].type, &value)) return value;
  return math::exact::RoundToOdd(Family::ExactLossTerm(row, view.weights, target, k));
}

// One position's work: its target's check, then a gradient's row, or its loss stored (reduction
// none) or added to `loss` and its weight to `weight` (a reduction); its log-probabilities where
// the op has them. An out-of-range target's results are NaN, and it goes to `fault`. `row`: self's
// row at the position (view.SelfRow's, or one the backend prepared more of).
template <class Family, class Row, class OutRow>
OPENACLNN_HOST_DEVICE void RunPosition(const View& view, const RowConstants& k, int64_t position,
                                       const Row& row, Total& loss, Total& weight, Fault& fault) {
  const ClassAxisProblem& problem = view.problem;
  int64_t target = 0;
  double class_weight = 0.0;
  const TargetIs is = view.ReadTarget(position, &target, &class_weight);
  if (is == TargetIs::kOutOfRange) fault.Add(position, target);
  if (problem.kind == LossKind::kGradSelf) {
    OutRow out_row = view.RowOf<OutRow>(kOut, position);
    if (is == TargetIs::kIgnored) out_row.Zero();
    if (is == TargetIs::kOutOfRange) out_row.Fill(kCanonicalNaN);
    if (is != TargetIs::kCounted) return;
    Family::GradientRow(row, out_row, view.weights, target, view.LoadScalar(kGradOutput, position),
                        k, out_row.type);
    return;
  }
  const bool has_log_prob = problem.operands[kLogProbOut].slot >= 0;
  OutRow log_prob = has_log_prob ? view.RowOf<OutRow>(kLogProbOut, position) : OutRow{};
  Estimated term = Family::LossRow(row, view.weights, has_log_prob ? &log_prob : nullptr,
                                   is == TargetIs::kCounted ? &target : nullptr, k);
  if (is == TargetIs::kOutOfRange) term = {kCanonicalNaN, NAN};
  if (problem.reduction == Reduction::kNone) {
    const double value =
        is == TargetIs::kCounted ? SettledLoss<Family>(view, k, row, target, term) : term.value;
    view.StoreAt(kOut, position, value);
  } else if (is != TargetIs::kIgnored) {
    loss.Add(term);
    if (is == TargetIs::kCounted) weight.Add(class_weight);
  }
}
template <class Family, class Row, class OutRow>
OPENACLNN_HOST_DEVICE void RunPosition(const View& view, const RowConstants& k, int64_t position,
                                       Total& loss, Total& weight, Fault& fault) {
  RunPosition<Family, Row, OutRow>(view, k, position, view.SelfRow<Row>(position), loss, weight,
                                   fault);
}

// A reduction's sum and total weight, exact: every counted position's term again (exact or in
// double-double) and its weight. For the results the estimates leave open, which are rare: one
// thread.
struct ExactTotals {
  math::exact::ExactSum loss, weight;
};
template <class Family, class Row>
OPENACLNN_HOST_DEVICE void ExactPass(const View& view, const RowConstants& k, ExactTotals& totals) {
  for (int64_t position = 0; position < view.problem.positions; ++position) {
    int64_t target = 0;
    double class_weight = 0.0;
    if (view.ReadTarget(position, &target, &class_weight) != TargetIs::kCounted) continue;
    totals.weight.Add(class_weight);
    totals.loss.Add(Family::ExactLossTerm(view.SelfRow<Row>(position), view.weights, target, k));
  }
}

// The reduced loss (the sum, or its quotient by the total weight) and the total weight, each
// rounded once: from the estimates where their bounds settle it, else from the exact pass.
template <class Family, class Row>
OPENACLNN_HOST_DEVICE void StoreTotals(const View& view, const RowConstants& k, const Total& loss,
                                       const Total& weight) {
  const ClassAxisProblem& problem = view.problem;
  if (problem.kind != LossKind::kLoss) return;
  ExactTotals exact;
  bool have_exact = false;
  const auto exact_totals = [&]() -> const ExactTotals& {
    if (!have_exact) ExactPass<Family, Row>(view, k, exact);
    have_exact = true;
    return exact;
  };
  const auto total_weight = [&](FloatType type) {
    double value = weight.special;
    if (weight.has_special || Settles(weight.Estimate(), type, &value)) return value;
    return exact_totals().weight.RoundedToOdd();
  };
  if (problem.operands[kTotalWeightOut].slot >= 0) {
    view.StoreAt(kTotalWeightOut, kOne, total_weight(problem.operands[kTotalWeightOut].type));
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
  view.StoreAt(kOut, kOne, value);
}

// Whether the rows' constants need the exact sum of the counted positions' weights (a mean's
// gradient without the op's totalWeight).
OPENACLNN_HOST_DEVICE inline bool NeedsCountedWeights(const ClassAxisProblem& problem) {
  return problem.kind == LossKind::kGradSelf && problem.reduction == Reduction::kMean &&
         problem.operands[kTotalWeight].slot < 0;
}

// A position's weight added to `sum` where its target counts.
OPENACLNN_HOST_DEVICE inline void AddCountedWeight(const View& view, int64_t position,
                                                   math::exact::ExactSum& sum) {
  int64_t target = 0;
  double class_weight = 0.0;
  if (view.ReadTarget(position, &target, &class_weight) == TargetIs::kCounted) {
    sum.Add(class_weight);
  }
}

// The constants of every row: C, eps, Omega, and a gradient's divisor: a mean's total weight, the
// op's totalWeight where it has one, else `counted_weights` (the exact sum of the counted
// positions' weights, where NeedsCountedWeights).
OPENACLNN_HOST_DEVICE inline RowConstants ConstantsOf(
    const View& view, const math::exact::ExactSum* counted_weights) {
  const ClassAxisProblem& problem = view.problem;
  RowConstants k;
  k.classes = problem.classes;
  k.smoothing = problem.label_smoothing;
  if (k.smoothing != 0.0) {  // Omega's only use: the smoothing part (0 by default)
    math::exact::ExactSum omega;
    for (int64_t c = 0; c < problem.classes; ++c) omega.Add(view.weights(c));
    k.weight_sum = LeadingTwo(omega);
  }
  if (problem.kind != LossKind::kGradSelf || problem.reduction != Reduction::kMean) return k;
  if (problem.operands[kTotalWeight].slot >= 0) {
    k.divisor = {view.LoadScalar(kTotalWeight, kOne), 0.0};
  } else {
    k.divisor = LeadingTwo(*counted_weights);
  }
  return k;
}

}  // namespace openaclnn::class_axis
