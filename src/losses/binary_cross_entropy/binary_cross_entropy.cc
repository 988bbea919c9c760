// aclnnBinaryCrossEntropy: loss = -w * (t * max(ln x, -100) + (1-t) * max(ln(1-x), -100)) on
// probabilities x, optionally averaged or summed.
#include "aclnnop/aclnn_binary_cross_entropy.h"

#include <iterator>

#include "losses/binary_cross_entropy/binary_cross_entropy_checks.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Input("weight", OPENACLNN_ROLE_WEIGHT, {.optional = true}),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_SELF, {.reduced = true}),
};

}  // namespace

extern const OpDescriptor kBinaryCrossEntropyOp = {
    .info = {.api = "aclnnBinaryCrossEntropy",
             .family = OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kBinaryCrossEntropyOp>,
             .launch = aclnnBinaryCrossEntropy,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateBinaryCrossEntropy,
    .plan = PlanLoss};

}  // namespace openaclnn

using openaclnn::kBinaryCrossEntropyOp;

extern "C" aclnnStatus aclnnBinaryCrossEntropyGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weight, int64_t reduction,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, weight, out};
  return OpGetWorkspaceSize(kBinaryCrossEntropyOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropy(void* workspace, uint64_t workspaceSize,
                                               aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kBinaryCrossEntropyOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
