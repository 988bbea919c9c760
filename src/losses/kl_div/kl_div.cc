// aclnnKlDiv: loss = t (ln t - x) (t = 0: 0) or, with logTarget, e^t (t - x), on log-probabilities
// x, over the broadcast shape of self and target; averaged, summed, or summed and divided by
// self's first dimension (batchmean).
#include "aclnnop/aclnn_kl_div.h"

#include <iterator>

#include "losses/kl_div/kl_div_checks.h"
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

extern const OpDescriptor kKlDivOp = {.info = {.api = "aclnnKlDiv",
                                               .family = OPENACLNN_FAMILY_KL_DIV,
                                               .kind = OPENACLNN_OP_LOSS,
                                               .operandCount = std::size(kOperands),
                                               .operands = kOperands,
                                               .getWorkspaceSize = TableGetWorkspaceSize<kKlDivOp>,
                                               .launch = aclnnKlDiv,
                                               .attributeCount = std::size(kKlDivAttributes),
                                               .attributes = kKlDivAttributes,
                                               .layout = OPENACLNN_LAYOUT_ELEMENTWISE},
                                      .validate = ValidateKlDiv,
                                      .plan = PlanKlDiv<LossKind::kLoss>};

}  // namespace openaclnn

using openaclnn::kKlDivOp;

extern "C" aclnnStatus aclnnKlDivGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                  int64_t reduction, bool logTarget, aclTensor* out,
                                                  uint64_t* workspaceSize,
                                                  aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, out};
  const double attributes[] = {logTarget ? 1.0 : 0.0};
  return OpGetWorkspaceSize(kKlDivOp, operands, reduction, attributes, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnKlDiv(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                  aclrtStream stream) {
  return openaclnn::LaunchExecutor(kKlDivOp.info.api, workspace, workspaceSize, executor, stream);
}
