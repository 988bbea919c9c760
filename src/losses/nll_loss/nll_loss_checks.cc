#include "losses/nll_loss/nll_loss_checks.h"

#include <initializer_list>
#include <vector>

#include "base/tensor.h"

namespace openaclnn {
namespace {

// CANN's target dtypes: class indices as int64, int32 or uint8.
constexpr DtypeSet kTargetTypes = DtypeSet{}.With(ACL_INT64).With(ACL_INT32).With(ACL_UINT8);
// The types the kernels write: CANN casts to any type self casts to, OpenACLNN writes these.
constexpr DtypeSet kStoredTypes = DtypeSet{}.With(ACL_FLOAT).With(ACL_FLOAT16).With(ACL_BF16);

int Rank(const aclTensor* tensor) { return static_cast<int>(tensor->view_shape.size()); }

aclnnStatus Refuse(const ArgumentChecker& check, const char* why, const aclTensor* tensor) {
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s, but its shape is %s.", check.api, why,
              ShapeString(tensor->view_shape).c_str());
}

// An output cast from self's dtype: castable (CANN's CanCast), and one the kernels write.
aclnnStatus CastOutput(const ArgumentChecker& check, const char* name, const aclTensor* self,
                       const aclTensor* output) {
  OPENACLNN_RETURN_IF_ERROR(check.CastsTo("self", self->dtype, name, output));
  return check.TypeIn(name, output, kStoredTypes);
}

// weight: one value per class, C = self's class dimension (1 of a 2-D or 4-D self, 0 of a 1-D one).
aclnnStatus CheckWeight(const ArgumentChecker& check, const aclTensor* weight, int64_t classes,
                        bool rank_checked) {
  const bool ok =
      (rank_checked ? Rank(weight) == 1 : Rank(weight) >= 1) && weight->view_shape[0] == classes;
  if (ok) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: weight must hold one value per class (%s[%lld]), but its shape is %s.",
              check.api, rank_checked ? "1-D, " : "dimension 0 ", static_cast<long long>(classes),
              ShapeString(weight->view_shape).c_str());
}

// A reduced result, or a 1-D self's: one element, rank at most 1 where `rank_checked`.
aclnnStatus CheckOneElement(const ArgumentChecker& check, const char* name, const aclTensor* tensor,
                            bool rank_checked) {
  if (rank_checked && Rank(tensor) > 1) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: %s must be a 0-D or 1-D tensor of one element, but its shape is %s.",
                check.api, name, ShapeString(tensor->view_shape).c_str());
  }
  return check.SingleElement(name, tensor);
}

// A non-empty target with no class to index (C = 0): CANN's "target out of bounds".
aclnnStatus CheckClassesExist(const ArgumentChecker& check, const aclTensor* target,
                              int64_t classes) {
  if (classes > 0 || ElementCount(target->view_shape) == 0) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: target out of bounds: self has no classes (C = 0) but target %s has elements.",
              check.api, ShapeString(target->view_shape).c_str());
}

// self (C) with a 0-D target, or (N, C) with target (N): the 1-D and 2-D ops' pairing.
aclnnStatus CheckSelfAndTarget(const ArgumentChecker& check, const aclTensor* self,
                               const aclTensor* target) {
  if (Rank(self) != 1 && Rank(self) != 2) return Refuse(check, "self must be 1-D or 2-D", self);
  if (Rank(target) > 1) return Refuse(check, "target must be 0-D or 1-D", target);
  const bool paired = Rank(self) == 1
                          ? Rank(target) == 0
                          : Rank(target) == 1 && target->view_shape[0] == self->view_shape[0];
  if (paired) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: self %s and target %s do not pair: a 1-D self (C) takes a 0-D target, a 2-D "
              "self (N, C) a target (N).",
              check.api, ShapeString(self->view_shape).c_str(),
              ShapeString(target->view_shape).c_str());
}

