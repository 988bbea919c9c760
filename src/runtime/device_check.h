// Validation of device ids, shared by the device, context and capability entry points.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace openaclnn {

// ACL_ERROR_RT_NO_DEVICE when the backend has no devices, ACL_ERROR_RT_INVALID_DEVICEID when
// `device` is out of range; both recorded with a message naming `func`.
aclError CheckDeviceId(const char* func, int64_t device);

}  // namespace openaclnn
