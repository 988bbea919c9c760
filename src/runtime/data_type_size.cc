// aclDataTypeSize, with CANN's table (data_buffer.cpp): sub-byte types report 1 and anything the
// table does not list (including the 6- and 4-bit float types) reports 8.
#include "runtime/data_type_size.h"

#include "acl/acl_base.h"
#include "runtime/report.h"

size_t openaclnn::DataTypeBytes(int64_t dtype) {
  switch (dtype) {
    case ACL_STRING:
    case ACL_DT_UNDEFINED:
      return 0;
    case ACL_UINT1:
    case ACL_INT4:
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
      return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
      return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
      return 4;
    case ACL_COMPLEX128:
      return 16;
    default:  // INT64, UINT64, DOUBLE, COMPLEX64 and everything unlisted
      return 8;
  }
}

extern "C" size_t aclDataTypeSize(aclDataType dataType) {
  return openaclnn::DataTypeBytes(openaclnn::EnumValue(dataType));
}
