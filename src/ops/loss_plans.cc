#include "ops/loss_plans.h"

#include <cmath>
#include <iterator>
#include <vector>

#include "base/dtype.h"
#include "base/iteration.h"
#include "base/tensor.h"

namespace openaclnn {
namespace {

FloatType TypeOf(const aclTensor& tensor) {
  FloatType type = FloatType::kFloat32;
  ToFloatType(tensor.dtype, &type);  // the checks admitted only floating types
  return type;
}

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

// The gradient is element-wise whatever the forward reduced: mean only scales it by 1/N.
double GradientScale(const LossOperands& operands, Reduction reduction) {
  const double count = static_cast<double>(ElementCount(operands.tensor[kSelf]->view_shape));
  return reduction == Reduction::kMean ? 1.0 / count : 1.0;
}

}  // namespace

std::unique_ptr<Plan> PlanGradient(LossFamily family, LossKind kind, const LossOperands& operands,
                                   int64_t reduction, uint64_t* workspace_size) {
  *workspace_size = 0;
  if (ElementCount(operands.tensor[kSelf]->view_shape) == 0) return nullptr;
  const double scale = GradientScale(operands, static_cast<Reduction>(reduction));
  return MakeLossPlan(family, kind, Reduction::kNone, scale, operands, workspace_size);
}

std::unique_ptr<Plan> PlanLoss(LossFamily family, const LossOperands& operands, int64_t requested,
                               uint64_t* workspace_size) {
  const auto reduction = static_cast<Reduction>(requested);
  *workspace_size = 0;
  if (ElementCount(operands.tensor[kSelf]->view_shape) > 0) {
    return MakeLossPlan(family, LossKind::kLoss, reduction, GradientScale(operands, reduction),
                        operands, workspace_size);
  }
  // Over no elements: none has nothing to write, a mean is NaN and a sum is 0 (as CANN).
  switch (reduction) {
    case Reduction::kMean:
      return MakeFillPlan(operands, std::nan(""));
    case Reduction::kSum:
      return MakeFillPlan(operands, 0.0);
    default:
      return nullptr;
  }
}

std::unique_ptr<Plan> MakeLossPlan(LossFamily family, LossKind kind, Reduction reduction,
                                   double gradient_scale, const LossOperands& operands,
                                   uint64_t* workspace_size) {
  LossProblem problem;
  problem.family = family;
  problem.kind = kind;
  problem.reduction = reduction;
  problem.gradient_scale = gradient_scale;
  const std::vector<int64_t>& shape = operands.tensor[kSelf]->view_shape;
  problem.count = ElementCount(shape);
  // The outputs first: where the operands' memory orders disagree, theirs decides.
  constexpr OperandIndex kOutputsFirst[] = {kOut,    kGradSelfOut, kSelf,      kTarget,
                                            kWeight, kPosWeight,   kGradOutput};
  static_assert(std::size(kOutputsFirst) == kOperandCount);
  const aclTensor* walked[kOperandCount];
  int64_t* strides[kOperandCount];
  for (int k = 0; k < kOperandCount; ++k) {
    const OperandIndex which = kOutputsFirst[k];
    const aclTensor* tensor = operands.tensor[which];
    StridedOperand& operand = problem.operands[which];
    operand.slot = tensor == nullptr ? -1 : operands.slot[which];
    operand.offset = tensor == nullptr ? 0 : tensor->offset;
    if (tensor != nullptr) operand.type = TypeOf(*tensor);
    // A reduced output is one element: it is addressed by its offset alone.
    walked[k] = which == kOut && reduction != Reduction::kNone ? nullptr : tensor;
    strides[k] = operand.strides;
  }
  problem.rank = PlanIteration(shape, walked, strides, kOperandCount, reduction == Reduction::kNone,
                               problem.shape);
  const LossKernels& kernels = *CurrentLossKernels();  // CheckBackend made sure there are some
  *workspace_size = kernels.workspace_bytes(problem);
  return std::make_unique<LossPlan>(kernels, problem);
}

std::unique_ptr<Plan> MakeFillPlan(const LossOperands& operands, double value) {
  const aclTensor& out = *operands.tensor[kOut];
  StridedOperand target;
  target.slot = operands.slot[kOut];
  target.type = TypeOf(out);
  target.offset = out.offset;
  for (size_t d = 0; d < out.view_shape.size(); ++d) target.strides[d] = out.strides[d];
  return std::make_unique<FillPlan>(*CurrentLossKernels(), target, out.view_shape, value);
}

}  // namespace openaclnn
