// aclnnKlDivTargetBackward: the gradient of aclnnKlDiv's loss with respect to target, gradTarget =
// g (ln t - x + 1) (with logTarget g e^t (t - x + 1)), divided by N for mean or by self's first
// dimension for batchmean, summed over the dimensions target was broadcast along into target's
// shape.
#include "aclnnop/aclnn_kl_div_target_backward.h"

#include <iterator>

#include "losses/kl_div/kl_div_checks.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("gradOutput", OPENACLNN_ROLE_GRAD_OUTPUT),
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Output("gradTarget", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_TARGET),
};

}  // namespace

extern const OpDescriptor kKlDivTargetBackwardOp = {
    .info = {.api = "aclnnKlDivTargetBackward",
             .family = OPENACLNN_FAMILY_KL_DIV,
             .kind = OPENACLNN_OP_GRAD_TARGET,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kKlDivTargetBackwardOp>,
             .launch = aclnnKlDivTargetBackward,
             .attributeCount = std::size(kKlDivAttributes),
             .attributes = kKlDivAttributes,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateKlDivTargetBackward,
    .plan = PlanKlDiv<LossKind::kGradTarget>};

}  // namespace openaclnn

using openaclnn::kKlDivTargetBackwardOp;

extern "C" aclnnStatus aclnnKlDivTargetBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    bool logTarget, aclTensor* gradTarget, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, gradTarget};
  const double attributes[] = {logTarget ? 1.0 : 0.0};
  return OpGetWorkspaceSize(kKlDivTargetBackwardOp, operands, reduction, attributes, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnKlDivTargetBackward(void* workspace, uint64_t workspaceSize,
                                                aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kKlDivTargetBackwardOp.info.api, workspace, workspaceSize,
                                   executor, stream);
}
