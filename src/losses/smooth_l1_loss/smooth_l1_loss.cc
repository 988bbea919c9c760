// aclnnSmoothL1Loss: with d = self - target, |d| < beta ? d^2 / (2 beta) : |d| - beta / 2 (beta =
// 0: |d|) over the broadcast shape of self and target, element-wise, averaged or summed.
#include "aclnnop/aclnn_smooth_l1_loss.h"

#include <iterator>

#include "losses/smooth_l1_loss/smooth_l1_loss_checks.h"
#include "losses/smooth_l1_loss/smooth_l1_loss_math.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Output("result", OPENACLNN_ROLE_OUT, OPENACLNN_SHAPE_OF_INPUTS,
           {.reduced = OPENACLNN_REDUCED_TO_ONE}),
};

constexpr openaclnnAttribute kAttributes[] = {Attribute("beta", OPENACLNN_ATTRIBUTE_FLOAT, 1.0)};

std::unique_ptr<Plan> PlanSmoothL1Loss(LossFamily family, const LossOperands& operands,
                                       int64_t reduction, uint64_t* workspace_size) {
  return PlanLoss(
      {.family = family, .parameter = operands.attribute[0], .variant = kSmoothL1Variant}, operands,
      reduction, workspace_size);
}

}  // namespace

extern const OpDescriptor kSmoothL1LossOp = {
    .info = {.api = "aclnnSmoothL1Loss",
             .family = OPENACLNN_FAMILY_SMOOTH_L1_LOSS,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kSmoothL1LossOp>,
             .launch = aclnnSmoothL1Loss,
             .attributeCount = std::size(kAttributes),
             .attributes = kAttributes,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateSmoothL1Loss,
    .plan = PlanSmoothL1Loss};

}  // namespace openaclnn

using openaclnn::kSmoothL1LossOp;

extern "C" aclnnStatus aclnnSmoothL1LossGetWorkspaceSize(const aclTensor* self,
                                                         const aclTensor* target, int64_t reduction,
                                                         float beta, aclTensor* result,
                                                         uint64_t* workspaceSize,
                                                         aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, result};
  const double attributes[] = {beta};
  return OpGetWorkspaceSize(kSmoothL1LossOp, operands, reduction, attributes, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnSmoothL1Loss(void* workspace, uint64_t workspaceSize,
                                         aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kSmoothL1LossOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
