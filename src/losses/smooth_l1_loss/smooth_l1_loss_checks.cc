#include "losses/smooth_l1_loss/smooth_l1_loss_checks.h"

#include <cmath>
#include <vector>

#include "base/tensor.h"

namespace openaclnn {
namespace {

// What tells the four APIs apart: their operands' names and their attribute's rule.
struct Variant {
  const char* grad_output;    // the Backward's gradient input
  const char* grad_and_self;  // its pair with self, as a promotion failure names it
  const char* out;            // the forward's result
  bool huber;                 // delta > 0, else beta >= 0
};
constexpr Variant kSmoothL1{"gradOut", "gradOut and self", "result", false};
constexpr Variant kHuber{"gradOutput", "gradOutput and self", "out", true};

// beta >= 0 (CANN's words; NaN fails the comparison, as torch refuses it too) or delta > 0
// (torch's rule); +inf passes either.
aclnnStatus CheckAttribute(const ArgumentChecker& check, const Variant& variant, double value) {
  if (variant.huber) {
    if (value > 0) return ACLNN_SUCCESS;
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: delta is %g; delta should be greater than 0 (huber_loss does not support "
                "non-positive values for delta, nor NaN).",
                check.api, value);
  }
  if (value >= 0) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: beta is %g; beta should be greater than or equal to 0 (NaN is refused too).",
              check.api, value);
}

// The forward: CANN's aclnnSmoothL1Loss CheckParams after OP_CHECK_COMM_INPUT.
aclnnStatus ValidateForward(const ArgumentChecker& check, const Variant& variant,
                            const LossOperands& operands, int64_t reduction,
                            uint64_t* workspace_size, aclOpExecutor** executor) {
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Present({{"self", self}, {"target", target}}));
  OPENACLNN_RETURN_IF_ERROR(check.Present(variant.out, out));
  const DtypeSet supported = FloatTypesOfSoc();
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("self", self, supported));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("target", target, supported));
  int64_t promoted = 0;
  OPENACLNN_RETURN_IF_ERROR(
      check.Promoted("self and target", self->dtype, target->dtype, &promoted));
  OPENACLNN_RETURN_IF_ERROR(check.CastsTo("the promoted type", promoted, variant.out, out));
  // CANN takes any dtype the promoted one casts to (double, complex); only the list is computed.
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn(variant.out, out, supported));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"self", self}, {"target", target}}));
  OPENACLNN_RETURN_IF_ERROR(check.Layout(variant.out, out));
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(check.Broadcast("self", self->view_shape, "target", target, &shape));
  if (reduction == 0) {
    OPENACLNN_RETURN_IF_ERROR(
        check.ShapeIs(variant.out, out, shape, "the broadcast shape of self and target"));
  } else {  // CANN leaves it unchecked and copies its 0-D result into whatever out is
    OPENACLNN_RETURN_IF_ERROR(check.SingleElement(variant.out, out));
  }
  return CheckAttribute(check, variant, operands.attribute[0]);
}

// The Backward: CANN's aclnnSmoothL1LossBackward CheckParams after OP_CHECK_COMM_INPUT
// (reduction and beta before the promotion and the shapes).
aclnnStatus ValidateBackward(const ArgumentChecker& check, const Variant& variant,
                             const LossOperands& operands, int64_t reduction,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  const aclTensor* grad = operands.tensor[kGradOutput];
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Present(variant.grad_output, grad));
  OPENACLNN_RETURN_IF_ERROR(
      check.Present({{"self", self}, {"target", target}, {"gradInput", out}}));
  const DtypeSet supported = FloatTypesOfSoc();
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn(variant.grad_output, grad, supported));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("self", self, supported));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("target", target, supported));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("gradInput", out, supported));
  OPENACLNN_RETURN_IF_ERROR(check.Layout(variant.grad_output, grad));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"self", self}, {"target", target}, {"gradInput", out}}));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  OPENACLNN_RETURN_IF_ERROR(CheckAttribute(check, variant, operands.attribute[0]));
  // Within the list every pair promotes and every result casts; CANN's checks stay, in its order.
  int64_t promoted = 0;
  OPENACLNN_RETURN_IF_ERROR(
      check.Promoted(variant.grad_and_self, grad->dtype, self->dtype, &promoted));
  OPENACLNN_RETURN_IF_ERROR(
      check.Promoted("the promoted type and target", promoted, target->dtype, &promoted));
  OPENACLNN_RETURN_IF_ERROR(check.PromotedIn("the inputs", promoted, supported));
  OPENACLNN_RETURN_IF_ERROR(check.CastsTo("the promoted type", promoted, "gradInput", out));
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(
      check.Broadcast(variant.grad_output, grad->view_shape, "self", self, &shape));
  OPENACLNN_RETURN_IF_ERROR(check.Broadcast("their broadcast", shape, "target", target, &shape));
  return check.ShapeIs("gradInput", out, shape, "the broadcast shape of the three inputs");
}

}  // namespace

aclnnStatus ValidateSmoothL1Loss(const ArgumentChecker& check, const LossOperands& operands,
                                 int64_t reduction, uint64_t* workspace_size,
                                 aclOpExecutor** executor) {
  return ValidateForward(check, kSmoothL1, operands, reduction, workspace_size, executor);
}

aclnnStatus ValidateSmoothL1LossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                         int64_t reduction, uint64_t* workspace_size,
                                         aclOpExecutor** executor) {
  return ValidateBackward(check, kSmoothL1, operands, reduction, workspace_size, executor);
}

aclnnStatus ValidateHuberLoss(const ArgumentChecker& check, const LossOperands& operands,
                              int64_t reduction, uint64_t* workspace_size,
                              aclOpExecutor** executor) {
  return ValidateForward(check, kHuber, operands, reduction, workspace_size, executor);
}

aclnnStatus ValidateHuberLossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                      int64_t reduction, uint64_t* workspace_size,
                                      aclOpExecutor** executor) {
  return ValidateBackward(check, kHuber, operands, reduction, workspace_size, executor);
}

}  // namespace openaclnn