// self (N, C, H, W) with target (N, H, W): the 2d ops' pairing.
aclnnStatus CheckSelfAndTarget2d(const ArgumentChecker& check, const aclTensor* self,
                                 const aclTensor* target) {
  if (Rank(self) != 4) return Refuse(check, "self must be 4-D (N, C, H, W)", self);
  if (Rank(target) != 3) return Refuse(check, "target must be 3-D (N, H, W)", target);
  const std::vector<int64_t>& s = self->view_shape;
  if (target->view_shape == std::vector<int64_t>{s[0], s[2], s[3]}) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: target %s must be self %s without its class dimension (N, H, W).", check.api,
              ShapeString(target->view_shape).c_str(), ShapeString(s).c_str());
}

int64_t ClassesOf(const aclTensor* self) {
  return self->view_shape.size() == 1 ? self->view_shape[0] : self->view_shape[1];
}

// The forwards' checks, CANN's aclnn_nll_loss.cpp and aclnn_nll_loss2d.cpp: nulls (weight is
// required), dtypes (weight self's, self castable to both outputs, self's and target's lists;
// the 2d op checks self's list first), the reduction, then shapes.
aclnnStatus ValidateForward(const ArgumentChecker& check, const LossOperands& operands,
                            int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor,
                            bool two_d) {
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* weight = operands.tensor[kWeight];
  const aclTensor* out = operands.tensor[kOut];
  const aclTensor* total_weight = operands.tensor[kTotalWeightOut];
  const std::initializer_list<NamedTensor> tensors = {{"self", self},
                                                      {"target", target},
                                                      {"weight", weight},
                                                      {"out", out},
                                                      {"totalWeightOut", total_weight}};
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Present(tensors));
  if (two_d) OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("weight", weight, "self", self));
  OPENACLNN_RETURN_IF_ERROR(CastOutput(check, "out", self, out));
  OPENACLNN_RETURN_IF_ERROR(CastOutput(check, "totalWeightOut", self, total_weight));
  if (!two_d) OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("target", target, kTargetTypes));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  OPENACLNN_RETURN_IF_ERROR(check.Layout(tensors));
  OPENACLNN_RETURN_IF_ERROR(two_d ? CheckSelfAndTarget2d(check, self, target)
                                  : CheckSelfAndTarget(check, self, target));
  OPENACLNN_RETURN_IF_ERROR(CheckWeight(check, weight, ClassesOf(self), !two_d));
  if (reduction == 0 && Rank(self) > 1) {
    OPENACLNN_RETURN_IF_ERROR(check.ShapeIs("out", out, target->view_shape, "target's shape"));
  } else {
    OPENACLNN_RETURN_IF_ERROR(CheckOneElement(check, "out", out, !two_d));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckOneElement(check, "totalWeightOut", total_weight, false));
  return CheckClassesExist(check, target, ClassesOf(self));
}

}  // namespace

aclnnStatus ValidateNllLoss(const ArgumentChecker& check, const LossOperands& operands,
                            int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) {
  return ValidateForward(check, operands, reduction, workspace_size, executor, false);
}

aclnnStatus ValidateNllLoss2d(const ArgumentChecker& check, const LossOperands& operands,
                              int64_t reduction, uint64_t* workspace_size,
                              aclOpExecutor** executor) {
  return ValidateForward(check, operands, reduction, workspace_size, executor, true);
}

