// What the three BCE-with-logits ops share: their argument checks, in CANN's words and codes,
// and the plans they hand to the executor.
#pragma once

#include <algorithm>
#include <memory>
#include <new>
#include <vector>

#include "aclnn/acl_meta.h"
#include "base/executor.h"
#include "base/status.h"
#include "base/tensor.h"
#include "kernels/bce.h"

namespace openaclnn {

// Names the API in every message, so a user who reads aclGetRecentErrMsg() knows which call.
struct ArgumentChecker {
  const char* api;

  // 161001 for a null tensor (CANN's message), 161002 for a handle that is not a live aclTensor.
  aclnnStatus Present(const char* name, const aclTensor* tensor) const;
  aclnnStatus OutputPointers(uint64_t* workspace_size, aclOpExecutor** executor) const;
  // The dtype is one the SoC profile supports for this op (fp32, fp16 and, where the SoC has it,
  // bf16). Absent optional tensors pass.
  aclnnStatus SupportedType(const char* name, const aclTensor* tensor) const;
  aclnnStatus SameType(const char* name, const aclTensor* tensor, const char* other_name,
                       const aclTensor* other) const;
  aclnnStatus Reduction(int64_t reduction) const;
  // Rank at most 8 and a view that stays inside its storage with non-negative strides.
  aclnnStatus Layout(const char* name, const aclTensor* tensor) const;
  aclnnStatus SameShape(const char* name, const aclTensor* tensor, const char* other_name,
                        const aclTensor* other) const;
  aclnnStatus BroadcastsInto(const char* name, const aclTensor* tensor,
                             const aclTensor* self) const;
  // For a reduced result: exactly one element, any rank.
  aclnnStatus SingleElement(const char* name, const aclTensor* tensor) const;
  aclnnStatus SameFormat(const char* name, const aclTensor* tensor, const char* other_name,
                         const aclTensor* other) const;
};

// The operands of one op call by role (OperandIndex); nullptr for absent ones (weight,
// pos_weight, grad_output of the forward, the second output of all but the fused op). `slot` is
// each tensor's index among the executor's inputs then outputs; -1 for roles the op lacks.
struct BceOperands {
  BceOperands() { std::fill(slot, slot + kOperandCount, -1); }
  const aclTensor* tensor[kOperandCount] = {};
  int slot[kOperandCount];
};

// The forward's checks (CANN's, in CANN's order, docs/contract/checks-and-codes.md §2)
// of operands self, target, weight, posWeight and out, under `check`'s API name.
aclnnStatus ValidateLoss(const ArgumentChecker& check, const BceOperands& operands,
                         int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor);

// The gradient ops' checks (docs/contract/checks-and-codes.md §3) of operands gradOutput, self,
// target, weight, posWeight and out (named `out_name`). A null gradOutput passes when
// `grad_output_optional`.
aclnnStatus ValidateGradient(const ArgumentChecker& check, const BceOperands& operands,
                             const char* out_name, int64_t reduction, bool grad_output_optional,
                             uint64_t* workspace_size, aclOpExecutor** executor);

// The forward's plan: the loss over self (a fill for an empty self's mean or sum). With
// operands' kGradSelfOut present, the same pass also writes the gradient with respect to self.
std::unique_ptr<Plan> PlanLoss(const BceOperands& operands, int64_t reduction,
                               uint64_t* workspace_size);

// A gradient op's plan: the element-wise gradient `kind` over self (nothing for an empty self).
std::unique_ptr<Plan> PlanGradient(LossKind kind, const BceOperands& operands, int64_t reduction,
                                   uint64_t* workspace_size);

// The fused pass over self's (non-empty) shape, as the executor runs it; gradients are
// multiplied by `gradient_scale`.
std::unique_ptr<Plan> MakeBcePlan(LossKind kind, Reduction reduction, double gradient_scale,
                                  const BceOperands& operands, uint64_t* workspace_size);
// Writes `value` into every element of the output (the result of a mean or sum over nothing).
std::unique_ptr<Plan> MakeFillPlan(const BceOperands& operands, double value);

// Phase 1's checks of the active backend, after the arguments' (docs/contract/checks-and-codes.md
// §9): B1, it has a device (else ACLNN_ERR_RUNTIME_ERROR naming why not); B2, its kernel table
// implements ops of `kind` (an openaclnnOpKind value; else as CheckImplements).
aclnnStatus CheckBackend(const char* api, int kind);
// B2 for `kernels`, the table of the backend called `backend`: ACLNN_ERR_INNER_FIND_KERNEL_ERROR
// ("the <backend> backend does not implement ...") when it lacks ops of `kind`.
aclnnStatus CheckImplements(const char* api, const BceKernels& kernels, const char* backend,
                            int kind);

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

}  // namespace openaclnn
