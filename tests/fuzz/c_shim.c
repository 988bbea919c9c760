/* The fuzzer passes dtypes and formats as a C program may: any int. Converting such an int to
 * the C++ enum type in the fuzzer itself would be the undefined behaviour it hunts for. */
#include "aclnn/acl_meta.h"

aclTensor* FuzzCreateTensor(const int64_t* view, uint64_t rank, int dtype, const int64_t* strides,
                            int64_t offset, int format, const int64_t* storage,
                            uint64_t storage_rank, void* data) {
  return aclCreateTensor(view, rank, (aclDataType)dtype, strides, offset, (aclFormat)format,
                         storage, storage_rank, data);
}
