#include "losses/kl_div/kl_div_checks.h"

#include <vector>

#include "base/tensor.h"
#include "runtime/soc.h"

namespace openaclnn {
namespace {

constexpr const char* kBroadcastShape = "the broadcast shape of self and target";

// The gradients' dtype lists, from their own SoC tests (D14): with bf16 on the SoCs that have it;
// fp32 and fp16 for KlDivBackward on first-generation Ascend910 and Ascend310P parts; nothing
// (every call fails) elsewhere, and for KlDivTargetBackward on every SoC without bf16.
DtypeSet GradientTypes(bool target_gradient) {
  const DtypeSet floats = DtypeSet{}.With(ACL_FLOAT).With(ACL_FLOAT16);
  switch (CurrentSocKind()) {
    case SocKind::kBf16:
      return floats.With(ACL_BF16);
    case SocKind::kAscend910:
    case SocKind::kAscend310P:
      return target_gradient ? DtypeSet{} : floats;
    default:
      return {};
  }
}

// What tells the two gradients apart: the output's name and the input whose shape (and, for
// the target gradient, dtype) it has.
struct GradientOutput {
  const char* name;
  const char* input_name;
  OperandIndex input;
  bool target_gradient;
};

// The gradients' checks up to their shapes, CANN's steps 1-4: the output pointers, nulls, dtypes
// (the output's CanCast from self first), ranks and views, and the shapes: self and target
// broadcast, gradOutput broadcasts into their broadcast shape, the output has its input's shape.
aclnnStatus CheckGradient(const ArgumentChecker& check, const LossOperands& operands,
                          const GradientOutput& output, uint64_t* workspace_size,
                          aclOpExecutor** executor) {
  const aclTensor* grad_output = operands.tensor[kGradOutput];
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(
      check.Present({{"gradOutput", grad_output}, {"self", self}, {"target", target}}));
  OPENACLNN_RETURN_IF_ERROR(check.Present(output.name, out));
  OPENACLNN_RETURN_IF_ERROR(check.CastsTo("self", self->dtype, output.name, out));
  const DtypeSet types = GradientTypes(output.target_gradient);
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("gradOutput", grad_output, types));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("self", self, types));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("target", target, types));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn(output.name, out, types));
  if (output.target_gradient) {
    OPENACLNN_RETURN_IF_ERROR(check.SameType(output.name, out, "target", target));
  }
  OPENACLNN_RETURN_IF_ERROR(
      check.Layout({{"gradOutput", grad_output}, {"self", self}, {"target", target}}));
  OPENACLNN_RETURN_IF_ERROR(check.Layout(output.name, out));
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(check.Broadcast("self", self->view_shape, "target", target, &shape));
  OPENACLNN_RETURN_IF_ERROR(
      check.BroadcastsInto("gradOutput", grad_output, shape, kBroadcastShape));
  return check.SameShape(output.name, out, output.input_name, operands.tensor[output.input]);
}

}  // namespace

aclnnStatus ValidateKlDiv(const ArgumentChecker& check, const LossOperands& operands,
                          int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) {
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(check.Present({{"self", self}, {"target", target}, {"out", out}}));
  // CANN's KlDiv does not check the output pointers at all (D16): here after the tensors, as in
  // the probability family's forward.
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  const DtypeSet types = FloatTypesOfSoc();
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("self", self, types));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("target", target, types));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("out", out, types));
  int64_t promoted = ACL_DT_UNDEFINED;
  OPENACLNN_RETURN_IF_ERROR(
      check.Promoted("self and target", self->dtype, target->dtype, &promoted));
  OPENACLNN_RETURN_IF_ERROR(check.CastsTo("the promoted dtype", promoted, "out", out));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"self", self}, {"target", target}, {"out", out}}));
  OPENACLNN_RETURN_IF_ERROR(check.ReductionWithBatchmean(reduction));
  // CANN returns for empty inputs here, before its shape checks; OpenACLNN checks the shapes of
  // every call (D11) and its one-element out before any work (D10).
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(check.Broadcast("self", self->view_shape, "target", target, &shape));
  return reduction == 0 ? check.ShapeIs("out", out, shape, kBroadcastShape)
                        : check.SingleElement("out", out);
}

aclnnStatus ValidateKlDivBackward(const ArgumentChecker& check, const LossOperands& operands,
                                  int64_t reduction, uint64_t* workspace_size,
                                  aclOpExecutor** executor) {
  OPENACLNN_RETURN_IF_ERROR(
      CheckGradient(check, operands, {"out", "self", kSelf, false}, workspace_size, executor));
  // CANN takes any other reduction for none (D1): refused here, where KlDiv checks it.
  return check.ReductionWithBatchmean(reduction);
}

aclnnStatus ValidateKlDivTargetBackward(const ArgumentChecker& check, const LossOperands& operands,
                                        int64_t reduction, uint64_t* workspace_size,
                                        aclOpExecutor** executor) {
  OPENACLNN_RETURN_IF_ERROR(CheckGradient(check, operands, {"gradTarget", "target", kTarget, true},
                                          workspace_size, executor));
  // CANN's step 5 (D15).
  OPENACLNN_RETURN_IF_ERROR(check.PublicFormat("gradOutput", operands.tensor[kGradOutput]));
  OPENACLNN_RETURN_IF_ERROR(check.PublicFormat("self", operands.tensor[kSelf]));
  OPENACLNN_RETURN_IF_ERROR(check.PublicFormat("target", operands.tensor[kTarget]));
  OPENACLNN_RETURN_IF_ERROR(check.PublicFormat("gradTarget", operands.tensor[kOut]));
  return check.ReductionWithBatchmean(reduction);  // D1, as KlDivBackward
}

}  // namespace openaclnn
