#include "losses/binary_cross_entropy_with_logits/bce_with_logits_checks.h"

#include "base/tensor.h"

namespace openaclnn {

aclnnStatus ValidateLoss(const ArgumentChecker& check, const LossOperands& operands,
                         int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) {
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* weight = operands.tensor[kWeight];
  const aclTensor* pos_weight = operands.tensor[kPosWeight];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.Present({{"self", self}, {"target", target}, {"out", out}}));
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
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"self", self},
                                          {"target", target},
                                          {"weight", weight},
                                          {"posWeight", pos_weight},
                                          {"out", out}}));
  OPENACLNN_RETURN_IF_ERROR(check.SameShape("target", target, "self", self));
  if (ElementCount(self->view_shape) > 0) {  // as CANN, weights of an empty self go unchecked
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("weight", weight, self));
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("posWeight", pos_weight, self));
  }
  return reduction == 0 ? check.SameShape("out", out, "self", self)
                        : check.SingleElement("out", out);
}

aclnnStatus ValidateGradient(const ArgumentChecker& check, const LossOperands& operands,
                             const char* out_name, int64_t reduction, bool grad_output_optional,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  const aclTensor* grad_output = operands.tensor[kGradOutput];
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* weight = operands.tensor[kWeight];
  const aclTensor* pos_weight = operands.tensor[kPosWeight];
  const aclTensor* out = operands.tensor[kOut];
  if (!grad_output_optional || grad_output != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(check.Present("gradOutput", grad_output));
  }
  OPENACLNN_RETURN_IF_ERROR(check.Present({{"self", self}, {"target", target}}));
  OPENACLNN_RETURN_IF_ERROR(check.Present(out_name, out));
  if (weight != nullptr) OPENACLNN_RETURN_IF_ERROR(check.Present("weight", weight));
  if (pos_weight != nullptr) OPENACLNN_RETURN_IF_ERROR(check.Present("posWeight", pos_weight));
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"gradOutput", grad_output},
                                          {"self", self},
                                          {"target", target},
                                          {"weight", weight},
                                          {"posWeight", pos_weight}}));
  OPENACLNN_RETURN_IF_ERROR(check.Layout(out_name, out));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("gradOutput", grad_output));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("target", target));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("weight", weight));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("posWeight", pos_weight));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType(out_name, out));
  OPENACLNN_RETURN_IF_ERROR(check.SameType(out_name, out, "target", target));
  OPENACLNN_RETURN_IF_ERROR(check.SameFormat("target", target, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameFormat(out_name, out, "self", self));
  if (ElementCount(self->view_shape) > 0) {  // as CANN, shapes of an empty self go unchecked
    OPENACLNN_RETURN_IF_ERROR(check.SameShape("target", target, "self", self));
    OPENACLNN_RETURN_IF_ERROR(check.SameShape(out_name, out, "self", self));
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("gradOutput", grad_output, self));
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("weight", weight, self));
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("posWeight", pos_weight, self));
  }
  return check.Reduction(reduction);
}

}  // namespace openaclnn
