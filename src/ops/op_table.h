// The op table: one descriptor per aclnn API (its public listing, include/openaclnn/op_table.h,
// plus its checks and its plan), which the APIs' C entry points and every program that drives
// all ops alike share.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "base/executor.h"
#include "base/status.h"
#include "openaclnn/op_table.h"
#include "ops/argument_checker.h"
#include "ops/loss_operands.h"

namespace openaclnn {

struct OpDescriptor {
  openaclnnOpDescriptor info;  // what the public listing hands out
  // The op's checks, CANN's, in CANN's order, under `check`'s API name.
  aclnnStatus (*validate)(const ArgumentChecker& check, const LossOperands& operands,
                          int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor);
  // The work for operands that passed the checks (nullptr: nothing to run).
  std::unique_ptr<Plan> (*plan)(LossFamily family, const LossOperands& operands, int64_t reduction,
                                uint64_t* workspace_size);
};

// Operand rows (openaclnnOperand) by what they are: an input, whose shape is its own, or an
// output of the shape of `shape_of`; `flags` names what is not the default.
struct OperandFlags {
  bool optional = false;                  // may be NULL
  int reduced = OPENACLNN_REDUCED_NEVER;  // an openaclnnReducedShape (true: REDUCED_TO_ONE)
};
constexpr openaclnnOperand Input(const char* name, openaclnnOperandRole role,
                                 OperandFlags flags = {}) {
  return {.name = name,
          .role = role,
          .optional = flags.optional,
          .output = 0,
          .reduced = flags.reduced,
          .shapeOf = role};
}
constexpr openaclnnOperand Output(const char* name, openaclnnOperandRole role,
                                  openaclnnOperandRole shape_of, OperandFlags flags = {}) {
  return {.name = name,
          .role = role,
          .optional = flags.optional,
          .output = 1,
          .reduced = flags.reduced,
          .shapeOf = shape_of};
}

// Every op, in the order openaclnnGetOp numbers them.
std::span<const OpDescriptor* const> Ops();

// Phase 1 of `op`, its tensors in API order and its attributes' values (nullptr: the defaults):
// the checks, the plan, the executor (which, under OPENACLNN_VERBOSE, carries the op's
// description for phase 2's line).
// `whole_attributes` (nullptr: none) holds the integer attributes' exact values, at their indices,
// where the op's named API took them (an int64_t beyond 2^53 does not fit a double); without it an
// integer attribute is the double in `attributes`, which must be a whole number within +-2^53.
aclnnStatus OpGetWorkspaceSize(const OpDescriptor& op, const aclTensor* const* tensors,
                               int64_t reduction, const double* attributes,
                               const int64_t* whole_attributes, uint64_t* workspace_size,
                               aclOpExecutor** executor);

// The same for an op without integer attributes.
inline aclnnStatus OpGetWorkspaceSize(const OpDescriptor& op, const aclTensor* const* tensors,
                                      int64_t reduction, const double* attributes,
                                      uint64_t* workspace_size, aclOpExecutor** executor) {
  return OpGetWorkspaceSize(op, tensors, reduction, attributes, nullptr, workspace_size, executor);
}

// The same for an op without attributes.
inline aclnnStatus OpGetWorkspaceSize(const OpDescriptor& op, const aclTensor* const* tensors,
                                      int64_t reduction, uint64_t* workspace_size,
                                      aclOpExecutor** executor) {
  return OpGetWorkspaceSize(op, tensors, reduction, nullptr, nullptr, workspace_size, executor);
}

// The listing's phase 1 of `kOp` (an openaclnnGetWorkspaceSizeFn).
template <const OpDescriptor& kOp>
aclnnStatus TableGetWorkspaceSize(const aclTensor* const* tensors, int64_t reduction,
                                  const double* attributes, uint64_t* workspace_size,
                                  aclOpExecutor** executor) {
  if (tensors == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: operands is nullptr.", kOp.info.api);
  }
  return OpGetWorkspaceSize(kOp, tensors, reduction, attributes, workspace_size, executor);
}

// An attribute row (openaclnnAttribute).
constexpr openaclnnAttribute Attribute(const char* name, openaclnnAttributeType type,
                                       double default_value) {
  return {.name = name, .type = type, .defaultValue = default_value};
}

// One per file of ops/.
extern const OpDescriptor kBceWithLogitsOp;
extern const OpDescriptor kBceWithLogitsBackwardOp;
extern const OpDescriptor kBceWithLogitsTargetBackwardOp;
extern const OpDescriptor kBceWithLogitsAndGradOp;
extern const OpDescriptor kBinaryCrossEntropyOp;
extern const OpDescriptor kBinaryCrossEntropyBackwardOp;
extern const OpDescriptor kL1LossOp;
extern const OpDescriptor kL1LossBackwardOp;
extern const OpDescriptor kKlDivOp;
extern const OpDescriptor kKlDivBackwardOp;
extern const OpDescriptor kKlDivTargetBackwardOp;
extern const OpDescriptor kMseLossOp;
extern const OpDescriptor kMseLossOutOp;
extern const OpDescriptor kMseLossBackwardOp;
extern const OpDescriptor kSmoothL1LossOp;
extern const OpDescriptor kSmoothL1LossBackwardOp;
extern const OpDescriptor kHuberLossOp;
extern const OpDescriptor kHuberLossBackwardOp;
extern const OpDescriptor kSoftMarginLossOp;
extern const OpDescriptor kSoftMarginLossBackwardOp;
extern const OpDescriptor kNllLossOp;
extern const OpDescriptor kNllLoss2dOp;
extern const OpDescriptor kNllLossBackwardOp;
extern const OpDescriptor kNllLoss2dBackwardOp;
extern const OpDescriptor kCrossEntropyLossOp;
extern const OpDescriptor kCrossEntropyLossGradOp;

}  // namespace openaclnn
