// aclrtCreateContext / aclrtDestroyContext / aclrtSetCurrentContext / aclrtGetCurrentContext.
#include "acl/acl_rt.h"
#include "runtime/context.h"
#include "runtime/device_check.h"
#include "runtime/report.h"
#include "runtime/stream_impl.h"

namespace openaclnn {
namespace {

aclError ResolveContext(const char* func, aclrtContext handle, Context** context) {
  if (handle == nullptr) return ReportNull(func, "context");
  *context = FindContext(handle);
  if (*context != nullptr) return ACL_SUCCESS;
  return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "context", PointerText(handle),
                       "it is not a live context (never created, or already destroyed)");
}

// True when the calling thread is a worker of one of `context`'s streams (it would join itself).
bool RunsOnContext(Context* context) {
  std::lock_guard<std::mutex> lock(RuntimeMutex());
  if (context->default_stream->OnWorkerThread()) return true;
  for (Stream* stream : context->streams) {
    if (stream->OnWorkerThread()) return true;
  }
  return false;
}

}  // namespace
}  // namespace openaclnn

using namespace openaclnn;

extern "C" {

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  return Guarded(__func__, [&](const char* func) {
    if (context == nullptr) return ReportNull(func, "context");
    if (const aclError status = CheckDeviceId(func, deviceId)) return status;
    Context* created = CreateContext(deviceId, false);
    SetCurrentContext(created);  // as in CANN, the new context becomes the thread's current one
    *context = created->handle;
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  return Guarded(__func__, [&](const char* func) {
    Context* target = nullptr;
    if (const aclError status = ResolveContext(func, context, &target)) return status;
    if (target->is_primary) {
      return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "context", PointerText(context),
                           "a device's default context is released by aclrtResetDevice");
    }
    if (RunsOnContext(target)) {
      return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "context", PointerText(context),
                           "a context cannot be destroyed from a callback on one of its streams");
    }
    DestroyContext(target);  // a thread still naming it as current now has no context
    return ACL_SUCCESS;
  });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  return Guarded(__func__, [&](const char* func) {
    Context* target = nullptr;
    if (const aclError status = ResolveContext(func, context, &target)) return status;
    SetCurrentContext(target);
    return ACL_SUCCESS;
  });
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  return Guarded(__func__, [&](const char* func) {
    if (context == nullptr) return ReportNull(func, "context");
    Context* current = nullptr;
    if (const aclError status = RequireContext(func, &current)) return status;
    *context = current->handle;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
