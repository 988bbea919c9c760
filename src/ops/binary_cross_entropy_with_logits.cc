// aclnnBinaryCrossEntropyWithLogits: loss = w * (p*t*softplus(-x) + (1-t)*softplus(x)),
// optionally averaged or summed.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

#include <cmath>

#include "base/executor.h"
#include "base/status.h"
#include "ops/bce_common.h"

namespace openaclnn {
namespace {

constexpr const char* kApi = "aclnnBinaryCrossEntropyWithLogits";
constexpr const char* kNames[kOperandCount] = {"self",      "target",     "weight",
                                               "posWeight", "gradOutput", "out"};

// CANN's checks in CANN's order, with OpenACLNN's additions (docs/contract/checks-and-codes.md
// §2, differences-from-cann.md D1-D5): outputs and
// weights are checked too, weights must broadcast INTO self, and out's shape is checked here,
// before anything is queued.
aclnnStatus Validate(const BceOperands& op, int64_t reduction, uint64_t* workspace_size,
                     aclOpExecutor** executor) {
  const ArgumentChecker check{kApi};
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

std::unique_ptr<Plan> PlanLoss(const BceOperands& op, Reduction reduction,
                               uint64_t* workspace_size) {
  *workspace_size = 0;
  if (ElementCount(op.tensor[kSelf]->view_shape) > 0) {
    return MakeBcePlan(LossKind::kLoss, reduction, 1.0f, op, workspace_size);
  }
  // Over no elements: none has nothing to write, a mean is NaN and a sum is 0 (as CANN).
  switch (reduction) {
    case Reduction::kMean:
      return MakeFillPlan(op, std::nan(""));
    case Reduction::kSum:
      return MakeFillPlan(op, 0.0);
    default:
      return nullptr;
  }
}

}  // namespace
}  // namespace openaclnn

using namespace openaclnn;

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  BceOperands op;
  op.tensor[kSelf] = self;
  op.tensor[kTarget] = target;
  op.tensor[kWeight] = weightOptional;
  op.tensor[kPosWeight] = posWeightOptional;
  op.tensor[kOut] = out;
  for (int which : {kSelf, kTarget, kWeight, kPosWeight}) op.slot[which] = which;
  op.slot[kOut] = 4;
  OPENACLNN_RETURN_IF_ERROR(Validate(op, reduction, workspaceSize, executor));
  return HandOut(kApi, {self, target, weightOptional, posWeightOptional}, {out}, workspaceSize,
                 executor, [&](uint64_t* workspace) {
                   return PlanLoss(op, static_cast<Reduction>(reduction), workspace);
                 });
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogits(void* workspace, uint64_t workspaceSize,
                                                         aclOpExecutor* executor,
                                                         const aclrtStream stream) {
  return LaunchExecutor(kApi, workspace, workspaceSize, executor, stream);
}
