#include "losses/binary_cross_entropy/binary_cross_entropy_checks.h"

#include "base/tensor.h"

namespace openaclnn {

aclnnStatus ValidateBinaryCrossEntropy(const ArgumentChecker& check, const LossOperands& operands,
                                       int64_t reduction, uint64_t* workspace_size,
                                       aclOpExecutor** executor) {
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* weight = operands.tensor[kWeight];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.Present({{"self", self}, {"target", target}, {"out", out}}));
  if (weight != nullptr) OPENACLNN_RETURN_IF_ERROR(check.Present("weight", weight));
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("target", target));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("out", out));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("weight", weight));
  // CANN compares the dtypes only when a weight is given; its docs (and its kernels) want them
  // equal in every case, and so do we.
  OPENACLNN_RETURN_IF_ERROR(check.SameType("target", target, "self", self));
  if (weight != nullptr) OPENACLNN_RETURN_IF_ERROR(check.SameType("weight", weight, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("out", out, "self", self));
  OPENACLNN_RETURN_IF_ERROR(
      check.Layout({{"self", self}, {"target", target}, {"weight", weight}, {"out", out}}));
  OPENACLNN_RETURN_IF_ERROR(check.SameShape("target", target, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  if (ElementCount(self->view_shape) > 0) {  // as the with-logits forward
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("weight", weight, self));
  }
  return reduction == 0 ? check.SameShape("out", out, "self", self)
                        : check.SingleElement("out", out);
}

aclnnStatus ValidateBinaryCrossEntropyBackward(const ArgumentChecker& check,
                                               const LossOperands& operands, int64_t reduction,
                                               uint64_t* workspace_size, aclOpExecutor** executor) {
  const aclTensor* grad_output = operands.tensor[kGradOutput];
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* weight = operands.tensor[kWeight];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.Present(
      {{"gradOutput", grad_output}, {"self", self}, {"target", target}, {"out", out}}));
  if (weight != nullptr) OPENACLNN_RETURN_IF_ERROR(check.Present("weight", weight));
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"gradOutput", grad_output},
                                          {"self", self},
                                          {"target", target},
                                          {"weight", weight},
                                          {"out", out}}));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("gradOutput", grad_output));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("target", target));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("out", out));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("weight", weight));
  OPENACLNN_RETURN_IF_ERROR(check.SameFormat("target", target, "self", self));
  if (weight != nullptr)
    OPENACLNN_RETURN_IF_ERROR(check.SameFormat("weight", weight, "self", self));
  if (ElementCount(self->view_shape) > 0) {  // as CANN, shapes of an empty self go unchecked
    OPENACLNN_RETURN_IF_ERROR(check.SameShape("out", out, "self", self));
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("target", target, self));
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("weight", weight, self));
    OPENACLNN_RETURN_IF_ERROR(check.BroadcastsInto("gradOutput", grad_output, self));
  }
  // CANN's last check, that the inputs' promoted dtype casts to out's, cannot fail here: the
  // supported dtypes are floating types, which promote and cast to one another.
  return check.Reduction(reduction);
}

}  // namespace openaclnn
