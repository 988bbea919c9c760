// aclnnMseLoss: loss = (self - target)^2 over the broadcast shape of self and target, optionally
// averaged or summed into a 0-D out.
#include "aclnnop/aclnn_mse_loss.h"

#include <iterator>

#include "losses/mse_loss/mse_loss_checks.h"
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

extern const OpDescriptor kMseLossOp = {
    .info = {.api = "aclnnMseLoss",
             .family = OPENACLNN_FAMILY_MSE_LOSS,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kMseLossOp>,
             .launch = aclnnMseLoss,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateMseLoss,
    .plan = PlanLoss};

}  // namespace openaclnn

using openaclnn::kMseLossOp;

extern "C" aclnnStatus aclnnMseLossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                    int64_t reduction, aclTensor* out,
                                                    uint64_t* workspaceSize,
                                                    aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, out};
  return OpGetWorkspaceSize(kMseLossOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnMseLoss(void* workspace, uint64_t workspaceSize,
                                    aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kMseLossOp.info.api, workspace, workspaceSize, executor, stream);
}
