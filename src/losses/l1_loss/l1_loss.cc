// aclnnL1Loss: loss = |self - target| over the broadcast shape, optionally averaged or summed;
// in two's-complement integers where self and target promote to INT64.
#include "aclnnop/aclnn_l1_loss.h"

#include <iterator>
#include <memory>

#include "losses/l1_loss/l1_loss_checks.h"
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

// Integer inputs are read as their promoted dtype (INT64: the integer problem).
std::unique_ptr<Plan> PlanL1Loss(LossFamily family, const LossOperands& operands, int64_t reduction,
                                 uint64_t* workspace_size) {
  return PlanLoss({.family = family, .promoted = L1LossPromotedType(operands)}, operands, reduction,
                  workspace_size);
}

}  // namespace

extern const OpDescriptor kL1LossOp = {
    .info = {.api = "aclnnL1Loss",
             .family = OPENACLNN_FAMILY_L1_LOSS,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kL1LossOp>,
             .launch = aclnnL1Loss,
             .attributeCount = 0,
             .attributes = nullptr,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateL1Loss,
    .plan = PlanL1Loss};

}  // namespace openaclnn

using openaclnn::kL1LossOp;

extern "C" aclnnStatus aclnnL1LossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                   int64_t reduction, aclTensor* out,
                                                   uint64_t* workspaceSize,
                                                   aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, out};
  return OpGetWorkspaceSize(kL1LossOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnL1Loss(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
  return openaclnn::LaunchExecutor(kL1LossOp.info.api, workspace, workspaceSize, executor, stream);
}
