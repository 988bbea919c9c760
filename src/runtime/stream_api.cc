// The aclrt*Stream* entry points and aclrtLaunchCallback.
#include <algorithm>

#include "acl/acl_rt.h"
#include "runtime/context.h"
#include "runtime/report.h"
#include "runtime/stream_impl.h"

namespace openaclnn {
namespace {

constexpr uint32_t kKnownStreamFlags = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC |
                                       ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |
                                       ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;

aclError NewStream(const char* func, aclrtStream* handle, uint32_t flag) {
  if (handle == nullptr) return ReportNull(func, "stream");
  if ((flag & ~kKnownStreamFlags) != 0) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "flag", std::to_string(flag),
                         "only ACL_STREAM_* bits (0x3F) are defined");
  }
  Context* context = nullptr;
  if (const aclError status = RequireContext(func, &context)) return status;
  Stream* stream = CreateStream(context, false);
  {
    std::lock_guard<std::mutex> lock(RuntimeMutex());
    context->streams.push_back(stream);
  }
  *handle = stream->handle;
  return ACL_SUCCESS;
}

// Checks that `handle` is a user stream that the calling thread may destroy, and unregisters it.
aclError DetachStream(const char* func, aclrtStream handle, Stream** out) {
  if (handle == nullptr) return ReportNull(func, "stream");
  Stream* stream = LookupStream(handle);
  if (stream != nullptr && stream->is_default()) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "stream", PointerText(handle),
                         "a default stream is released with its context (aclrtResetDevice or "
                         "aclrtDestroyContext), not destroyed directly");
  }
  if (stream != nullptr && stream->OnWorkerThread()) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "stream", PointerText(handle),
                         "a stream cannot be destroyed from a callback running on it");
  }
  if (stream == nullptr || !UnregisterStream(stream)) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "stream", PointerText(handle),
                         "it is not a live stream (never created, or already destroyed)");
  }
  std::lock_guard<std::mutex> lock(RuntimeMutex());
  auto& streams = stream->context()->streams;
  streams.erase(std::remove(streams.begin(), streams.end(), stream), streams.end());
  *out = stream;
  return ACL_SUCCESS;
}

aclError SynchronizeWithin(const char* func, aclrtStream handle, int64_t timeout_ms) {
  Stream* stream = nullptr;
  if (const aclError status = ResolveStream(func, handle, &stream)) return status;
  if (stream->OnWorkerThread()) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "stream", PointerText(handle),
                         "a callback cannot wait for the stream it runs on (it would wait for "
                         "itself)");
  }
  if (stream->Synchronize(timeout_ms)) {
    char fault[kFaultTextSize];
    if (!stream->TakeFault(fault)) return ACL_SUCCESS;
    return ReportFailure(ACL_ERROR_RT_AICORE_EXCEPTION, kRuntimeInnerError,
                         "%s: work on stream %s failed: %s", func, PointerText(handle).c_str(),
                         fault);
  }
  return ReportFailure(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, kRuntimeParamError,
                       "%s: stream %s did not finish its work within %lld ms.", func,
                       PointerText(handle).c_str(), static_cast<long long>(timeout_ms));
}

}  // namespace
}  // namespace openaclnn

using namespace openaclnn;

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  return Guarded(__func__, [&](const char* func) { return NewStream(func, stream, 0); });
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  (void)priority;  // one worker per stream: there is nothing to prioritise against
  return Guarded(__func__, [&](const char* func) { return NewStream(func, stream, flag); });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return Guarded(__func__, [&](const char* func) {
    Stream* doomed = nullptr;
    if (const aclError status = DetachStream(func, stream, &doomed)) return status;
    doomed->Drain();  // queued work still runs, as on the device
    delete doomed;
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyStreamForce(aclrtStream stream) {
  return Guarded(__func__, [&](const char* func) {
    Stream* doomed = nullptr;
    if (const aclError status = DetachStream(func, stream, &doomed)) return status;
    // Queued work is dropped; only a task already running is waited for.
    const auto forever = std::chrono::steady_clock::now() + std::chrono::hours(24 * 365);
    if (doomed->Abandon(forever)) delete doomed;
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return Guarded(__func__, [&](const char* func) { return SynchronizeWithin(func, stream, -1); });
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  return Guarded(__func__, [&](const char* func) {
    if (timeout < -1) {
      return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "timeout", std::to_string(timeout),
                           "must be -1 (wait forever) or a number of milliseconds >= 0");
    }
    return SynchronizeWithin(func, stream, timeout);
  });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  return Guarded(__func__, [&](const char* func) {
    if (status == nullptr) return ReportNull(func, "status");
    Stream* target = nullptr;
    if (const aclError code = ResolveStream(func, stream, &target)) return code;
    *status = target->Idle() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
  return Guarded(__func__, [&](const char* func) {
    if (fn == nullptr) return ReportNull(func, "fn");
    if (EnumValue(blockType) != ACL_CALLBACK_NO_BLOCK &&
        EnumValue(blockType) != ACL_CALLBACK_BLOCK) {
      return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "blockType",
                           std::to_string(EnumValue(blockType)),
                           "must be ACL_CALLBACK_NO_BLOCK (0) or ACL_CALLBACK_BLOCK (1)");
    }
    Stream* target = nullptr;
    if (const aclError status = ResolveStream(func, stream, &target)) return status;
    // Both block types run the callback in stream order; for NO_BLOCK that is a stronger
    // ordering than required, which no correct program can observe as wrong.
    const DeviceError why = CallbackAsync(target, fn, userData);
    if (why == nullptr) return ACL_SUCCESS;
    return ReportFailure(ACL_ERROR_RT_INTERNAL_ERROR, kRuntimeInnerError,
                         "%s: the device refused the callback: %s.", func, why);
  });
}

}  // extern "C"
