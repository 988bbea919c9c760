// aclTensor queries and the raw storage address: aclGetViewShape & co.
#include "base/tensor_api.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"

// aclGetFormat and aclGetDataType hand back the stored integer bytewise.
static_assert(sizeof(aclFormat) == sizeof(int32_t) && sizeof(aclDataType) == sizeof(int32_t));

namespace openaclnn {
namespace {

thread_local int failing_dims_allocations = 0;

// 161001 for a null tensor, 161002 for a pointer that names no live aclTensor.
aclnnStatus CheckTensor(const char* api, const aclTensor* tensor) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: tensor is nullptr.", api);
  if (!IsLiveTensor(tensor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live aclTensor (destroyed?).", api,
                static_cast<const void*>(tensor));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckOut(const char* api, const char* name, const void* out) {
  if (out == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is nullptr.", api, name);
  return ACLNN_SUCCESS;
}

// Hands `dims` out as a new int64_t[] the caller delete[]s. A rank-0 tensor still gets a
// valid (one-element) array, with a count of 0.
aclnnStatus CopyDims(const char* api, const std::vector<int64_t>& dims, int64_t** out,
                     uint64_t* count) {
  int64_t* copy = nullptr;
  if (failing_dims_allocations > 0) {
    --failing_dims_allocations;
  } else {
    copy = new (std::nothrow) int64_t[std::max<size_t>(dims.size(), 1)];
  }
  if (copy == nullptr) {
    return Fail(ACLNN_ERR_INNER_NULLPTR, "%s: cannot allocate %zu dimensions.", api, dims.size());
  }
  copy[0] = 0;
  std::copy(dims.begin(), dims.end(), copy);
  *out = copy;
  *count = dims.size();
  return ACLNN_SUCCESS;
}

aclnnStatus GetDims(const char* api, const char* out_name, const char* count_name,
                    const aclTensor* tensor, std::vector<int64_t> aclTensor::*member, int64_t** out,
                    uint64_t* count) {
  if (aclnnStatus status = CheckTensor(api, tensor)) return status;
  if (aclnnStatus status = CheckOut(api, out_name, out)) return status;
  if (aclnnStatus status = CheckOut(api, count_name, count)) return status;
  return CopyDims(api, tensor->*member, out, count);
}

}  // namespace

void FailDimsAllocationsForTesting(int count) { failing_dims_allocations = count; }

}  // namespace openaclnn

using openaclnn::CheckOut;
using openaclnn::CheckTensor;
using openaclnn::GetDims;

extern "C" {

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return GetDims("aclGetViewShape", "viewDims", "viewDimsNum", tensor, &aclTensor::view_shape,
                 viewDims, viewDimsNum);
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum) {
  return GetDims("aclGetStorageShape", "storageDims", "storageDimsNum", tensor,
                 &aclTensor::storage_shape, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum) {
  return GetDims("aclGetViewStrides", "stridesValue", "stridesNum", tensor, &aclTensor::strides,
                 stridesValue, stridesNum);
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (aclnnStatus status = CheckTensor("aclGetViewOffset", tensor)) return status;
  if (aclnnStatus status = CheckOut("aclGetViewOffset", "offset", offset)) return status;
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (aclnnStatus status = CheckTensor("aclGetFormat", tensor)) return status;
  if (aclnnStatus status = CheckOut("aclGetFormat", "format", format)) return status;
  std::memcpy(format, &tensor->format, sizeof(tensor->format));  // the caller's integer, as is
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (aclnnStatus status = CheckTensor("aclGetDataType", tensor)) return status;
  if (aclnnStatus status = CheckOut("aclGetDataType", "dataType", dataType)) return status;
  std::memcpy(dataType, &tensor->dtype, sizeof(tensor->dtype));
  return ACLNN_SUCCESS;
}

aclnnStatus aclSetRawTensorAddr(aclTensor* tensor, void* addr) {
  if (aclnnStatus status = CheckTensor("aclSetRawTensorAddr", tensor)) return status;
  tensor->data = addr;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  if (aclnnStatus status = CheckTensor("aclGetRawTensorAddr", tensor)) return status;
  if (aclnnStatus status = CheckOut("aclGetRawTensorAddr", "addr", addr)) return status;
  *addr = tensor->data;
  return ACLNN_SUCCESS;
}

}  // extern "C"
