#include "losses/cross_entropy/cross_entropy_checks.h"

#include <cstring>
#include <initializer_list>
#include <vector>

#include "base/tensor.h"

namespace openaclnn {
namespace {

// The op definitions' target dtypes (int32 is the Ascend 950's; CANN's docs list both).
constexpr DtypeSet kTargetTypes = DtypeSet{}.With(ACL_INT64).With(ACL_INT32);
constexpr DtypeSet kWeightTypes = DtypeSet{}.With(ACL_FLOAT);

int Rank(const aclTensor* tensor) { return static_cast<int>(tensor->view_shape.size()); }

aclnnStatus CheckReduction(const ArgumentChecker& check, int64_t reduction) {
  if (reduction >= 0 && reduction <= 2) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: reductionOptional must be \"none\", \"mean\" or \"sum\" (NULL: \"mean\").",
              check.api);
}

// labelSmoothing in [0, 1] (CANN's tiling: 561002), used as the double passed.
aclnnStatus CheckSmoothing(const ArgumentChecker& check, double smoothing) {
  if (smoothing >= 0.0 && smoothing <= 1.0) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: labelSmoothing must lie in [0, 1], but it is %g.",
              check.api, smoothing);
}

// input or logProb (N, C), target (N), weight (C); C = 0 only without rows.
aclnnStatus CheckRows(const ArgumentChecker& check, const char* name, const aclTensor* self,
                      const aclTensor* target, const aclTensor* weight) {
  if (Rank(self) != 2) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must be 2-D (N, C), but its shape is %s.",
                check.api, name, ShapeString(self->view_shape).c_str());
  }
  const int64_t rows = self->view_shape[0], classes = self->view_shape[1];
  OPENACLNN_RETURN_IF_ERROR(check.ShapeIs("target", target, {rows}, "(N)"));
  if (weight != nullptr)
    OPENACLNN_RETURN_IF_ERROR(check.ShapeIs("weight", weight, {classes}, "(C)"));
  if (classes > 0 || rows == 0) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s %s has rows but no classes (C = 0).", check.api,
              name, ShapeString(self->view_shape).c_str());
}

// A per-row tensor of reduction none ([N]), else one element of rank at most 1.
aclnnStatus CheckPerRow(const ArgumentChecker& check, const char* name, const aclTensor* tensor,
                        int64_t reduction, int64_t rows) {
  if (reduction == 0) return check.ShapeIs(name, tensor, {rows}, "(N)");
  if (Rank(tensor) > 1) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: %s must be a 0-D or 1-D tensor of one element, but its shape is %s.",
                check.api, name, ShapeString(tensor->view_shape).c_str());
  }
  return check.SingleElement(name, tensor);
}

}  // namespace

int64_t ReductionNamed(const char* name) {
  if (name == nullptr || std::strcmp(name, "mean") == 0) return 1;
  if (std::strcmp(name, "none") == 0) return 0;
  if (std::strcmp(name, "sum") == 0) return 2;
  return kUnknownReduction;
}

aclnnStatus ValidateCrossEntropyLoss(const ArgumentChecker& check, const LossOperands& operands,
                                     int64_t reduction, uint64_t* workspace_size,
                                     aclOpExecutor** executor) {
  const aclTensor* input = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* weight = operands.tensor[kWeight];
  const aclTensor* loss = operands.tensor[kOut];
  const aclTensor* log_prob = operands.tensor[kLogProbOut];
  const aclTensor* zloss = operands.tensor[kZlossOut];
  const aclTensor* lse = operands.tensor[kLseForZlossOut];
  OPENACLNN_RETURN_IF_ERROR(check.Present({{"input", input},
                                           {"target", target},
                                           {"lossOut", loss},
                                           {"logProbOut", log_prob},
                                           {"zlossOut", zloss},
                                           {"lseForZlossOut", lse}}));
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  if (weight != nullptr) OPENACLNN_RETURN_IF_ERROR(check.Present("weightOptional", weight));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("input", input));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("target", target, kTargetTypes));
  if (weight != nullptr)
    OPENACLNN_RETURN_IF_ERROR(check.TypeIn("weightOptional", weight, kWeightTypes));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("lossOut", loss, "input", input));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("logProbOut", log_prob, "input", input));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("zlossOut", zloss, "input", input));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("lseForZlossOut", lse, "input", input));
  OPENACLNN_RETURN_IF_ERROR(CheckReduction(check, reduction));
  OPENACLNN_RETURN_IF_ERROR(CheckSmoothing(check, operands.attribute[1]));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"input", input},
                                          {"target", target},
                                          {"weightOptional", weight},
                                          {"lossOut", loss},
                                          {"logProbOut", log_prob}}));
  OPENACLNN_RETURN_IF_ERROR(CheckRows(check, "input", input, target, weight));
  OPENACLNN_RETURN_IF_ERROR(CheckPerRow(check, "lossOut", loss, reduction, input->view_shape[0]));
  return check.ShapeIs("logProbOut", log_prob, input->view_shape, "input's shape");
}

aclnnStatus ValidateCrossEntropyLossGrad(const ArgumentChecker& check, const LossOperands& operands,
                                         int64_t reduction, uint64_t* workspace_size,
                                         aclOpExecutor** executor) {
  const aclTensor* grad = operands.tensor[kGradOutput];
  const aclTensor* log_prob = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* weight = operands.tensor[kWeight];
  const aclTensor* grad_zloss = operands.tensor[kGradZloss];
  const aclTensor* lse = operands.tensor[kLseForZloss];
  const aclTensor* out = operands.tensor[kOut];
  OPENACLNN_RETURN_IF_ERROR(
      check.Present({{"gradLoss", grad}, {"logProb", log_prob}, {"target", target}, {"out", out}}));
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  for (const NamedTensor& optional :
       {NamedTensor{"weightOptional", weight}, NamedTensor{"gradZlossOptional", grad_zloss},
        NamedTensor{"lseForZlossOptional", lse}}) {
    if (optional.tensor != nullptr)
      OPENACLNN_RETURN_IF_ERROR(check.Present(optional.name, optional.tensor));
  }
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("logProb", log_prob));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("gradLoss", grad, "logProb", log_prob));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("target", target, kTargetTypes));
  if (weight != nullptr)
    OPENACLNN_RETURN_IF_ERROR(check.TypeIn("weightOptional", weight, kWeightTypes));
  if (grad_zloss != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(check.SameType("gradZlossOptional", grad_zloss, "logProb", log_prob));
  }
  if (lse != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(check.SameType("lseForZlossOptional", lse, "logProb", log_prob));
  }
  OPENACLNN_RETURN_IF_ERROR(check.SameType("out", out, "logProb", log_prob));
  OPENACLNN_RETURN_IF_ERROR(CheckReduction(check, reduction));
  OPENACLNN_RETURN_IF_ERROR(CheckSmoothing(check, operands.attribute[1]));
  OPENACLNN_RETURN_IF_ERROR(check.Layout({{"gradLoss", grad},
                                          {"logProb", log_prob},
                                          {"target", target},
                                          {"weightOptional", weight},
                                          {"out", out}}));
  OPENACLNN_RETURN_IF_ERROR(CheckRows(check, "logProb", log_prob, target, weight));
  OPENACLNN_RETURN_IF_ERROR(
      CheckPerRow(check, "gradLoss", grad, reduction, log_prob->view_shape[0]));
  return check.ShapeIs("out", out, log_prob->view_shape, "logProb's shape");
}

}  // namespace openaclnn
