#include "ops/argument_checker.h"

#include <string>

#include "base/dtype.h"
#include "base/promotion.h"
#include "base/shape.h"
#include "base/tensor.h"
#include "kernels/strided_operand.h"
#include "runtime/soc.h"

namespace openaclnn {
namespace {

std::string Describe(const aclTensor& tensor) {
  return std::string(DataTypeName(tensor.dtype)) + " " + ShapeString(tensor.view_shape);
}

}  // namespace

std::string DtypeSet::Names() const {
  std::string names;
  for (int64_t dtype = 0; dtype < 64; ++dtype) {
    if (!Contains(dtype)) continue;
    if (!names.empty()) names += ", ";
    names += DataTypeName(dtype);
  }
  return names.empty() ? "none" : names;
}

DtypeSet FloatTypesOfSoc() {
  const DtypeSet types = DtypeSet{}.With(ACL_FLOAT).With(ACL_FLOAT16);
  return SocSupportsBf16() ? types.With(ACL_BF16) : types;
}

aclnnStatus ArgumentChecker::SupportedType(const char* name, const aclTensor* tensor) const {
  return TypeIn(name, tensor, FloatTypesOfSoc());
}

aclnnStatus ArgumentChecker::TypeIn(const char* name, const aclTensor* tensor,
                                    DtypeSet allowed) const {
  if (tensor == nullptr || allowed.Contains(tensor->dtype)) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: %s has dtype %s (%d), which %s does not support; supported: %s.", api, name,
              DataTypeName(tensor->dtype), static_cast<int>(tensor->dtype), SocName(),
              allowed.Names().c_str());
}

aclnnStatus ArgumentChecker::Promoted(const char* what, int64_t a, int64_t b,
                                      int64_t* promoted) const {
  *promoted = PromoteType(a, b);
  if (*promoted != ACL_DT_UNDEFINED) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtypes %s and %s cannot be promoted to one type.",
              api, what, DataTypeName(a), DataTypeName(b));
}

aclnnStatus ArgumentChecker::PromotedIn(const char* what, int64_t from, DtypeSet allowed) const {
  if (allowed.Contains(from)) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: the promoted dtype %s of %s is not supported on %s; supported: %s.", api,
              DataTypeName(from), what, SocName(), allowed.Names().c_str());
}

aclnnStatus ArgumentChecker::CastsTo(const char* what, int64_t from, const char* name,
                                     const aclTensor* tensor) const {
  if (CanCast(from, tensor->dtype)) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s of dtype %s cannot be cast to %s dtype %s.", api,
              what, DataTypeName(from), name, DataTypeName(tensor->dtype));
}

aclnnStatus ArgumentChecker::ReductionWithBatchmean(int64_t reduction) const {
  if (reduction >= 0 && reduction <= 3) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: reduction is %lld; Reduction only support [0, 1, 2, 3] (0 none, 1 mean, 2 sum, "
              "3 batchmean).",
              api, static_cast<long long>(reduction));
}

aclnnStatus ArgumentChecker::Broadcast(const char* what, const std::vector<int64_t>& shape,
                                       const char* name, const aclTensor* tensor,
                                       std::vector<int64_t>* result) const {
  if (BroadcastShape(shape, tensor->view_shape, result)) {
    if (ElementCount(*result) >= 0) return ACLNN_SUCCESS;
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: the broadcast of %s shape %s and %s shape %s, %s, has more elements than "
                "int64 counts.",
                api, what, ShapeString(shape).c_str(), name,
                ShapeString(tensor->view_shape).c_str(), ShapeString(*result).c_str());
  }
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: %s shape %s and %s shape %s cannot broadcast (right-aligned, each pair of "
              "dimensions equal or one of them 1).",
              api, what, ShapeString(shape).c_str(), name, ShapeString(tensor->view_shape).c_str());
}

aclnnStatus ArgumentChecker::ShapeIs(const char* name, const aclTensor* tensor,
                                     const std::vector<int64_t>& shape, const char* what) const {
  if (tensor->view_shape == shape) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shape %s must be %s, %s.", api, name,
              ShapeString(tensor->view_shape).c_str(), what, ShapeString(shape).c_str());
}

aclnnStatus ArgumentChecker::RankZero(const char* name, const aclTensor* tensor) const {
  if (tensor->view_shape.empty()) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: with reduction mean or sum, %s must be 0-D (shape []), but its shape is %s.",
              api, name, ShapeString(tensor->view_shape).c_str());
}

aclnnStatus ArgumentChecker::Layout(const char* name, const aclTensor* tensor) const {
  if (tensor == nullptr) return ACLNN_SUCCESS;
  if (tensor->view_shape.size() > static_cast<size_t>(kMaxRank)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) has rank %zu; at most %d is supported.", api,
                name, Describe(*tensor).c_str(), tensor->view_shape.size(), kMaxRank);
  }
  if (!IsAclFormat(tensor->format)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (%s) has format %d, which is not an aclFormat.",
                api, name, Describe(*tensor).c_str(), static_cast<int>(tensor->format));
  }
  const std::string problem = ViewProblem(*tensor);
  if (!problem.empty()) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: the view of %s (%s) is invalid: %s.", api, name,
                Describe(*tensor).c_str(), problem.c_str());
  }
  return ACLNN_SUCCESS;
}

aclnnStatus ArgumentChecker::SameShape(const char* name, const aclTensor* tensor,
                                       const char* other_name, const aclTensor* other) const {
  if (tensor->view_shape == other->view_shape) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shape %s must equal %s shape %s.", api, name,
              ShapeString(tensor->view_shape).c_str(), other_name,
              ShapeString(other->view_shape).c_str());
}

aclnnStatus ArgumentChecker::BroadcastsInto(const char* name, const aclTensor* tensor,
                                            const aclTensor* self) const {
  if (tensor == nullptr || openaclnn::BroadcastsInto(tensor->view_shape, self->view_shape)) {
    return ACLNN_SUCCESS;
  }
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: %s shape %s cannot broadcast into self shape %s (right-aligned, each "
              "dimension must be 1 or equal, rank not above self's).",
              api, name, ShapeString(tensor->view_shape).c_str(),
              ShapeString(self->view_shape).c_str());
}

}  // namespace openaclnn
