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
