#include "ops/bce_checks.h"

#include <array>

#include "base/tensor.h"

namespace openaclnn {
namespace {

using OperandNames = std::array<const char*, kOperandCount>;

// Each operand's name in messages, by OperandIndex; the op's output is `out_name`.
OperandNames NamesWithOut(const char* out_name) {
  static_assert(kSelf == 0 && kTarget == 1 && kWeight == 2 && kPosWeight == 3 && kGradOutput == 4 &&
                kOut == 5 && kGradSelfOut == 6 && kOperandCount == 7);
  return {"self", "target", "weight", "posWeight", "gradOutput", out_name, ""};
}

// The optional weights are checked only where given.
aclnnStatus WeightsPresent(const ArgumentChecker& check, const OperandNames& names,
                           const aclTensor* const* tensor) {
  for (int which : {kWeight, kPosWeight}) {
    if (tensor[which] != nullptr) {
      OPENACLNN_RETURN_IF_ERROR(check.Present(names[which], tensor[which]));
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus ValidateLoss(const ArgumentChecker& check, const BceOperands& operands,
                         int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) {
  const OperandNames names = NamesWithOut("out");
  const aclTensor* const* tensor = operands.tensor;
  const aclTensor* self = tensor[kSelf];
  for (int which : {kSelf, kTarget, kOut}) {
    OPENACLNN_RETURN_IF_ERROR(check.Present(names[which], tensor[which]));
  }
  OPENACLNN_RETURN_IF_ERROR(WeightsPresent(check, names, tensor));
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  for (int which : {kSelf, kTarget, kOut}) {
    OPENACLNN_RETURN_IF_ERROR(check.SupportedType(names[which], tensor[which]));
  }
  OPENACLNN_RETURN_IF_ERROR(check.SameType("out", tensor[kOut], "target", tensor[kTarget]));
  for (int which : {kWeight, kPosWeight}) {
    OPENACLNN_RETURN_IF_ERROR(check.SupportedType(names[which], tensor[which]));
  }
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  for (int which : {kSelf, kTarget, kWeight, kPosWeight, kOut}) {
    OPENACLNN_RETURN_IF_ERROR(check.Layout(names[which], tensor[which]));
  }
  OPENACLNN_RETURN_IF_ERROR(check.SameShape("target", tensor[kTarget], "self", self));
  if (ElementCount(self->view_shape) > 0) {  // as CANN, weights of an empty self go unchecked
    for (int which : {kWeight, kPosWeight}) {
      OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto(names[which], tensor[which], self));
    }
  }
  return reduction == 0 ? check.SameShape("out", tensor[kOut], "self", self)
                        : check.SingleElement("out", tensor[kOut]);
}

aclnnStatus ValidateGradient(const ArgumentChecker& check, const BceOperands& operands,
                             const char* out_name, int64_t reduction, bool grad_output_optional,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  const OperandNames names = NamesWithOut(out_name);
  const aclTensor* const* tensor = operands.tensor;
  const aclTensor* self = tensor[kSelf];
  for (int which : {kGradOutput, kSelf, kTarget, kOut}) {
    if (which == kGradOutput && grad_output_optional && tensor[which] == nullptr) continue;
    OPENACLNN_RETURN_IF_ERROR(check.Present(names[which], tensor[which]));
  }
  OPENACLNN_RETURN_IF_ERROR(WeightsPresent(check, names, tensor));
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

}  // namespace openaclnn
