#include "ops/class_axis_plans.h"

#include <vector>

#include "base/dtype.h"
#include "base/tensor.h"
#include "kernels/class_axis_problem.h"

namespace openaclnn {
namespace {

class ClassAxisPlan : public Plan {
 public:
  ClassAxisPlan(const LossKernels& kernels, const ClassAxisProblem& problem)
      : kernels_(kernels), problem_(problem) {}
  const char* Run(const LaunchContext& launch) const override {
    return kernels_.run_class_axis(problem_, launch);
  }
  bool Quick() const override {
    const int64_t per_position = problem_.kind == LossKind::kGradSelf ? problem_.classes : 1;
    return problem_.positions <= kQuickElements / (per_position > 0 ? per_position : 1);
  }

 private:
  const LossKernels& kernels_;
  ClassAxisProblem problem_;
};

// CANN's zloss tensors: checked, never read or written.
bool IsZlossOperand(int which) {
  return which == kZlossOut || which == kLseForZlossOut || which == kGradZloss ||
         which == kLseForZloss;
}

// The dimension of self that holds the classes.
int ClassDimension(const aclTensor& self) { return self.view_shape.size() == 1 ? 0 : 1; }

// `tensor` as the kernels read it: its type (an integer target's integer type), slot and offset.
void Describe(const aclTensor& tensor, int slot, StridedOperand* operand) {
  operand->slot = slot;
  operand->offset = tensor.offset;
  if (!ToFloatType(tensor.dtype, &operand->type)) ToIntegerType(tensor.dtype, &operand->integer);
}

// A self-shaped tensor (self, a gradient's out): strides over the positions (every dimension but
// the class one) and along the classes.
void DescribeSelfShaped(const aclTensor& tensor, int slot, StridedOperand* operand,
                        int64_t* class_stride) {
  Describe(tensor, slot, operand);
  const int classes = ClassDimension(tensor);
  int d = 0;
  for (int k = 0; k < static_cast<int>(tensor.view_shape.size()); ++k) {
    if (k != classes) operand->strides[d++] = tensor.strides[k];
  }
  *class_stride = tensor.strides[classes];
}

// weight: its one dimension of C elements (dimension 0, or the one that is not 1).
int64_t WeightClassStride(const aclTensor& weight, int64_t classes) {
  if (!weight.view_shape.empty() && weight.view_shape[0] == classes) return weight.strides[0];
  for (size_t d = 0; d < weight.view_shape.size(); ++d) {
    if (weight.view_shape[d] != 1) return weight.strides[d];
  }
  return 0;
}

}  // namespace

std::unique_ptr<Plan> PlanClassAxis(LossFamily family, LossKind kind, const LossOperands& operands,
                                    int64_t reduction, uint64_t* workspace_size) {
  *workspace_size = 0;
  const aclTensor& self = *operands.tensor[kSelf];
  const aclTensor& target = *operands.tensor[kTarget];
  if (kind == LossKind::kGradSelf && ElementCount(self.view_shape) == 0) return nullptr;
  ClassAxisProblem problem;
  problem.family = family;
  problem.kind = kind;
  problem.reduction = static_cast<Reduction>(reduction);
  problem.ignore_index = operands.whole[0];
  problem.label_smoothing = operands.attribute[1];  // 0 for an op without one
  problem.classes = self.view_shape[ClassDimension(self)];
  problem.rank = static_cast<int>(target.view_shape.size());
  problem.positions = 1;
  for (int d = 0; d < problem.rank; ++d) {
    problem.shape[d] = target.view_shape[d];
    problem.positions *= target.view_shape[d];
  }
  for (int which = 0; which < kOperandCount; ++which) {
    const aclTensor* tensor = operands.tensor[which];
    if (tensor == nullptr || IsZlossOperand(which)) continue;
    StridedOperand& operand = problem.operands[which];
    const int slot = operands.slot[which];
    if (which == kSelf || which == kLogProbOut || (which == kOut && kind == LossKind::kGradSelf)) {
      DescribeSelfShaped(*tensor, slot, &operand, &problem.class_strides[which]);
      continue;
    }
    Describe(*tensor, slot, &operand);
    if (which == kWeight) {
      problem.class_strides[which] = WeightClassStride(*tensor, problem.classes);
    } else if (which == kTarget || (reduction == 0 && (which == kOut || which == kGradOutput) &&
                                    tensor->view_shape.size() == target.view_shape.size())) {
      // Per position (target, and out and gradOutput of reduction none): target's shape. A 1-D
      // self's one position, and every reduced or total-weight operand, has no strides.
      for (int d = 0; d < problem.rank; ++d) operand.strides[d] = tensor->strides[d];
    }
  }
  const LossKernels& kernels = *CurrentLossKernels();
  return std::make_unique<ClassAxisPlan>(kernels, problem);
}

}  // namespace openaclnn
