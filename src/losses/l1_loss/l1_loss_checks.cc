#include "losses/l1_loss/l1_loss_checks.h"

#include <vector>

#include "base/dtype.h"
#include "base/promotion.h"
#include "base/tensor.h"

namespace openaclnn {
namespace {

// CANN's rules on integer inputs, which follow PyTorch's CUDA l1_loss: reduction none keeps
// self's kind, so an integer or bool self takes no floating target; a mean of integers has no
// dtype.
aclnnStatus IntegerInputs(const ArgumentChecker& check, const aclTensor* self,
                          const aclTensor* target, int64_t reduction) {
  const bool self_floats = IsFloatingType(self->dtype);
  const bool target_floats = IsFloatingType(target->dtype);
  if (reduction == 0 && !self_floats && target_floats) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: with reduction none, self of dtype %s (not floating) takes no floating "
                "target (dtype %s); pass a floating self, or a target of an integer dtype.",
                check.api, DataTypeName(self->dtype), DataTypeName(target->dtype));
  }
  if (reduction == 1 && !self_floats && !target_floats) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: with reduction mean, self or target must be floating (a mean of integers "
                "has no dtype), but self is %s and target %s.",
                check.api, DataTypeName(self->dtype), DataTypeName(target->dtype));
  }
  return ACLNN_SUCCESS;
}

// The forward's dtypes: CANN's integer rules, then the promoted dtype of self and target in the
// list (INT64 included), cast to out's; out itself in the list, INT64 only for an INT64
// promotion (differences-from-cann.md D27: CANN takes any dtype the promoted one casts to).
aclnnStatus ForwardTypes(const ArgumentChecker& check, const aclTensor* self,
                         const aclTensor* target, const aclTensor* out, int64_t reduction) {
  OPENACLNN_RETURN_IF_ERROR(IntegerInputs(check, self, target, reduction));
  int64_t promoted = ACL_DT_UNDEFINED;
  OPENACLNN_RETURN_IF_ERROR(
      check.Promoted("self and target", self->dtype, target->dtype, &promoted));
  const DtypeSet floats = FloatTypesOfSoc();
  OPENACLNN_RETURN_IF_ERROR(check.PromotedIn("self and target", promoted, floats.With(ACL_INT64)));
  OPENACLNN_RETURN_IF_ERROR(check.CastsTo("the result", promoted, "out", out));
  return check.TypeIn("out", out, promoted == ACL_INT64 ? floats.With(ACL_INT64) : floats);
}

}  // namespace

aclnnStatus ValidateL1Loss(const ArgumentChecker& check, const LossOperands& operands,
                           int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) {
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Present({{"self", self}, {"target", target}, {"out", out}}));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));  // before the dtypes, as CANN
  OPENACLNN_RETURN_IF_ERROR(ForwardTypes(check, self, target, out, reduction));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"self", self}, {"target", target}, {"out", out}}));
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(check.Broadcast("self", self->view_shape, "target", target, &shape));
  return reduction == 0 ? check.ShapeIs("out", out, shape, "the broadcast shape of self and target")
                        : check.RankZero("out", out);
}

aclnnStatus ValidateL1LossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                   int64_t reduction, uint64_t* workspace_size,
                                   aclOpExecutor** executor) {
  const aclTensor* grad_output = operands.tensor[kGradOutput];
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* grad_input = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Present({{"gradOutput", grad_output},
                                           {"self", self},
                                           {"target", target},
                                           {"gradInput", grad_input}}));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  // Inputs of any dtype whose promotion is listed (integer ones included); gradInput listed too
  // (D27).
  int64_t first = ACL_DT_UNDEFINED, promoted = ACL_DT_UNDEFINED;
  OPENACLNN_RETURN_IF_ERROR(
      check.Promoted("gradOutput and self", grad_output->dtype, self->dtype, &first));
  OPENACLNN_RETURN_IF_ERROR(
      check.Promoted("target and (gradOutput, self)", target->dtype, first, &promoted));
  OPENACLNN_RETURN_IF_ERROR(check.CastsTo("the result", promoted, "gradInput", grad_input));
  const DtypeSet floats = FloatTypesOfSoc();
  OPENACLNN_RETURN_IF_ERROR(check.PromotedIn("gradOutput, self and target", promoted, floats));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("gradInput", grad_input, floats));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"self", self},
                                          {"target", target},
                                          {"gradOutput", grad_output},
                                          {"gradInput", grad_input}}));
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(
      check.Broadcast("self", self->view_shape, "gradOutput", grad_output, &shape));
  OPENACLNN_RETURN_IF_ERROR(
      check.Broadcast("the broadcast of self and gradOutput", shape, "target", target, &shape));
  return check.ShapeIs("gradInput", grad_input, shape,
                       "the broadcast shape of gradOutput, self and target");
}

int64_t L1LossPromotedType(const LossOperands& operands) {
  const int64_t self = operands.tensor[kSelf]->dtype;
  const int64_t target = operands.tensor[kTarget]->dtype;
  const aclTensor* grad_output = operands.tensor[kGradOutput];
  if (grad_output == nullptr) return PromoteType(self, target);
  return PromoteType(target, PromoteType(grad_output->dtype, self));  // CANN's order
}

}  // namespace openaclnn