// CANN's aclnn_nll_loss_backward.cpp: nulls, dtypes (weight, gradOutput and totalWeight self's,
// self castable to out, self's and target's lists), the reduction, shapes. CANN also accepts a
// 1-D self with a 1-D target of any length, which its forward refuses and which defines no result:
// refused here (differences-from-cann.md).
aclnnStatus ValidateNllLossBackward(const ArgumentChecker& check, const LossOperands& operands,
                                    int64_t reduction, uint64_t* workspace_size,
                                    aclOpExecutor** executor) {
  const aclTensor* grad_output = operands.tensor[kGradOutput];
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* weight = operands.tensor[kWeight];
  const aclTensor* total_weight = operands.tensor[kTotalWeight];
  const aclTensor* out = operands.tensor[kOut];
  const std::initializer_list<NamedTensor> tensors = {
      {"gradOutput", grad_output},   {"self", self}, {"target", target}, {"weight", weight},
      {"totalWeight", total_weight}, {"out", out}};
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Present(tensors));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("weight", weight, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("gradOutput", grad_output, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("totalWeight", total_weight, "self", self));
  OPENACLNN_RETURN_IF_ERROR(CastOutput(check, "out", self, out));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("target", target, kTargetTypes));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  OPENACLNN_RETURN_IF_ERROR(check.Layout(tensors));
  OPENACLNN_RETURN_IF_ERROR(CheckSelfAndTarget(check, self, target));
  OPENACLNN_RETURN_IF_ERROR(CheckWeight(check, weight, ClassesOf(self), true));
  OPENACLNN_RETURN_IF_ERROR(CheckOneElement(check, "totalWeight", total_weight, false));
  if (reduction == 0 && Rank(self) == 2) {
    OPENACLNN_RETURN_IF_ERROR(
        check.ShapeIs("gradOutput", grad_output, target->view_shape, "target's shape"));
  } else {
    OPENACLNN_RETURN_IF_ERROR(CheckOneElement(check, "gradOutput", grad_output, true));
  }
  OPENACLNN_RETURN_IF_ERROR(check.ShapeIs("out", out, self->view_shape, "self's shape"));
  return CheckClassesExist(check, target, ClassesOf(self));
}

// CANN's aclnn_nll_loss2d_backward.cpp: nulls (out before totalWeight), dtypes (self's list, then
// gradOutput, weight, out and totalWeight self's), shapes, and only then the reduction.
aclnnStatus ValidateNllLoss2dBackward(const ArgumentChecker& check, const LossOperands& operands,
                                      int64_t reduction, uint64_t* workspace_size,
                                      aclOpExecutor** executor) {
  const aclTensor* grad_output = operands.tensor[kGradOutput];
  const aclTensor* self = operands.tensor[kSelf];
  const aclTensor* target = operands.tensor[kTarget];
  const aclTensor* weight = operands.tensor[kWeight];
  const aclTensor* total_weight = operands.tensor[kTotalWeight];
  const aclTensor* out = operands.tensor[kOut];
  const std::initializer_list<NamedTensor> tensors = {
      {"gradOutput", grad_output}, {"self", self}, {"target", target},
      {"weight", weight},          {"out", out},   {"totalWeight", total_weight}};
  OPENACLNN_RETURN_IF_ERROR(check.OutputPointers(workspace_size, executor));
  OPENACLNN_RETURN_IF_ERROR(check.Present(tensors));
  OPENACLNN_RETURN_IF_ERROR(check.SupportedType("self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("gradOutput", grad_output, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("weight", weight, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("out", out, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.SameType("totalWeight", total_weight, "self", self));
  OPENACLNN_RETURN_IF_ERROR(check.TypeIn("target", target, kTargetTypes));
  OPENACLNN_RETURN_IF_ERROR(check.Layout(tensors));
  OPENACLNN_RETURN_IF_ERROR(CheckSelfAndTarget2d(check, self, target));
  if (reduction == 0) {
    OPENACLNN_RETURN_IF_ERROR(
        check.ShapeIs("gradOutput", grad_output, target->view_shape, "target's shape"));
  } else {
    OPENACLNN_RETURN_IF_ERROR(CheckOneElement(check, "gradOutput", grad_output, true));
  }
  // CANN counts weight's elements only; one dimension of C (the others 1) is what indexes by class.
  int long_dimensions = 0;
  for (int64_t size : weight->view_shape) long_dimensions += size != 1;
  if (ElementCount(weight->view_shape) != ClassesOf(self) || long_dimensions > 1) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: weight must hold one value per class along one dimension (%lld), but its "
                "shape is %s.",
                check.api, static_cast<long long>(ClassesOf(self)),
                ShapeString(weight->view_shape).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(check.ShapeIs("out", out, self->view_shape, "self's shape"));
  OPENACLNN_RETURN_IF_ERROR(CheckOneElement(check, "totalWeight", total_weight, false));
  OPENACLNN_RETURN_IF_ERROR(check.Reduction(reduction));
  return CheckClassesExist(check, target, ClassesOf(self));
}

}  // namespace openaclnn
