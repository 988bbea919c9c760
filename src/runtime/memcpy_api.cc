// aclrtMemcpy / aclrtMemcpyAsync / aclrtMemcpy2d / aclrtMemset / aclrtMemsetAsync.
// The synchronous forms do not wait for stream work, exactly as on the device.
#include <cstring>

#include "acl/acl_rt.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/memory_registry.h"
#include "runtime/report.h"
#include "runtime/stream_impl.h"

namespace openaclnn {
namespace {

// The synchronous forms copy through the current context's device, else device 0 (on the CPU
// backend every address is a host address, so any device copies correctly), else plain host code.
Device* CopyEngine() {
  Context* context = CurrentContext();
  return GetDevice(context == nullptr ? 0 : context->device);
}

DeviceError CopyBytes(void* dst, const void* src, size_t count) {
  if (Device* engine = CopyEngine()) return engine->Copy(dst, src, count);
  std::memmove(dst, src, count);
  return nullptr;
}

DeviceError FillBytes(void* dst, unsigned char value, size_t count) {
  if (Device* engine = CopyEngine()) return engine->Fill(dst, value, count);
  std::memset(dst, value, count);
  return nullptr;
}

// The device's reason for a failed copy or fill, as the runtime's error.
aclError DeviceFailure(const char* func, DeviceError why) {
  if (why == nullptr) return ACL_SUCCESS;
  return ReportFailure(ACL_ERROR_RT_INTERNAL_ERROR, kRuntimeInnerError,
                       "%s: the device refused the operation: %s.", func, why);
}

aclError CheckKind(const char* func, const aclrtMemcpyKind& kind, int64_t last) {
  const int64_t value = EnumValue(kind);
  if (value >= ACL_MEMCPY_HOST_TO_HOST && value <= last) return ACL_SUCCESS;
  return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "kind", std::to_string(value),
                       "must be an aclrtMemcpyKind value");
}

// A copy or fill of `bytes` at `address` must end within the recorded block holding `address`
// (the runtime records every aclrtMalloc block; addresses it did not hand out go unchecked).
aclError CheckWithinBlock(const char* func, const char* pointer_name, const void* address,
                          const char* count_name, size_t bytes) {
  BlockPosition block;
  if (bytes == 0 || !FindBlock(address, &block) || bytes <= block.bytes - block.offset) {
    return ACL_SUCCESS;
  }
  const std::string reason =
      std::string(pointer_name) + " lies " + std::to_string(block.offset) + " bytes into a " +
      std::to_string(block.bytes) + "-byte block from aclrtMalloc, so the access would run " +
      std::to_string(bytes - (block.bytes - block.offset)) + " bytes past its end";
  return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, count_name, std::to_string(bytes),
                       reason.c_str());
}

// Bytes from the first row's start to the last row's end; SIZE_MAX when that overflows.
size_t Span2d(size_t pitch, size_t width, size_t height) {
  size_t span;
  if (height == 0 || width == 0) return 0;
  if (__builtin_mul_overflow(height - 1, pitch, &span) ||
      __builtin_add_overflow(span, width, &span)) {
    return SIZE_MAX;
  }
  return span;
}

aclError CheckFits(const char* func, const char* count_name, size_t count, const char* max_name,
                   size_t max) {
  if (count <= max) return ACL_SUCCESS;
  const std::string reason = std::string("it exceeds ") + max_name + " (" + std::to_string(max) +
                             "), the capacity of the destination";
  return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, count_name, std::to_string(count),
                       reason.c_str());
}

// Validation shared by aclrtMemcpy and aclrtMemcpyAsync, in CANN's order.
aclError CheckCopy(const char* func, void* dst, size_t destMax, const void* src, size_t count,
                   const aclrtMemcpyKind& kind) {
  if (dst == nullptr) return ReportNull(func, "dst");
  if (src == nullptr) return ReportNull(func, "src");
  if (const aclError status = CheckKind(func, kind, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)) {
    return status;
  }
  if (const aclError status = CheckFits(func, "count", count, "destMax", destMax)) return status;
  if (const aclError status = CheckWithinBlock(func, "dst", dst, "count", count)) return status;
  return CheckWithinBlock(func, "src", src, "count", count);
}

aclError CheckFill(const char* func, void* devPtr, size_t maxCount, size_t count) {
  if (devPtr == nullptr) return ReportNull(func, "devPtr");
  if (const aclError status = CheckFits(func, "count", count, "maxCount", maxCount)) return status;
  return CheckWithinBlock(func, "devPtr", devPtr, "count", count);
}

aclError Check2d(const char* func, void* dst, size_t dpitch, const void* src, size_t spitch,
                 size_t width, size_t height, const aclrtMemcpyKind& kind) {
  if (dst == nullptr) return ReportNull(func, "dst");
  if (src == nullptr) return ReportNull(func, "src");
  if (const aclError status = CheckKind(func, kind, ACL_MEMCPY_DEFAULT)) return status;
  if (const aclError status = CheckFits(func, "width", width, "dpitch", dpitch)) return status;
  if (width > spitch) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "width", std::to_string(width),
                         "it exceeds spitch, the row pitch of the source");
  }
  const size_t dst_span = Span2d(dpitch, width, height);
  if (const aclError status = CheckWithinBlock(func, "dst", dst, "height", dst_span)) {
    return status;
  }
  return CheckWithinBlock(func, "src", src, "height", Span2d(spitch, width, height));
}

}  // namespace
}  // namespace openaclnn

using namespace openaclnn;

extern "C" {

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckCopy(func, dst, destMax, src, count, kind)) return status;
    return count == 0 ? ACL_SUCCESS : DeviceFailure(func, CopyBytes(dst, src, count));
  });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckCopy(func, dst, destMax, src, count, kind)) return status;
    Stream* queue = nullptr;
    if (const aclError status = ResolveStream(func, stream, &queue)) return status;
    return count == 0 ? ACL_SUCCESS : DeviceFailure(func, CopyAsync(queue, dst, src, count));
  });
}

aclError aclrtMemcpy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                       size_t height, aclrtMemcpyKind kind) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = Check2d(func, dst, dpitch, src, spitch, width, height, kind)) {
      return status;
    }
    for (size_t row = 0; row < height && width != 0; ++row) {
      const DeviceError why = CopyBytes(static_cast<char*>(dst) + row * dpitch,
                                        static_cast<const char*>(src) + row * spitch, width);
      if (why != nullptr) return DeviceFailure(func, why);
    }
    return ACL_SUCCESS;
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckFill(func, devPtr, maxCount, count)) return status;
    if (count == 0) return ACL_SUCCESS;
    return DeviceFailure(func, FillBytes(devPtr, static_cast<unsigned char>(value), count));
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckFill(func, devPtr, maxCount, count)) return status;
    Stream* queue = nullptr;
    if (const aclError status = ResolveStream(func, stream, &queue)) return status;
    if (count == 0) return ACL_SUCCESS;
    return DeviceFailure(func, FillAsync(queue, devPtr, static_cast<unsigned char>(value), count));
  });
}

}  // extern "C"
