// aclnnBinaryCrossEntropyWithLogits: loss = w * (p*t*softplus(-x) + (1-t)*softplus(x)),
// optionally averaged or summed.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

#include <iterator>

#include "losses/binary_cross_entropy_with_logits/bce_with_logits_checks.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Input("weightOptional", OPENACLNN_ROLE_WEIGHT, {.optional = true}),
    Input("posWeightOptional", OPENACLNN_ROLE_POS_WEIGHT, {.optional = true}),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_SELF, {.reduced = true}),
};

}  // namespace

extern const OpDescriptor kBceWithLogitsOp = {
    .info = {.api = "aclnnBinaryCrossEntropyWithLogits",
             .family = OPENACLNN_FAMILY_BCE_WITH_LOGITS,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kBceWithLogitsOp>,
             .launch = aclnnBinaryCrossEntropyWithLogits,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateLoss,
    .plan = PlanLoss};

}  // namespace openaclnn

using openaclnn::kBceWithLogitsOp;

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, weightOptional, posWeightOptional, out};
  return OpGetWorkspaceSize(kBceWithLogitsOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogits(void* workspace, uint64_t workspaceSize,
                                                         aclOpExecutor* executor,
                                                         const aclrtStream stream) {
  return openaclnn::LaunchExecutor(kBceWithLogitsOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
