#include "ops/bce_common.h"

#include <cmath>
#include <iterator>
#include <string>

#include "base/dtype.h"
#include "base/iteration.h"
#include "base/shape.h"
#include "base/status.h"
#include "runtime/device.h"
#include "runtime/soc.h"

namespace openaclnn {
namespace {

std::string Describe(const aclTensor& tensor) {
  return std::string(DataTypeName(tensor.dtype)) + " " + ShapeString(tensor.view_shape);
}

FloatType TypeOf(const aclTensor& tensor) {
  FloatType type = FloatType::kFloat32;
  ToFloatType(tensor.dtype, &type);  // the checks admitted only floating types
  return type;
}

class BcePlan : public Plan {
 public:
  BcePlan(const BceKernels& kernels, const BceProblem& problem)
      : kernels_(kernels), problem_(problem) {}
  const char* Run(const LaunchContext& launch) const override {
    return kernels_.run(problem_, launch);
  }
  bool Quick() const override { return problem_.count <= kQuickElements; }

 private:
  const BceKernels& kernels_;
  BceProblem problem_;
};

class FillPlan : public Plan {
 public:
  FillPlan(const BceKernels& kernels, const StridedOperand& out, const std::vector<int64_t>& shape,
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
  const BceKernels& kernels_;
  StridedOperand out_;
  int64_t shape_[kMaxRank] = {1};
  int rank_;
  double value_;
};

}  // namespace

aclnnStatus CheckBackend(const char* api, int kind) {
  const BceKernels* kernels = CurrentBceKernels();
  if (kernels == nullptr) {
    return Fail(ACLNN_ERR_RUNTIME_ERROR, "%s: no device to run on. Reason: %s.", api,
                ActiveBackend().unavailable_reason.c_str());
  }
  return CheckImplements(api, *kernels, ActiveBackend().name.c_str(), kind);
}

aclnnStatus CheckImplements(const char* api, const BceKernels& kernels, const char* backend,
                            int kind) {
  // openaclnnOpKind's values, which are KernelOp's (ops/op_table.cc checks).
  constexpr const char* kKinds[] = {"the loss", "the gradient with respect to self",
                                    "the gradient with respect to target",
                                    "the loss and the gradient with respect to self in one pass"};
  const uint32_t bit = KernelOpBit(static_cast<KernelOp>(kind));
  if ((kernels.ops & bit) != 0) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
              "%s: the %s backend does not implement this op (%s); run it on another backend "
              "(OPENACLNN_DEVICE).",
              api, backend, kKinds[kind]);
}

aclnnStatus ArgumentChecker::Present(const char* name, const aclTensor* tensor) const {
  if (tensor == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR,
                "%s: Expected a proper Tensor but got null for argument %s.", api, name);
  }
  if (!IsLiveTensor(tensor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: argument %s (%p) is not a live aclTensor; was it destroyed?", api, name,
                static_cast<const void*>(tensor));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus ArgumentChecker::OutputPointers(uint64_t* workspace_size,
                                            aclOpExecutor** executor) const {
  if (workspace_size == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize is nullptr.", api);
  }
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is nullptr.", api);
  return ACLNN_SUCCESS;
}

aclnnStatus ArgumentChecker::SupportedType(const char* name, const aclTensor* tensor) const {
  if (tensor == nullptr) return ACLNN_SUCCESS;
  FloatType type;
  const bool supported =
      ToFloatType(tensor->dtype, &type) && (type != FloatType::kBFloat16 || SocSupportsBf16());
  if (!supported) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: %s has dtype %s (%d), which %s does not support; supported: DT_FLOAT, "
                "DT_FLOAT16%s.",
                api, name, DataTypeName(tensor->dtype), static_cast<int>(tensor->dtype), SocName(),
                SocSupportsBf16() ? ", DT_BF16" : "");
  }
  return ACLNN_SUCCESS;
}

aclnnStatus ArgumentChecker::SameType(const char* name, const aclTensor* tensor,
                                      const char* other_name, const aclTensor* other) const {
  if (tensor->dtype == other->dtype) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %s must equal %s dtype %s.", api, name,
              DataTypeName(tensor->dtype), other_name, DataTypeName(other->dtype));
}

aclnnStatus ArgumentChecker::Reduction(int64_t reduction) const {
  if (reduction >= 0 && reduction <= 2) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: reduction is %lld; Reduction only support [0, 1, 2] (0 none, 1 mean, 2 sum).",
              api, static_cast<long long>(reduction));
}

