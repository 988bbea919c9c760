// The aclnn value handles other than aclTensor: scalars, host arrays and lists. Ops read these
// definitions; only the C API in scalar.cc, arrays.cc and lists.cc creates and destroys them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"

// One host value of `dtype`, copied at creation in the dtype's own layout (fp16/bf16 as their
// bits, complex as {real, imaginary}), zero padded to 16 bytes.
struct aclScalar {
  int32_t dtype = ACL_DT_UNDEFINED;  // one ScalarValueSize accepts
  alignas(16) unsigned char bytes[16] = {};
};

struct aclIntArray {
  std::vector<int64_t> values;
};

struct aclFloatArray {
  std::vector<float> values;
};

// Stored as bytes (0 or 1) rather than std::vector<bool> so readers can take a pointer.
struct aclBoolArray {
  std::vector<uint8_t> values;
};

// The list owns its elements; an element may be nullptr.
struct aclTensorList {
  std::vector<aclTensor*> tensors;
};

struct aclScalarList {
  std::vector<aclScalar*> scalars;
};

namespace openaclnn {

// Bytes aclCreateScalar copies for `dtype` (sub-byte types take one byte); 0 for dtypes that
// have no fixed-size host value (ACL_STRING, ACL_DT_UNDEFINED, values outside the enum).
size_t ScalarValueSize(int64_t dtype);

// The scalar's value converted to double (the real part of a complex value; fp8/fp6/fp4
// formats are not decoded and read as NaN).
double ScalarToDouble(const aclScalar& scalar);
// The scalar's value converted to int64 (floating values truncated toward zero, saturated).
int64_t ScalarToInt64(const aclScalar& scalar);

bool IsLiveScalar(const aclScalar* scalar);
bool IsLiveIntArray(const aclIntArray* array);
bool IsLiveFloatArray(const aclFloatArray* array);
bool IsLiveBoolArray(const aclBoolArray* array);
bool IsLiveTensorList(const aclTensorList* list);
bool IsLiveScalarList(const aclScalarList* list);

}  // namespace openaclnn
