// aclnnKlDivBackward: the gradient of aclnnKlDiv's loss with respect to self, out = -g t (with
// logTarget -g e^t), divided by N for mean or by self's first dimension for batchmean, summed over
// the dimensions self was broadcast along into self's shape.
#include "aclnnop/aclnn_kl_div_backward.h"

#include <iterator>

#include "losses/kl_div/kl_div_checks.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    Input("gradOutput", OPENACLNN_ROLE_GRAD_OUTPUT),
    Input("self", OPENACLNN_ROLE_SELF),
    Input("target", OPENACLNN_ROLE_TARGET),
    Output("out", OPENACLNN_ROLE_OUT, OPENACLNN_ROLE_SELF),
};

}  // namespace

extern const OpDescriptor kKlDivBackwardOp = {
    .info = {.api = "aclnnKlDivBackward",
             .family = OPENACLNN_FAMILY_KL_DIV,
             .kind = OPENACLNN_OP_GRAD_SELF,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kKlDivBackwardOp>,
             .launch = aclnnKlDivBackward,
             .attributeCount = std::size(kKlDivAttributes),
             .attributes = kKlDivAttributes,
             .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
    .validate = ValidateKlDivBackward,
    .plan = PlanKlDiv<LossKind::kGradSelf>};

}  // namespace openaclnn

using openaclnn::kKlDivBackwardOp;

extern "C" aclnnStatus aclnnKlDivBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, int64_t reduction,
    bool logTarget, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const aclTensor* operands[] = {gradOutput, self, target, out};
  const double attributes[] = {logTarget ? 1.0 : 0.0};
  return OpGetWorkspaceSize(kKlDivBackwardOp, operands, reduction, attributes, workspaceSize,
                            executor);
}

extern "C" aclnnStatus aclnnKlDivBackward(void* workspace, uint64_t workspaceSize,
                                          aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::LaunchExecutor(kKlDivBackwardOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
