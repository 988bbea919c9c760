#include "ops/op_table.h"

#include <cmath>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <vector>

#include "base/verbose.h"
#include "ops/backend_checks.h"
#include "ops/verbose_line.h"

namespace openaclnn {
namespace {

// LossOperands and the kernels' problem index operands by OperandIndex, the listing by role.
constexpr bool RoleIs(openaclnnOperandRole role, OperandIndex index) {
  return static_cast<int>(role) == static_cast<int>(index);
}
static_assert(RoleIs(OPENACLNN_ROLE_SELF, kSelf) && RoleIs(OPENACLNN_ROLE_TARGET, kTarget) &&
                  RoleIs(OPENACLNN_ROLE_WEIGHT, kWeight) &&
                  RoleIs(OPENACLNN_ROLE_POS_WEIGHT, kPosWeight) &&
                  RoleIs(OPENACLNN_ROLE_GRAD_OUTPUT, kGradOutput) &&
                  RoleIs(OPENACLNN_ROLE_OUT, kOut) &&
                  RoleIs(OPENACLNN_ROLE_GRAD_SELF_OUT, kGradSelfOut) &&
                  RoleIs(OPENACLNN_ROLE_TOTAL_WEIGHT, kTotalWeight) &&
                  RoleIs(OPENACLNN_ROLE_TOTAL_WEIGHT_OUT, kTotalWeightOut) &&
                  RoleIs(OPENACLNN_ROLE_LOG_PROB_OUT, kLogProbOut) &&
                  RoleIs(OPENACLNN_ROLE_ZLOSS_OUT, kZlossOut) &&
                  RoleIs(OPENACLNN_ROLE_LSE_FOR_ZLOSS_OUT, kLseForZlossOut) &&
                  RoleIs(OPENACLNN_ROLE_GRAD_ZLOSS, kGradZloss) &&
                  RoleIs(OPENACLNN_ROLE_LSE_FOR_ZLOSS, kLseForZloss) &&
                  RoleIs(OPENACLNN_ROLE_COUNT, kOperandCount),
              "a role is its OperandIndex");
// A kernel table lists the ops it implements by openaclnnOpFamily's and openaclnnOpKind's values.
constexpr bool FamilyIs(openaclnnOpFamily family, LossFamily loss) {
  return static_cast<int>(family) == static_cast<int>(loss);
}
// An op family is its LossFamily: one line per family.
static_assert(FamilyIs(OPENACLNN_FAMILY_BCE_WITH_LOGITS, LossFamily::kBceWithLogits));
static_assert(FamilyIs(OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY, LossFamily::kBinaryCrossEntropy));
static_assert(FamilyIs(OPENACLNN_FAMILY_L1_LOSS, LossFamily::kL1Loss));
static_assert(FamilyIs(OPENACLNN_FAMILY_KL_DIV, LossFamily::kKlDiv));
static_assert(FamilyIs(OPENACLNN_FAMILY_MSE_LOSS, LossFamily::kMseLoss));
static_assert(FamilyIs(OPENACLNN_FAMILY_SMOOTH_L1_LOSS, LossFamily::kSmoothL1Loss));
static_assert(FamilyIs(OPENACLNN_FAMILY_SOFT_MARGIN_LOSS, LossFamily::kSoftMarginLoss));
static_assert(FamilyIs(OPENACLNN_FAMILY_NLL_LOSS, LossFamily::kNllLoss));
static_assert(FamilyIs(OPENACLNN_FAMILY_CROSS_ENTROPY, LossFamily::kCrossEntropy));
constexpr bool KindIs(openaclnnOpKind kind, KernelOp op) {
  return static_cast<int>(kind) == static_cast<int>(op);
}
static_assert(KindIs(OPENACLNN_OP_LOSS, KernelOp::kLoss) &&
                  KindIs(OPENACLNN_OP_GRAD_SELF, KernelOp::kGradSelf) &&
                  KindIs(OPENACLNN_OP_GRAD_TARGET, KernelOp::kGradTarget) &&
                  KindIs(OPENACLNN_OP_LOSS_AND_GRAD, KernelOp::kLossAndGrad),
              "an op kind is its KernelOp");

// Phase 1's ending, after CheckBackend: runs `plan(&workspace_bytes)` with the active backend's
// kernels, wraps the plan in a new executor and hands both out. Turns an out-of-memory failure
// into ACLNN_ERR_INNER_CREATE_EXECUTOR.
template <class MakePlan>
aclnnStatus HandOut(const char* api, std::vector<const aclTensor*> inputs,
                    std::vector<const aclTensor*> outputs, uint64_t* workspace_size,
                    aclOpExecutor** executor, MakePlan&& plan) {
  try {
    uint64_t workspace = 0;
    std::unique_ptr<Plan> made = plan(&workspace);
    *executor = NewExecutor(std::move(inputs), std::move(outputs), std::move(made), workspace);
    if (*executor != nullptr) {
      *workspace_size = workspace;
      return ACLNN_SUCCESS;
    }
  } catch (const std::bad_alloc&) {
  }
  return Fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory creating the executor.", api);
}

constexpr const OpDescriptor* kOps[] = {&kBceWithLogitsOp,
                                        &kBceWithLogitsBackwardOp,
                                        &kBceWithLogitsTargetBackwardOp,
                                        &kBceWithLogitsAndGradOp,
                                        &kBinaryCrossEntropyOp,
                                        &kBinaryCrossEntropyBackwardOp,
                                        &kL1LossOp,
                                        &kL1LossBackwardOp,
                                        &kKlDivOp,
                                        &kKlDivBackwardOp,
                                        &kKlDivTargetBackwardOp,
                                        &kMseLossOp,
                                        &kMseLossOutOp,
                                        &kMseLossBackwardOp,
                                        &kSmoothL1LossOp,
                                        &kSmoothL1LossBackwardOp,
                                        &kHuberLossOp,
                                        &kHuberLossBackwardOp,
                                        &kSoftMarginLossOp,
                                        &kSoftMarginLossBackwardOp,
                                        &kNllLossOp,
                                        &kNllLoss2dOp,
                                        &kNllLossBackwardOp,
                                        &kNllLoss2dBackwardOp,
                                        &kCrossEntropyLossOp,
                                        &kCrossEntropyLossGradOp};

}  // namespace

std::span<const OpDescriptor* const> Ops() { return kOps; }

aclnnStatus OpGetWorkspaceSize(const OpDescriptor& op, const aclTensor* const* tensors,
                               int64_t reduction, const double* attributes,
                               const int64_t* whole_attributes, uint64_t* workspace_size,
                               aclOpExecutor** executor) {
  const char* api = op.info.api;
  LossOperands operands;
  for (size_t k = 0; k < op.info.attributeCount; ++k) {
    const openaclnnAttribute& attribute = op.info.attributes[k];
    double value = attributes != nullptr ? attributes[k] : attribute.defaultValue;
    if (attribute.type == OPENACLNN_ATTRIBUTE_FLOAT) value = static_cast<float>(value);
    if (attribute.type == OPENACLNN_ATTRIBUTE_BOOL) value = value != 0.0 ? 1.0 : 0.0;
    if (attribute.type == OPENACLNN_ATTRIBUTE_INT64) {
      if (whole_attributes != nullptr) {
        operands.whole[k] = whole_attributes[k];
        value = static_cast<double>(whole_attributes[k]);
      } else if (std::fabs(value) <= 0x1p53 && value == std::trunc(value)) {
        operands.whole[k] = static_cast<int64_t>(value);
      } else {
        return Fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: %s is %g; through the op table an integer attribute must be a whole "
                    "number of magnitude at most 2^53.",
                    api, attribute.name, value);
      }
    }
    operands.attribute[k] = value;
  }
  std::vector<const aclTensor*> inputs, outputs;
  inputs.reserve(op.info.operandCount);  // one allocation each: small calls feel every one
  outputs.reserve(op.info.operandCount);
  for (size_t slot = 0; slot < op.info.operandCount; ++slot) {
    const openaclnnOperand& operand = op.info.operands[slot];
    operands.tensor[operand.role] = tensors[slot];
    operands.slot[operand.role] = static_cast<int>(slot);  // outputs follow inputs in every API
    (operand.output ? outputs : inputs).push_back(tensors[slot]);
  }
  OPENACLNN_RETURN_IF_ERROR(
      op.validate(ArgumentChecker{api}, operands, reduction, workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(CheckBackend(api, op.info.family, op.info.kind));
  OPENACLNN_RETURN_IF_ERROR(HandOut(api, std::move(inputs), std::move(outputs), workspace_size,
                                    executor, [&](uint64_t* workspace) {
                                      return op.plan(static_cast<LossFamily>(op.info.family),
                                                     operands, reduction, workspace);
                                    }));
  if (VerboseEnabled()) {
    try {
      (*executor)->verbose =
          VerboseLine(op.info, tensors, reduction, operands.attribute, *workspace_size);
    } catch (const std::bad_alloc&) {  // the call itself is fine: it only goes unreported
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace openaclnn

using openaclnn::Ops;

extern "C" {

size_t openaclnnOpCount(void) { return Ops().size(); }

const openaclnnOpDescriptor* openaclnnGetOp(size_t index) {
  return index < Ops().size() ? &Ops()[index]->info : nullptr;
}

const openaclnnOpDescriptor* openaclnnFindOp(const char* api) {
  if (api == nullptr) return nullptr;
  for (const openaclnn::OpDescriptor* op : Ops()) {
    if (std::strcmp(op->info.api, api) == 0) return &op->info;
  }
  return nullptr;
}

}  // extern "C"