aclnnStatus ArgumentChecker::Layout(const char* name, const aclTensor* tensor) const {
  if (tensor == nullptr) return ACLNN_SUCCESS;
  if (tensor->view_shape.size() > static_cast<size_t>(kMaxRank)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) has rank %zu; at most %d is supported.", api,
                name, Describe(*tensor).c_str(), tensor->view_shape.size(), kMaxRank);
  }
  if (!IsAclFormat(tensor->format)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) has format %d, which is not an aclFormat.",
                api, name, Describe(*tensor).c_str(), static_cast<int>(tensor->format));
  }
  const std::string problem = ViewProblem(*tensor);
  if (!problem.empty()) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: the view of %s (%s) is invalid: %s.", api, name,
                Describe(*tensor).c_str(), problem.c_str());
  }
  return ACLNN_SUCCESS;
}

aclnnStatus ArgumentChecker::SameShape(const char* name, const aclTensor* tensor,
                                       const char* other_name, const aclTensor* other) const {
  if (tensor->view_shape == other->view_shape) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shape %s must equal %s shape %s.", api, name,
              ShapeString(tensor->view_shape).c_str(), other_name,
              ShapeString(other->view_shape).c_str());
}

aclnnStatus ArgumentChecker::BroadcastsInto(const char* name, const aclTensor* tensor,
                                            const aclTensor* self) const {
  if (tensor == nullptr || openaclnn::BroadcastsInto(tensor->view_shape, self->view_shape)) {
    return ACLNN_SUCCESS;
  }
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: %s shape %s cannot broadcast into self shape %s (right-aligned, each "
              "dimension must be 1 or equal, rank not above self's).",
              api, name, ShapeString(tensor->view_shape).c_str(),
              ShapeString(self->view_shape).c_str());
}

aclnnStatus ArgumentChecker::SingleElement(const char* name, const aclTensor* tensor) const {
  if (ElementCount(tensor->view_shape) == 1) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: with reduction mean or sum, %s must hold exactly one element (shape [] or "
              "[1]), but its shape is %s.",
              api, name, ShapeString(tensor->view_shape).c_str());
}

aclnnStatus ArgumentChecker::SameFormat(const char* name, const aclTensor* tensor,
                                        const char* other_name, const aclTensor* other) const {
  if (tensor->format == other->format) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format %d must equal %s format %d.", api, name,
              static_cast<int>(tensor->format), other_name, static_cast<int>(other->format));
}

// The name arrays below list operands in OperandIndex order.
static_assert(kSelf == 0 && kTarget == 1 && kWeight == 2 && kPosWeight == 3 && kGradOutput == 4 &&
              kOut == 5 && kGradSelfOut == 6 && kOperandCount == 7);

aclnnStatus ValidateLoss(const ArgumentChecker& check, const BceOperands& op, int64_t reduction,
                         uint64_t* workspace_size, aclOpExecutor** executor) {
  static constexpr const char* kNames[kOperandCount] = {"self", "target", "weight", "posWeight",
                                                        "",     "out",    ""};
  const aclTensor* self = op.tensor[kSelf];
  const aclTensor* target = op.tensor[kTarget];
  const aclTensor* weight = op.tensor[kWeight];
  const aclTensor* pos_weight = op.tensor[kPosWeight];
  const aclTensor* out = op.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.Present("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.Present("target", target));
  OPENACLNN_RETURN_IF_ERROR(check.Present("out", out));
  if (weight != nullptr) OPENACLNN_RETURN_IF_ERROR(check.Present("weight", weight));
  if (pos_weight != nullptr) OPENACLNN_RETURN_IF_ERROR(check.Present("posWeight", pos_weight));
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("target", target));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("out", out));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("out", out, "target", target));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("weight", weight));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("posWeight", pos_weight));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  for (int which : {kSelf, kTarget, kWeight, kPosWeight, kOut}) {
    OPENACLNN_RETURN_IF_ERROR(check.Layout(kNames[which], op.tensor[which]));
  }
  OPENACLNN_RETURN_IF_ERROR(check.SameShape("target", target, "self", self));
  if (ElementCount(self->view_shape) > 0) {  // as CANN, weights of an empty self go unchecked
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("weight", weight, self));
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("posWeight", pos_weight, self));
  }
  return reduction == 0 ? check.SameShape("out", out, "self", self)
                        : check.SingleElement("out", out);
}

