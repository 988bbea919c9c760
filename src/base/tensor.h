// aclTensor: a strided view (shape, element strides, element offset) over a storage block.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"

// The opaque type of the C API, defined here for the library only.
struct aclTensor {
  std::vector<int64_t> view_shape;
  std::vector<int64_t> strides;  // in elements, one per view dimension
  int64_t offset = 0;            // in elements, from `data` to the first view element
  std::vector<int64_t> storage_shape;
  // The integers the caller passed: a C caller may pass any int for an enum, and reading an
  // out-of-range value as the enum type would be undefined behaviour. Ops reject unknown ones.
  int32_t dtype = ACL_DT_UNDEFINED;
  int32_t format = ACL_FORMAT_ND;
  void* data = nullptr;  // start of the storage block

  // One reference for the user (until aclDestroyTensor) and one per executor naming the tensor:
  // an executor can then tell that its tensor was destroyed without reading freed memory, and a
  // new tensor cannot take a destroyed one's address while an executor still knows it.
  std::atomic<int> references{1};
  std::atomic<bool> destroyed{false};
};

namespace openaclnn {

// Rows in CANN's messages are printed as "[5,2,5]".
std::string ShapeString(const std::vector<int64_t>& shape);
// Product of the dimensions (1 for rank 0); -1 if it does not fit in int64.
int64_t ElementCount(const std::vector<int64_t>& shape);

bool IsLiveTensor(const aclTensor* tensor);

// True when `format` (as the caller passed it) is one of aclFormat's values.
bool IsAclFormat(int64_t format);

// An executor's hold on a tensor it names (see aclTensor::references).
void RetainTensor(aclTensor* tensor);
void ReleaseTensor(aclTensor* tensor);

// Sets the storage address of `tensor` if it is a live aclTensor, atomically with respect to
// aclDestroyTensor; false (nothing written) otherwise.
bool SetDataIfLive(aclTensor* tensor, void* data);

// Why the view cannot be read safely ("" when it can): negative strides or offset, an element
// outside the storage shape, or a byte address that does not fit in int64.
std::string ViewProblem(const aclTensor& tensor);

}  // namespace openaclnn
