#include "losses/soft_margin_loss/soft_margin_loss_checks.h"

#include <initializer_list>
#include <vector>

#include "base/tensor.h"

namespace openaclnn {
namespace {

struct Named {
  const char* name;
  const aclTensor* tensor;
};

// Both ops' checks up to the shapes, over their tensors in parameter order: CANN's output
// pointers, nulls and dtypes (the SoC's list; they may differ, as every supported dtype widens
// exactly and out takes the result rounded once, whatever its own), then OpenACLNN's reduction
// check, then each tensor's rank, format and view.
aclnnStatus CheckUpToShapes(const ArgumentChecker& check, std::initializer_list<Named> tensors,
                            int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) {
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  for (const Named& each : tensors)
    OPENACLNN_RETURN_IF_ERROR(check.Present(each.name, each.tensor));
  for (const Named& each : tensors) {
    OPENACLNN_RETURN_IF_ERROR(check.SupportedType(each.name, each.tensor));
  }
  // CANN checks neither op's reduction (its forward sums for any value but 0 and 1, its Backward
  // indexes a three-entry table with it); OpenACLNN refuses a value outside 0..2 after the dtypes
  // and before the shapes, where MseLoss checks it.
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  for (const Named& each : tensors) OPENACLNN_RETURN_IF_ERROR(check.Layout(each.name, each.tensor));
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus ValidateSoftMarginLoss(const ArgumentChecker& check, const LossOperands& operands,
                                   int64_t reduction, uint64_t* workspace_size,
                                   aclOpExecutor** executor) {
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(CheckUpToShapes(check,
                                            {{"self", self}, {"target", target}, {"out", out}},
                                            reduction, workspace_size, executor));
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(check.Broadcast("self", self->view_shape, "target", target, &shape));
  // As CANN: a reduced loss is exactly 0-D ([1] is refused), for empty inputs too.
  return reduction == 0 ? check.ShapeIs("out", out, shape, "the broadcast shape of self and target")
                        : check.RankZero("out", out);
}

// CANN short-cuts an empty self before anything reads the shapes' agreement; here the shapes are
// checked first, so an empty call is a valid call that has nothing to write.
aclnnStatus ValidateSoftMarginLossBackward(const ArgumentChecker& check,
                                           const LossOperands& operands, int64_t reduction,
                                           uint64_t* workspace_size, aclOpExecutor** executor) {
  const aclTensor* grad_output = operands.tensor[kGradOutput];
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(CheckUpToShapes(
      check, {{"gradOutput", grad_output}, {"self", self}, {"target", target}, {"out", out}},
      reduction, workspace_size, executor));
  std::vector<int64_t> pair, shape;
  OPENACLNN_RETURN_IF_ERROR(
      check.Broadcast("gradOutput", grad_output->view_shape, "self", self, &pair));
  OPENACLNN_RETURN_IF_ERROR(
      check.Broadcast("the broadcast of gradOutput and self,", pair, "target", target, &shape));
  return check.ShapeIs("out", out, shape, "the broadcast shape of gradOutput, self and target");
}

}  // namespace openaclnn
