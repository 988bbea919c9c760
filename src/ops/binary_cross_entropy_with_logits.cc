// aclnnBinaryCrossEntropyWithLogits: loss = w * (p*t*softplus(-x) + (1-t)*softplus(x)),
// optionally averaged or summed.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

#include <iterator>

#include "ops/bce_checks.h"
#include "ops/bce_plans.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

constexpr openaclnnOperand kOperands[] = {
    {.name = "self",
     .role = OPENACLNN_ROLE_SELF,
     .optional = 0,
     .output = 0,
     .reduced = 0,
     .shapeOf = OPENACLNN_ROLE_SELF},
    {.name = "target",
     .role = OPENACLNN_ROLE_TARGET,
     .optional = 0,
     .output = 0,
     .reduced = 0,
     .shapeOf = OPENACLNN_ROLE_TARGET},
    {.name = "weightOptional",
     .role = OPENACLNN_ROLE_WEIGHT,
     .optional = 1,
     .output = 0,
     .reduced = 0,
     .shapeOf = OPENACLNN_ROLE_WEIGHT},
    {.name = "posWeightOptional",
     .role = OPENACLNN_ROLE_POS_WEIGHT,
     .optional = 1,
     .output = 0,
     .reduced = 0,
     .shapeOf = OPENACLNN_ROLE_POS_WEIGHT},
    {.name = "out",
     .role = OPENACLNN_ROLE_OUT,
     .optional = 0,
     .output = 1,
     .reduced = 1,
     .shapeOf = OPENACLNN_ROLE_SELF},
};

}  // namespace

extern const OpDescriptor kBceWithLogitsOp = {
    .info = {.api = "aclnnBinaryCrossEntropyWithLogits",
             .kind = OPENACLNN_OP_LOSS,
             .operandCount = std::size(kOperands),
             .operands = kOperands,
             .getWorkspaceSize = TableGetWorkspaceSize<kBceWithLogitsOp>,
             .launch = aclnnBinaryCrossEntropyWithLogits},
    .validate = ValidateLoss,
    .plan = PlanLoss};

}  // namespace openaclnn

using openaclnn::kBceWithLogitsOp;

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  const aclTensor* operands[] = {self, target, weightOptional, posWeightOptional, out};
  return OpGetWorkspaceSize(kBceWithLogitsOp, operands, reduction, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnBinaryCrossEntropyWithLogits(void* workspace, uint64_t workspaceSize,
                                                         aclOpExecutor* executor,
                                                         const aclrtStream stream) {
  return openaclnn::LaunchExecutor(kBceWithLogitsOp.info.api, workspace, workspaceSize, executor,
                                   stream);
}
