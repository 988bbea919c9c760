/* Calls the API the way a C program may: with any int for an enum parameter (C allows it, C++
 * code reading such a value as its enum type would be undefined behaviour). */
#include <string.h>

#include "aclnn/acl_meta.h"

aclTensor* CreateTensorWithRawEnums(const int64_t* shape, uint64_t rank, int dtype, int format,
                                    void* data) {
  return aclCreateTensor(shape, rank, (aclDataType)dtype, NULL, 0, (aclFormat)format, shape, rank,
                         data);
}

int RawDataType(const aclTensor* tensor) {
  aclDataType dtype = ACL_DT_UNDEFINED;
  int raw = 0;
  aclGetDataType(tensor, &dtype);
  memcpy(&raw, &dtype, sizeof(raw));
  return raw;
}

int RawFormat(const aclTensor* tensor) {
  aclFormat format = ACL_FORMAT_UNDEFINED;
  int raw = 0;
  aclGetFormat(tensor, &format);
  memcpy(&raw, &format, sizeof(raw));
  return raw;
}
