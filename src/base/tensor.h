// aclTensor: a strided view (shape, element strides, element offset) over a storage block.
#pragma once

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
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  void* data = nullptr;  // start of the storage block
};

namespace openaclnn {

// Rows in CANN's messages are printed as "[5,2,5]".
std::string ShapeString(const std::vector<int64_t>& shape);
// Product of the dimensions (1 for rank 0); -1 if it does not fit in int64.
int64_t ElementCount(const std::vector<int64_t>& shape);

bool IsLiveTensor(const aclTensor* tensor);

// Why the view cannot be read safely ("" when it can): negative strides or offset, or an element
// outside the storage shape.
std::string ViewProblem(const aclTensor& tensor);

}  // namespace openaclnn