aclnnStatus ValidateGradient(const ArgumentChecker& check, const BceOperands& operands,
                             const char* out_name, int64_t reduction, bool grad_output_optional,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  const char* names[kOperandCount] = {"self",       "target", "weight", "posWeight",
                                      "gradOutput", out_name, ""};
  const aclTensor* const* tensor = operands.tensor;
  const aclTensor* self = tensor[kSelf];
  for (int which : {kGradOutput, kSelf, kTarget, kOut}) {
    if (which == kGradOutput && grad_output_optional && tensor[which] == nullptr) continue;
    OPENACLNN_RETURN_IF_ERROR(check.Present(names[which], tensor[which]));
  }
  for (int which : {kWeight, kPosWeight}) {
    if (tensor[which] != nullptr) {
      OPENACLNN_RETURN_IF_ERROR(check.Present(names[which], tensor[which]));
    }
  }
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  for (int which : {kGradOutput, kSelf, kTarget, kWeight, kPosWeight, kOut}) {
    OPENACLNN_RETURN_IF_ERROR(check.Layout(names[which], tensor[which]));
  }
  for (int which : {kGradOutput, kSelf, kTarget, kWeight, kPosWeight, kOut}) {
    OPENACLNN_RETURN_IF_ERROR(check.SupportedType(names[which], tensor[which]));
  }
  OPENACLNN_RETURN_IF_ERROR(check.SameType(out_name, tensor[kOut], "target", tensor[kTarget]));
  OPENACLNN_RETURN_IF_ERROR(check.SameFormat("target", tensor[kTarget], "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameFormat(out_name, tensor[kOut], "self", self));
  if (ElementCount(self->view_shape) > 0) {  // as CANN, shapes of an empty self go unchecked
    OPENACLNN_RETURN_IF_ERROR(check.SameShape("target", tensor[kTarget], "self", self));
    OPENACLNN_RETURN_IF_ERROR(check.SameShape(out_name, tensor[kOut], "self", self));
    for (int which : {kGradOutput, kWeight, kPosWeight}) {
      OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto(names[which], tensor[which], self));
    }
  }
  return check.Reduction(reduction);
}

namespace {

// The gradient is element-wise whatever the forward reduced: mean only scales it by 1/N.
double GradientScale(const BceOperands& operands, Reduction reduction) {
  const double count = static_cast<double>(ElementCount(operands.tensor[kSelf]->view_shape));
  return reduction == Reduction::kMean ? 1.0 / count : 1.0;
}

}  // namespace

std::unique_ptr<Plan> PlanGradient(LossKind kind, const BceOperands& operands, int64_t reduction,
                                   uint64_t* workspace_size) {
  *workspace_size = 0;
  if (ElementCount(operands.tensor[kSelf]->view_shape) == 0) return nullptr;
  const double scale = GradientScale(operands, static_cast<Reduction>(reduction));
  return MakeBcePlan(kind, Reduction::kNone, scale, operands, workspace_size);
}

std::unique_ptr<Plan> PlanLoss(const BceOperands& operands, int64_t requested,
                               uint64_t* workspace_size) {
  const auto reduction = static_cast<Reduction>(requested);
  *workspace_size = 0;
  if (ElementCount(operands.tensor[kSelf]->view_shape) > 0) {
    return MakeBcePlan(LossKind::kLoss, reduction, GradientScale(operands, reduction), operands,
                       workspace_size);
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

std::unique_ptr<Plan> MakeBcePlan(LossKind kind, Reduction reduction, double gradient_scale,
                                  const BceOperands& operands, uint64_t* workspace_size) {
  BceProblem problem;
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
  const BceKernels& kernels = *CurrentBceKernels();  // CheckBackend made sure there are some
  *workspace_size = kernels.workspace_bytes(problem);
  return std::make_unique<BcePlan>(kernels, problem);
}

std::unique_ptr<Plan> MakeFillPlan(const BceOperands& operands, double value) {
  const aclTensor& out = *operands.tensor[kOut];
  StridedOperand target;
  target.slot = operands.slot[kOut];
  target.type = TypeOf(out);
  target.offset = out.offset;
  for (size_t d = 0; d < out.view_shape.size(); ++d) target.strides[d] = out.strides[d];
  return std::make_unique<FillPlan>(*CurrentBceKernels(), target, out.view_shape, value);
}

}  // namespace openaclnn
