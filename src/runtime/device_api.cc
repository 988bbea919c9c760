// aclrtSetDevice and the other device-level entry points.
#include <cstdio>

#include "acl/acl_rt.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/device_check.h"
#include "runtime/report.h"
#include "runtime/stream_impl.h"

namespace openaclnn {

aclError CheckDeviceId(const char* func, int64_t device) {
  const Backend& backend = ActiveBackend();
  if (!backend.unavailable_reason.empty()) {
    return ReportFailure(ACL_ERROR_RT_NO_DEVICE, kRuntimeParamError, "%s: no device. Reason: %s.",
                         func, backend.unavailable_reason.c_str());
  }
  if (device >= 0 && device < static_cast<int64_t>(DeviceCount())) return ACL_SUCCESS;
  const std::string reason = "valid device ids are 0.." + std::to_string(DeviceCount() - 1) + " (" +
                             backend.name + " backend)";
  return ReportInvalid(ACL_ERROR_RT_INVALID_DEVICEID, func, "deviceId", std::to_string(device),
                       reason.c_str());
}

namespace {

// Every stream of every context on `device`, default streams included.
std::vector<Stream*> StreamsOfDevice(int32_t device) {
  std::vector<Stream*> streams;
  std::lock_guard<std::mutex> lock(RuntimeMutex());
  for (Context* context : AllContexts()) {
    if (context->device != device) continue;
    streams.push_back(context->default_stream);
    streams.insert(streams.end(), context->streams.begin(), context->streams.end());
  }
  return streams;
}

}  // namespace
}  // namespace openaclnn

using namespace openaclnn;

extern "C" {

aclError aclrtSetDevice(int32_t deviceId) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckDeviceId(func, deviceId)) return status;
    if (DeviceError why = GetDevice(deviceId)->Bind()) {
      return ReportFailure(ACL_ERROR_RT_DEV_SETUP_ERROR, kRuntimeInnerError,
                           "%s: device %d could not be set up. Reason: %s.", func, deviceId, why);
    }
    SetCurrentContext(OpenDevice(deviceId));
    return ACL_SUCCESS;
  });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckDeviceId(func, deviceId)) return status;
    CloseDevice(deviceId, false);
    return ACL_SUCCESS;
  });
}

aclError aclrtResetDeviceForce(int32_t deviceId) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckDeviceId(func, deviceId)) return status;
    CloseDevice(deviceId, true);
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  return Guarded(__func__, [&](const char* func) {
    if (deviceId == nullptr) return ReportNull(func, "deviceId");
    Context* context = nullptr;
    if (const aclError status = RequireContext(func, &context)) return status;
    *deviceId = context->device;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  return Guarded(__func__, [&](const char* func) {
    if (count == nullptr) return ReportNull(func, "count");
    *count = DeviceCount();
    if (*count != 0) return ACL_SUCCESS;
    return CheckDeviceId(func, 0);  // records why there is no device
  });
}

aclError aclrtSynchronizeDevice(void) {
  return Guarded(__func__, [&](const char* func) {
    Context* context = nullptr;
    if (const aclError status = RequireContext(func, &context)) return status;
    // Every stream is waited for; the first failure any of them kept is reported.
    bool faulted = false;
    char fault[kFaultTextSize];
    for (Stream* stream : StreamsOfDevice(context->device)) {
      if (stream->OnWorkerThread()) {
        return ReportFailure(ACL_ERROR_INVALID_PARAM, kRuntimeParamError,
                             "%s: a stream callback cannot wait for its own device.", func);
      }
      stream->Synchronize(-1);
      char text[kFaultTextSize];
      if (stream->TakeFault(text) && !faulted) {
        faulted = true;
        std::snprintf(fault, sizeof fault, "%s", text);
      }
    }
    if (faulted) {
      return ReportFailure(ACL_ERROR_RT_AICORE_EXCEPTION, kRuntimeInnerError,
                           "%s: work on the device failed: %s", func, fault);
    }
    return ACL_SUCCESS;
  });
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  return Guarded(__func__, [&](const char* func) {
    if (runMode == nullptr) return ReportNull(func, "runMode");
    *runMode = ACL_HOST;  // the application runs on the host and drives the device
    return ACL_SUCCESS;
  });
}

aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  return Guarded(__func__, [&](const char* func) {
    if (canAccessPeer == nullptr) return ReportNull(func, "canAccessPeer");
    if (const aclError status = CheckDeviceId(func, deviceId)) return status;
    if (const aclError status = CheckDeviceId(func, peerDeviceId)) return status;
    // CPU devices share one address space; a device is not its own peer.
    *canAccessPeer = deviceId != peerDeviceId ? 1 : 0;
    return ACL_SUCCESS;
  });
}

aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value) {
  return Guarded(__func__, [&](const char* func) {
    if (value == nullptr) return ReportNull(func, "value");
    if (const aclError status = CheckDeviceId(func, deviceId)) return status;
    const Device* device = GetDevice(static_cast<int32_t>(deviceId));
    switch (EnumValue(deviceInfo)) {
      case ACL_DEVICE_INFO_AI_CORE_NUM:
      case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
        *value = device->ComputeUnits();
        return ACL_SUCCESS;
      case ACL_DEVICE_INFO_L2_SIZE:
        *value = device->CacheBytes();
        return ACL_SUCCESS;
      default:
        return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "deviceInfo",
                             std::to_string(EnumValue(deviceInfo)),
                             "must be ACL_DEVICE_INFO_AI_CORE_NUM, _VECTOR_CORE_NUM or _L2_SIZE");
    }
  });
}

}  // extern "C"
