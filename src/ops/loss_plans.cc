#include "ops/loss_plans.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "base/dtype.h"
#include "base/shape.h"
#include "base/tensor.h"

namespace openaclnn {
namespace {

class LossPlan : public Plan {
 public:
  LossPlan(const LossKernels& kernels, const LossProblem& problem)
      : kernels_(kernels), problem_(problem) {}
  const char* Run(const LaunchContext& launch) const override {
    return kernels_.run(problem_, launch);
  }
  bool Quick() const override { return problem_.count <= kQuickElements; }

 private:
  const LossKernels& kernels_;
  LossProblem problem_;
};

class FillPlan : public Plan {
 public:
  FillPlan(const LossKernels& kernels, const StridedOperand& out, const std::vector<int64_t>& shape,
           double value)
      : kernels_(kernels), out_(out), rank_(static_cast<int>(shape.size())), value_(value) {
    for (int d = 0; d < rank_; ++d) shape_[d] = shape[d];
  }
  const char* Run(const LaunchContext& launch) const override {
    return kernels_.fill(out_, shape_, rank_, value_, launch);
  }
  bool Quick() const override {
    int64_t count = 1;
    for (int d = 0; d < rank_; ++d) count *= shape_[d];
    return count <= kQuickElements;
  }

 private:
  const LossKernels& kernels_;
  StridedOperand out_;
  int64_t shape_[kMaxRank] = {1};
  int rank_;
  double value_;
};

// How the output's elements relate to the iteration space.
enum class OutputMap {
  kElementWise,  // out has the iteration shape: one result per element
  kTotal,        // out is one element: the sum of every element
  kIntoShape,    // out's shape broadcasts into the iteration shape: each element of out sums
                 // the elements it was broadcast along
};

// How the kernels read or write `tensor`: its type, or for integer storage the type its values
// are rounded to (the promoted one) and its integer type; its offset.
void Describe(const aclTensor& tensor, int64_t promoted, int slot, StridedOperand* operand) {
  operand->slot = slot;
  operand->offset = tensor.offset;
  if (ToFloatType(tensor.dtype, &operand->type)) return;
  ToIntegerType(tensor.dtype, &operand->integer);  // the checks admitted no other type
  ToFloatType(promoted, &operand->type);           // stays fp32 for an integer promotion
}

// The broadcast shape of every input the op has (the checks made sure they broadcast).
std::vector<int64_t> IterationShape(const LossOperands& operands) {
  std::vector<int64_t> shape;
  for (int which = kSelf; which < kOut; ++which) {
    const aclTensor* tensor = operands.tensor[which];
    if (tensor != nullptr) BroadcastShape(shape, tensor->view_shape, &shape);
  }
  return shape;
}

// The dimensions of the iteration space, its operands' strides over them, in an order: the ones
// the output keeps first, those it sums last (innermost), so each of its elements is a run of
// consecutive flat indices; an element-wise walk orders them by memory instead.
struct Walk {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t strides[kOperandCount][kMaxRank] = {};
};

// Coalesces dims [begin, end) of `walk` (each group on its own, so that kept and summed
// dimensions never merge) into `into` from its rank on; returns the product of their sizes.
int64_t AppendCoalesced(const Walk& walk, const std::vector<int>& dims, Walk* into) {
  int64_t shape[kMaxRank] = {};
  int64_t strides[kOperandCount][kMaxRank] = {};
  int64_t* rows[kOperandCount];
  for (size_t i = 0; i < dims.size(); ++i) {
    shape[i] = walk.shape[dims[i]];
    for (int k = 0; k < kOperandCount; ++k) strides[k][i] = walk.strides[k][dims[i]];
  }
  for (int k = 0; k < kOperandCount; ++k) rows[k] = strides[k];
  int64_t product = 1;
  for (size_t i = 0; i < dims.size(); ++i) product *= shape[i];
  if (dims.empty() || product == 1) return product;
  const int rank = CoalesceDimensions(static_cast<int>(dims.size()), shape, rows, kOperandCount);
  for (int d = 0; d < rank; ++d) {
    into->shape[into->rank + d] = shape[d];
    for (int k = 0; k < kOperandCount; ++k) into->strides[k][into->rank + d] = strides[k][d];
  }
  into->rank += rank;
  return product;
}

std::unique_ptr<Plan> MakeLossPlan(const LossRequest& request, int64_t divisor, OutputMap map,
                                   const std::vector<int64_t>& shape, const LossOperands& operands,
                                   uint64_t* workspace_size) {
  LossProblem problem;
  problem.family = request.family;
  problem.kind = request.kind;
  problem.parameters = DividedBy(divisor, request.parameter, request.variant);
  problem.integer = request.promoted == ACL_INT64;
  problem.count = ElementCount(shape);
  const int rank = static_cast<int>(shape.size());
  Walk walk;
  walk.rank = rank;
  std::copy(shape.begin(), shape.end(), walk.shape);
  std::vector<int64_t> out_shape(rank, 1);  // out's shape aligned to the iteration's
  for (int which = 0; which < kOperandCount; ++which) {
    const aclTensor* tensor = operands.tensor[which];
    if (tensor == nullptr) continue;
    Describe(*tensor, request.promoted, operands.slot[which], &problem.operands[which]);
    if (which == kOut && map == OutputMap::kTotal) continue;  // one element: its offset alone
    BroadcastStrides(tensor->view_shape, tensor->strides, rank, walk.strides[which]);
    if (which == kOut) {
      std::copy(tensor->view_shape.begin(), tensor->view_shape.end(),
                out_shape.end() - static_cast<int64_t>(tensor->view_shape.size()));
    }
  }
  std::vector<int> kept, summed;
  for (int d = 0; d < rank; ++d) {
    const bool sums = map == OutputMap::kTotal ||
                      (map == OutputMap::kIntoShape && out_shape[d] == 1 && shape[d] > 1);
    (sums ? summed : kept).push_back(d);
  }
  Walk ordered;
  if (summed.empty()) {
    // Element-wise: the dimensions in memory order, the outputs deciding first (strided writes
    // cost most), then merged.
    constexpr OperandIndex kOutputsFirst[] = {
        kOut,       kGradSelfOut,    kSelf,        kTarget,         kWeight,
        kPosWeight, kGradOutput,     kTotalWeight, kTotalWeightOut, kLogProbOut,
        kZlossOut,  kLseForZlossOut, kGradZloss,   kLseForZloss};
    static_assert(std::size(kOutputsFirst) == kOperandCount);
    int64_t* rows[kOperandCount];
    for (int k = 0; k < kOperandCount; ++k) rows[k] = walk.strides[kOutputsFirst[k]];
    OrderDimensionsByStrides(rank, walk.shape, rows, kOperandCount);
    ordered.rank = CoalesceDimensions(rank, walk.shape, rows, kOperandCount);
    std::copy(walk.shape, walk.shape + ordered.rank, ordered.shape);
    for (int k = 0; k < kOperandCount; ++k) {
      std::copy(walk.strides[k], walk.strides[k] + ordered.rank, ordered.strides[k]);
    }
  } else {
    AppendCoalesced(walk, kept, &ordered);
    problem.segment = AppendCoalesced(walk, summed, &ordered);
    if (ordered.rank == 0) ordered.rank = 1, ordered.shape[0] = 1;  // a single element
  }
  problem.rank = ordered.rank;
  std::copy(ordered.shape, ordered.shape + ordered.rank, problem.shape);
  for (int k = 0; k < kOperandCount; ++k) {
    std::copy(ordered.strides[k], ordered.strides[k] + ordered.rank, problem.operands[k].strides);
  }
  const LossKernels& kernels = *CurrentLossKernels();  // CheckBackend made sure there are some
  *workspace_size = kernels.workspace_bytes(problem);
  return std::make_unique<LossPlan>(kernels, problem);
}

// Writes `value` into every element of the output (a mean or sum over nothing).
std::unique_ptr<Plan> MakeFillPlan(const LossRequest& request, const LossOperands& operands,
                                   double value) {
  const aclTensor& out = *operands.tensor[kOut];
  StridedOperand target;
  Describe(out, request.promoted, operands.slot[kOut], &target);
  for (size_t d = 0; d < out.view_shape.size(); ++d) target.strides[d] = out.strides[d];
  return std::make_unique<FillPlan>(*CurrentLossKernels(), target, out.view_shape, value);
}

// Self's first dimension, the divisor of batchmean (1 for a 0-D self, as torch).
int64_t FirstDimension(const LossOperands& operands) {
  const std::vector<int64_t>& shape = operands.tensor[kSelf]->view_shape;
  return shape.empty() ? 1 : shape[0];
}

// The element count of broadcast(self, target): a mean's N, the forward's for every gradient.
int64_t MeanCount(const LossOperands& operands) {
  std::vector<int64_t> shape = operands.tensor[kSelf]->view_shape;
  if (operands.tensor[kTarget] != nullptr) {
    BroadcastShape(shape, operands.tensor[kTarget]->view_shape, &shape);
  }
  return ElementCount(shape);
}

// A reduction's divisor: N for mean, self's first dimension for batchmean, else 1; at least 1
// (a mean over nothing is a fill, never a division).
int64_t DivisorOf(const LossOperands& operands, int64_t reduction) {
  const int64_t divisor = reduction == 1   ? MeanCount(operands)
                          : reduction == 3 ? FirstDimension(operands)
                                           : 1;
  return std::max<int64_t>(divisor, 1);
}

}  // namespace

std::unique_ptr<Plan> PlanLoss(const LossRequest& request, const LossOperands& operands,
                               int64_t reduction, uint64_t* workspace_size) {
  *workspace_size = 0;
  const std::vector<int64_t> shape = IterationShape(operands);
  if (ElementCount(shape) > 0) {
    const OutputMap map = reduction == 0 ? OutputMap::kElementWise : OutputMap::kTotal;
    return MakeLossPlan(request, DivisorOf(operands, reduction), map, shape, operands,
                        workspace_size);
  }
  // Over no elements: a sum is 0 and a mean 0 / 0; batchmean divides by self's first dimension.
  switch (reduction) {
    case 1:
      return MakeFillPlan(request, operands, std::nan(""));
    case 2:
      return MakeFillPlan(request, operands, 0.0);
    case 3:
      return MakeFillPlan(request, operands, FirstDimension(operands) == 0 ? std::nan("") : 0.0);
    default:
      return nullptr;
  }
}

std::unique_ptr<Plan> PlanLossOverFirstDimension(const LossRequest& request,
                                                 const LossOperands& operands, int64_t reduction,
                                                 uint64_t* workspace_size) {
  *workspace_size = 0;
  const std::vector<int64_t> shape = IterationShape(operands);
  if (reduction == 0 || shape.empty()) {  // a 0-D input's "reduction over dimension 0" is itself
    return PlanLoss(request, operands, 0, workspace_size);
  }
  if (ElementCount(shape) > 0) {
    return MakeLossPlan(request, reduction == 1 ? shape[0] : 1, OutputMap::kIntoShape, shape,
                        operands, workspace_size);
  }
  if (ElementCount(operands.tensor[kOut]->view_shape) == 0) return nullptr;
  return MakeFillPlan(request, operands, reduction == 1 ? std::nan("") : 0.0);  // shape[0] == 0
}

std::unique_ptr<Plan> PlanGradient(const LossRequest& request, const LossOperands& operands,
                                   int64_t reduction, uint64_t* workspace_size) {
  *workspace_size = 0;
  const std::vector<int64_t> shape = IterationShape(operands);
  if (ElementCount(shape) == 0) {
    // A sum of nothing where out is not empty and its shape is one the space reduces into; an op
    // whose checks leave the shapes of an empty self uncompared writes nothing (CANN's).
    const std::vector<int64_t>& out = operands.tensor[kOut]->view_shape;
    if (!request.empty_shapes_checked || ElementCount(out) == 0 || !BroadcastsInto(out, shape)) {
      return nullptr;
    }
    return MakeFillPlan(request, operands, 0.0);
  }
  const OutputMap map =
      operands.tensor[kOut]->view_shape == shape ? OutputMap::kElementWise : OutputMap::kIntoShape;
  return MakeLossPlan(request, DivisorOf(operands, reduction), map, shape, operands,
                      workspace_size);
}

}  // namespace openaclnn
