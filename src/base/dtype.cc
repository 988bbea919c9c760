#include "base/dtype.h"

namespace openaclnn {

bool ToFloatType(int64_t dtype, FloatType* type) {
  switch (dtype) {
    case ACL_FLOAT:
      *type = FloatType::kFloat32;
      return true;
    case ACL_FLOAT16:
      *type = FloatType::kFloat16;
      return true;
    case ACL_BF16:
      *type = FloatType::kBFloat16;
      return true;
    default:
      return false;
  }
}

bool ToIntegerType(int64_t dtype, IntegerType* type) {
  switch (dtype) {
    case ACL_INT64:
      *type = IntegerType::kInt64;
      return true;
    case ACL_INT32:
      *type = IntegerType::kInt32;
      return true;
    case ACL_INT16:
      *type = IntegerType::kInt16;
      return true;
    case ACL_INT8:
      *type = IntegerType::kInt8;
      return true;
    case ACL_UINT8:
      *type = IntegerType::kUInt8;
      return true;
    case ACL_BOOL:
      *type = IntegerType::kBool;
      return true;
    default:
      return false;
  }
}

const char* DataTypeName(int64_t dtype) {
  switch (dtype) {
    case ACL_DT_UNDEFINED:
      return "DT_UNDEFINED";
    case ACL_FLOAT:
      return "DT_FLOAT";
    case ACL_FLOAT16:
      return "DT_FLOAT16";
    case ACL_INT8:
      return "DT_INT8";
    case ACL_INT32:
      return "DT_INT32";
    case ACL_UINT8:
      return "DT_UINT8";
    case ACL_INT16:
      return "DT_INT16";
    case ACL_UINT16:
      return "DT_UINT16";
    case ACL_UINT32:
      return "DT_UINT32";
    case ACL_INT64:
      return "DT_INT64";
    case ACL_UINT64:
      return "DT_UINT64";
    case ACL_DOUBLE:
      return "DT_DOUBLE";
    case ACL_BOOL:
      return "DT_BOOL";
    case ACL_STRING:
      return "DT_STRING";
    case ACL_COMPLEX64:
      return "DT_COMPLEX64";
    case ACL_COMPLEX128:
      return "DT_COMPLEX128";
    case ACL_BF16:
      return "DT_BF16";
    default:
      return "DT_UNKNOWN";
  }
}

}  // namespace openaclnn
