// The KL divergence ops' argument checks: CANN's, in CANN's order, in CANN's words and codes, with
// OpenACLNN's decisions (docs/contract/checks-and-codes.md §14-§16); and what else their three
// descriptors share, their attribute and their plans.
#pragma once

#include <cstdint>
#include <memory>

#include "losses/kl_div/kl_div_math.h"
#include "ops/argument_checker.h"
#include "ops/loss_operands.h"
#include "ops/loss_plans.h"
#include "ops/op_table.h"

namespace openaclnn {

// aclnnKlDiv's checks of operands self, target and out.
aclnnStatus ValidateKlDiv(const ArgumentChecker& check, const LossOperands& operands,
                          int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor);

// aclnnKlDivBackward's checks of operands gradOutput, self, target and out.
aclnnStatus ValidateKlDivBackward(const ArgumentChecker& check, const LossOperands& operands,
                                  int64_t reduction, uint64_t* workspace_size,
                                  aclOpExecutor** executor);

// aclnnKlDivTargetBackward's checks of operands gradOutput, self, target and gradTarget.
aclnnStatus ValidateKlDivTargetBackward(const ArgumentChecker& check, const LossOperands& operands,
                                        int64_t reduction, uint64_t* workspace_size,
                                        aclOpExecutor** executor);

// logTarget, after reduction in every one of the three APIs; torch's log_target defaults to false.
inline constexpr openaclnnAttribute kKlDivAttributes[] = {
    Attribute("logTarget", OPENACLNN_ATTRIBUTE_BOOL, 0.0),
};

// The plan of the op of kind kKind, for the target kind its logTarget says: the loss over the
// broadcast shape (PlanLoss), a gradient summed into its output's shape (PlanGradient).
template <LossKind kKind>
std::unique_ptr<Plan> PlanKlDiv(LossFamily family, const LossOperands& operands, int64_t reduction,
                                uint64_t* workspace_size) {
  const LossRequest request{
      .family = family, .kind = kKind, .variant = KlDivVariant(operands.attribute[0])};
  if constexpr (kKind == LossKind::kLoss) {
    return PlanLoss(request, operands, reduction, workspace_size);
  } else {
    return PlanGradient(request, operands, reduction, workspace_size);
  }
}

}  // namespace openaclnn
