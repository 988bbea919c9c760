// openaclnnHuberLoss (an extension): PyTorch's huber_loss, with d = self - target,
// |d| < delta ? d^2 / 2 : delta (|d| - delta / 2) over the broadcast shape of self and target,
// element-wise, averaged or summed. The smooth L1 family's Huber variant.
#include "openaclnn/aclnn_huber_loss.h"

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
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_SHAPE_OF_INPUTS,
           {.reduced = OPENACLNN_REDUCED_TO_ONE}),
};

constexpr openaclnnAttribute kAttributes[] = {Attribute("delta", OPENACLNN_ATTRIBUTE_DOUBLE, 1.0)};

std::unique_ptr<Plan> PlanHuberLoss(LossFamily family, const LossOperands& operands,
                                    int64_t reduction, uint64_t* workspace_size) {
  return PlanLoss({.family = family, .parameter = operands.attribute[0], .variant = kHuberVariant},
                  operands, reduction, workspace_size);
}

}  // namespace

extern const OpDescriptor kHuberLossOp = {
    .info = {.api = "openaclnnHuberLoss",
             .family = OPENACLNN_FAMILY_SMOOTH_L1_LOSS,
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kHuberLossOp>,
             .launch = openaclnnHuberLoss,
             .attributeCount = std::size(kAttributes),
             .attributes = kAttributes,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateHuberLoss,
    .plan = PlanHuberLoss};

}  // namespace openaclnn

using openaclnn::kHuberLossOp;

extern "C" aclnnStatus openaclnnHuberLossGetWorkspaceSize(const aclTensor* self,
                                                          const aclTensor* target,
                                                          int64_t reduction, double delta,
                                                          aclTensor* out, uint64_t* workspaceSize,
                                                          aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, out};
  const double attributes[] = {delta};
  return OpGetWorkspaceSize(kHuberLossOp, operands, reduction, attributes, workspaceSize, executor);
}

extern "C" aclnnStatus openaclnnHuberLoss(void* workspace, uint64_t workspaceSize,
                                          aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kHuberLossOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
