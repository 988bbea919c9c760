// Element sizes by the raw aclDataType integer (a C caller may pass any int).
#pragma once

#include <cstddef>
#include <cstdint>

namespace openaclnn {

// aclDataTypeSize's answer for `dtype`, read as the integer the caller passed.
size_t DataTypeBytes(int64_t dtype);

}  // namespace openaclnn
