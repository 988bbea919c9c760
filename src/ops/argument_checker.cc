#include "ops/argument_checker.h"

#include <string>

#include "base/dtype.h"
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

aclnnStatus ArgumentChecker::Present(const char* name, const aclTensor* tensor) const {
  if (tensor == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR,
                "%s: Expected a proper Tensor but got null for argument %s.", api, name);
  }
  if (!IsLiveTensor(tensor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: argument %s (%p) is not a live aclTensor; was it destroyed?", api, name,
                static_cast<const void*>(tensor));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus ArgumentChecker::OutputPointers(uint64_t* workspace_size,
                                            aclOpExecutor** executor) const {
  if (workspace_size == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize is nullptr.", api);
  }
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is nullptr.", api);
  return ACLNN_SUCCESS;
}

aclnnStatus ArgumentChecker::SupportedType(const char* name, const aclTensor* tensor) const {
  if (tensor == nullptr) return ACLNN_SUCCESS;
  FloatType type;
  const bool supported =
      ToFloatType(tensor->dtype, &type) && (type != FloatType::kBFloat16 || SocSupportsBf16());
  if (!supported) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "%s: %s has dtype %s (%d), which %s does not support; supported: DT_FLOAT, "
                "DT_FLOAT16%s.",
                api, name, DataTypeName(tensor->dtype), static_cast<int>(tensor->dtype), SocName(),
                SocSupportsBf16() ? ", DT_BF16" : "");
  }
  return ACLNN_SUCCESS;
}

aclnnStatus ArgumentChecker::SameType(const char* name, const aclTensor* tensor,
                                      const char* other_name, const aclTensor* other) const {
  if (tensor->dtype == other->dtype) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %s must equal %s dtype %s.", api, name,
              DataTypeName(tensor->dtype), other_name, DataTypeName(other->dtype));
}

aclnnStatus ArgumentChecker::Reduction(int64_t reduction) const {
  if (reduction >= 0 && reduction <= 2) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: reduction is %lld; Reduction only support [0, 1, 2] (0 none, 1 mean, 2 sum).",
              api, static_cast<long long>(reduction));
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

aclnnStatus ArgumentChecker::SingleElement(const char* name, const aclTensor* tensor) const {
  if (ElementCount(tensor->view_shape) == 1) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID,
              "%s: with reduction mean or sum, %s must hold exactly one element (shape [] or "
              "[1]), but its shape is %s.",
              api, name, ShapeString(tensor->view_shape).c_str());
}

aclnnStatus ArgumentChecker::SameFormat(const char* name, const aclTensor* tensor,
                                        const char* other_name, const aclTensor* other) const {
  if (tensor->format == other->format) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format %d must equal %s format %d.", api, name,
              static_cast<int>(tensor->format), other_name, static_cast<int>(other->format));
}

}  // namespace openaclnn
