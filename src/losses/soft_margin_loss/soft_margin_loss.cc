// aclnnSoftMarginLoss: loss = log(1 + exp(-t x)) over the broadcast shape of self x and target t,
// optionally averaged or summed.
#include "aclnnop/aclnn_soft_margin_loss.h"

#include <iterator>

#include "losses/soft_margin_loss/soft_margin_loss_checks.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_SHAPE_OF_INPUTS,
           {.reduced = OPENACLNN_REDUCED_TO_ONE}),
};

}  // namespace

extern const OpDescriptor kSoftMarginLossOp = {
    .info = {.api = "aclnnSoftMarginLoss",
             .family = OPENACLNN_FAMILY_SOFT_MARGIN_LOSS,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kSoftMarginLossOp>,
             .launch = aclnnSoftMarginLoss,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateSoftMarginLoss,
    .plan = PlanLoss};

}  // namespace openaclnn

using openaclnn::kSoftMarginLossOp;

extern "C" aclnnStatus aclnnSoftMarginLossGetWorkspaceSize(const aclTensor* self,
                                                           const aclTensor* target,
                                                           int64_t reduction, aclTensor* out,
                                                           uint64_t* workspaceSize,
                                                           aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, out};
  return OpGetWorkspaceSize(kSoftMarginLossOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnSoftMarginLoss(void* workspace, uint64_t workspaceSize,
                                           aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kSoftMarginLossOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
