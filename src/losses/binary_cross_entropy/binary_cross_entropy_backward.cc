// aclnnBinaryCrossEntropyBackward: the gradient of the loss with respect to the probabilities,
// out = g * w * (x-t) / max(x*(1-x), fl32(1e-12)), scaled by 1/N after a mean.
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"

#include <iterator>

#include "losses/binary_cross_entropy/binary_cross_entropy_checks.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("gradOutput", OPENACLNN_ROLE_GRAD_OUTPUT),
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Input("weightOptional", OPENACLNN_ROLE_WEIGHT, {.optional = true}),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_SELF),
};

}  // namespace

extern const OpDescriptor kBinaryCrossEntropyBackwardOp = {
    .info = {.api = "aclnnBinaryCrossEntropyBackward",
             .family = OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kBinaryCrossEntropyBackwardOp>,
             .launch = aclnnBinaryCrossEntropyBackward,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateBinaryCrossEntropyBackward,
    .plan = PlanGradientOf<LossKind::kGradSelf, /*kEmptyShapesChecked=*/false>};

}  // namespace openaclnn

using openaclnn::kBinaryCrossEntropyBackwardOp;

extern "C" aclnnStatus aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
    const aclTensor* weightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, weightOptional, out};
  return OpGetWorkspaceSize(kBinaryCrossEntropyBackwardOp, operands, reduction, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyBackward(void* workspace, uint64_t workspaceSize,
                                                       aclOpExecutor* executor,
                                                       const aclrtStream stream) {
  return openaclnn::LaunchExecutor(kBinaryCrossEntropyBackwardOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
