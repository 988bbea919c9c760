// aclScalar: one host value of any fixed-size aclDataType, copied at creation.
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include "base/containers.h"
#include "base/dtype.h"
#include "base/object_registry.h"
#include "base/status.h"
#include "runtime/report.h"

namespace openaclnn {
namespace {

ObjectRegistry<aclScalar>& Scalars() {
  static auto* registry = new ObjectRegistry<aclScalar>;  // never destroyed: used at exit too
  return *registry;
}

template <class T>
T Read(const aclScalar& scalar) {
  T value;
  std::memcpy(&value, scalar.bytes, sizeof(T));
  return value;
}

}  // namespace

size_t ScalarValueSize(int64_t dtype) {
  switch (dtype) {
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
      return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:  // ACL_STRING, ACL_DT_UNDEFINED and values outside the enum
      return 0;
  }
}

double ScalarToDouble(const aclScalar& scalar) {
  switch (scalar.dtype) {
    case ACL_FLOAT:
    case ACL_COMPLEX64:
      return Read<float>(scalar);
    case ACL_DOUBLE:
    case ACL_COMPLEX128:
      return Read<double>(scalar);
    case ACL_FLOAT16:
    case ACL_COMPLEX32:
      return Float16ToFloat(Read<uint16_t>(scalar));
    case ACL_BF16:
      return BFloat16ToFloat(Read<uint16_t>(scalar));
    case ACL_INT8:
      return Read<int8_t>(scalar);
    case ACL_UINT8:
      return Read<uint8_t>(scalar);
    case ACL_INT16:
      return Read<int16_t>(scalar);
    case ACL_UINT16:
      return Read<uint16_t>(scalar);
    case ACL_INT32:
      return Read<int32_t>(scalar);
    case ACL_UINT32:
      return Read<uint32_t>(scalar);
    case ACL_INT64:
      return static_cast<double>(Read<int64_t>(scalar));
    case ACL_UINT64:
      return static_cast<double>(Read<uint64_t>(scalar));
    case ACL_BOOL:
      return Read<uint8_t>(scalar) != 0 ? 1.0 : 0.0;
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

int64_t ScalarToInt64(const aclScalar& scalar) {
  switch (scalar.dtype) {
    case ACL_INT8:
      return Read<int8_t>(scalar);
    case ACL_UINT8:
      return Read<uint8_t>(scalar);
    case ACL_INT16:
      return Read<int16_t>(scalar);
    case ACL_UINT16:
      return Read<uint16_t>(scalar);
    case ACL_INT32:
      return Read<int32_t>(scalar);
    case ACL_UINT32:
      return Read<uint32_t>(scalar);
    case ACL_INT64:
      return Read<int64_t>(scalar);
    case ACL_UINT64: {
      const uint64_t value = Read<uint64_t>(scalar);
      constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      return value > kMax ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(value);
    }
    case ACL_BOOL:
      return Read<uint8_t>(scalar) != 0 ? 1 : 0;
    default: {
      const double value = ScalarToDouble(scalar);
      if (std::isnan(value)) return 0;
      // 2^63 is exactly representable; anything at or beyond it saturates.
      if (value >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
      if (value <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(value);
    }
  }
}

bool IsLiveScalar(const aclScalar* scalar) { return Scalars().Contains(scalar); }

}  // namespace openaclnn

using openaclnn::Fail;

extern "C" {

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  if (value == nullptr) {
    Fail(ACLNN_ERR_PARAM_NULLPTR, "aclCreateScalar: value is nullptr.");
    return nullptr;
  }
  const auto dtype = static_cast<int32_t>(openaclnn::EnumValue(dataType));
  const size_t size = openaclnn::ScalarValueSize(dtype);
  if (size == 0) {
    Fail(ACLNN_ERR_PARAM_INVALID, "aclCreateScalar: data type %s (%d) has no scalar value.",
         openaclnn::DataTypeName(dtype), static_cast<int>(dtype));
    return nullptr;
  }
  auto* scalar = new (std::nothrow) aclScalar;
  if (scalar == nullptr) return nullptr;
  scalar->dtype = dtype;
  std::memcpy(scalar->bytes, value, size);
  if (!openaclnn::Scalars().Add(scalar)) {
    delete scalar;
    return nullptr;
  }
  return scalar;
}

aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  if (scalar == nullptr) return ACLNN_SUCCESS;
  if (!openaclnn::Scalars().Remove(scalar)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "aclDestroyScalar: %p is not a live aclScalar (destroyed twice?).",
                static_cast<const void*>(scalar));
  }
  delete scalar;
  return ACLNN_SUCCESS;
}

}  // extern "C"
