// aclnnMseLossOut: loss = (self - target)^2 over the broadcast shape of self and target, for mean
// and sum averaged or summed over the first dimension only (CANN's code, golden and ATK cases;
// its documentation says 0-D).
#include "aclnnop/aclnn_mse_loss_out.h"

#include <iterator>
#include <memory>

#include "losses/mse_loss/mse_loss_checks.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_SHAPE_OF_INPUTS,
           {.reduced = OPENACLNN_REDUCED_FIRST_DIM}),
};

std::unique_ptr<Plan> PlanOverFirstDimension(LossFamily family, const LossOperands& operands,
                                             int64_t reduction, uint64_t* workspace_size) {
  return PlanLossOverFirstDimension({.family = family}, operands, reduction, workspace_size);
}

}  // namespace

extern const OpDescriptor kMseLossOutOp = {
    .info = {.api = "aclnnMseLossOut",
             .family = OPENACLNN_FAMILY_MSE_LOSS,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kMseLossOutOp>,
             .launch = aclnnMseLossOut,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateMseLossOut,
    .plan = PlanOverFirstDimension};

}  // namespace openaclnn

using openaclnn::kMseLossOutOp;

extern "C" aclnnStatus aclnnMseLossOutGetWorkspaceSize(const aclTensor* self,
                                                       const aclTensor* target, int64_t reduction,
                                                       aclTensor* out, uint64_t* workspaceSize,
                                                       aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, out};
  return OpGetWorkspaceSize(kMseLossOutOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnMseLossOut(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kMseLossOutOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
