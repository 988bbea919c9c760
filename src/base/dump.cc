// aclDumpOpTensors: logs the shapes and data types of an operator's tensors.
#include <string>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "runtime/log.h"

namespace openaclnn {
namespace {

constexpr const char* kApi = "aclDumpOpTensors";

// May throw std::bad_alloc (ShapeString); the caller catches.
void LogTensors(const char* op_type, const char* op_name, aclTensor* const* tensors, size_t inputs,
                size_t total) {
  Log(LogLevel::kInfo, "%s: op %s %s: %zu input(s), %zu output(s).", kApi, op_type,
      op_name != nullptr ? op_name : "", inputs, total - inputs);
  for (size_t i = 0; i < total; ++i) {
    const char* role = i < inputs ? "input" : "output";
    const size_t index = i < inputs ? i : i - inputs;
    const aclTensor* tensor = tensors[i];
    if (tensor == nullptr) {
      Log(LogLevel::kInfo, "%s: %s %s %zu: null.", kApi, op_type, role, index);
      continue;
    }
    Log(LogLevel::kInfo,
        "%s: %s %s %zu: shape %s, dtype %s, strides %s, offset %lld, storage shape %s, format "
        "%d, address %p.",
        kApi, op_type, role, index, ShapeString(tensor->view_shape).c_str(),
        DataTypeName(tensor->dtype), ShapeString(tensor->strides).c_str(),
        static_cast<long long>(tensor->offset), ShapeString(tensor->storage_shape).c_str(),
        static_cast<int>(tensor->format), tensor->data);
  }
}

}  // namespace
}  // namespace openaclnn

extern "C" {

aclnnStatus aclDumpOpTensors(const char* opType, const char* opName, aclTensor** tensors,
                             size_t inputTensorNum, size_t outputTensorNum,
                             aclrtStream /*stream*/) {
  using openaclnn::Fail;
  using openaclnn::kApi;
  if (opType == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: opType is nullptr.", kApi);
  size_t total = 0;
  if (__builtin_add_overflow(inputTensorNum, outputTensorNum, &total)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: inputTensorNum %zu + outputTensorNum %zu overflows.",
                kApi, inputTensorNum, outputTensorNum);
  }
  if (tensors == nullptr && total > 0) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: tensors is nullptr but %zu tensors are expected.",
                kApi, total);
  }
  for (size_t i = 0; i < total; ++i) {
    if (tensors[i] != nullptr && !openaclnn::IsLiveTensor(tensors[i])) {
      return Fail(ACLNN_ERR_PARAM_INVALID, "%s: tensors[%zu] (%p) is not a live aclTensor.", kApi,
                  i, static_cast<const void*>(tensors[i]));
    }
  }
  if (!openaclnn::LogEnabled(openaclnn::LogLevel::kInfo)) return ACLNN_SUCCESS;
  try {
    openaclnn::LogTensors(opType, opName, tensors, inputTensorNum, total);
  } catch (...) {  // nothing may escape into C
    return Fail(ACLNN_ERR_INNER, "%s: out of memory while formatting the dump.", kApi);
  }
  return ACLNN_SUCCESS;
}

}  // extern "C"
