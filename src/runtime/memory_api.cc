// aclrtMalloc / aclrtMallocHost / aclrtFree / aclrtFreeHost / aclrtGetMemInfo.
#include "acl/acl_rt.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/host_memory.h"
#include "runtime/memory_registry.h"
#include "runtime/report.h"

namespace openaclnn {
namespace {

// CANN rounds every block up to 32 bytes.
constexpr size_t kSizeGranule = 32;
// Larger requests cannot be rounded without overflowing (and could never be satisfied anyway).
constexpr size_t kMaxBlockBytes = size_t{1} << 62;

PagePolicy ToPagePolicy(const aclrtMemMallocPolicy& policy) {
  // The low byte selects the policy; the bits above are bandwidth/access flags. Values outside the
  // enum fall back to the default, as in CANN.
  switch (EnumValue(policy) & 0xFF) {
    case ACL_MEM_MALLOC_HUGE_ONLY:
    case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
    case ACL_MEM_MALLOC_HUGE1G_ONLY:
    case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P:
      return PagePolicy::kHugeOnly;
    case ACL_MEM_MALLOC_NORMAL_ONLY:
    case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
      return PagePolicy::kNormalOnly;
    default:
      return PagePolicy::kHugeFirst;
  }
}

aclError CheckSize(const char* func, size_t size) {
  if (size == 0) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "size", "0",
                         "size must be greater than zero");
  }
  if (size > kMaxBlockBytes) {
    return ReportInvalid(ACL_ERROR_RT_MEMORY_ALLOCATION, func, "size", std::to_string(size),
                         "no system can provide a block that large");
  }
  return ACL_SUCCESS;
}

size_t RoundUp(size_t size) { return (size + kSizeGranule - 1) / kSizeGranule * kSizeGranule; }

aclError OutOfMemory(const char* func, size_t size) {
  return ReportInvalid(ACL_ERROR_RT_MEMORY_ALLOCATION, func, "size", std::to_string(size),
                       "out of memory");
}

aclError MallocDevice(const char* func, void** devPtr, size_t size,
                      const aclrtMemMallocPolicy& policy) {
  if (devPtr == nullptr) return ReportNull(func, "devPtr");
  if (const aclError status = CheckSize(func, size)) return status;
  Context* context = nullptr;
  if (const aclError status = RequireContext(func, &context)) return status;
  Device* device = GetDevice(context->device);
  const size_t bytes = RoundUp(size);
  void* address = device->Allocate(bytes, ToPagePolicy(policy));
  if (address == nullptr) return OutOfMemory(func, size);
  try {
    RememberAllocation(address, {bytes, MemoryKind::kDevice, context->device});
  } catch (...) {
    device->Free(address);
    throw;
  }
  *devPtr = address;
  return ACL_SUCCESS;
}

const char* TakeFailureReason(TakeResult result, MemoryKind expected) {
  if (result == TakeResult::kWrongKind) {
    return expected == MemoryKind::kDevice
               ? "the block came from aclrtMallocHost; release it with aclrtFreeHost"
               : "the block came from aclrtMalloc; release it with aclrtFree";
  }
  return expected == MemoryKind::kDevice
             ? "it is not an address returned by aclrtMalloc (never allocated, or already freed)"
             : "it is not an address returned by aclrtMallocHost (never allocated, or already "
               "freed)";
}

aclError Release(const char* func, const char* arg, void* address, MemoryKind kind) {
  if (address == nullptr) return ReportNull(func, arg);
  Allocation allocation{};
  const TakeResult result = TakeAllocation(address, kind, &allocation);
  if (result != TakeResult::kTaken) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, arg, PointerText(address),
                         TakeFailureReason(result, kind));
  }
  Device* device = GetDevice(allocation.device);
  if (kind == MemoryKind::kDevice) {
    device->Free(address);
  } else if (device != nullptr) {
    device->FreeHost(address);
  } else {
    FreeHostBlock(address);
  }
  return ACL_SUCCESS;
}

// aclrtMallocHost's memory comes from the current context's device (pinned, on a GPU), else
// device 0's, else, where the backend has no device, from plain host memory; -1 then.
int32_t HostMemoryOwner() {
  Context* context = CurrentContext();
  const int32_t device = context == nullptr ? 0 : context->device;
  return GetDevice(device) == nullptr ? -1 : device;
}

}  // namespace
}  // namespace openaclnn

using namespace openaclnn;

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return Guarded(__func__,
                 [&](const char* func) { return MallocDevice(func, devPtr, size, policy); });
}

aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return Guarded(__func__,
                 [&](const char* func) { return MallocDevice(func, devPtr, size, policy); });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return Guarded(__func__, [&](const char* func) {
    if (hostPtr == nullptr) return ReportNull(func, "hostPtr");
    if (const aclError status = CheckSize(func, size)) return status;
    const size_t bytes = RoundUp(size);
    const int32_t owner = HostMemoryOwner();
    Device* device = GetDevice(owner);
    void* address = device != nullptr ? device->AllocateHost(bytes)
                                      : AllocateHostBlock(bytes, PagePolicy::kHugeFirst);
    if (address == nullptr) return OutOfMemory(func, size);
    try {
      RememberAllocation(address, {bytes, MemoryKind::kHost, owner});
    } catch (...) {
      device != nullptr ? device->FreeHost(address) : FreeHostBlock(address);
      throw;
    }
    *hostPtr = address;
    return ACL_SUCCESS;
  });
}

aclError aclrtFree(void* devPtr) {
  return Guarded(__func__, [&](const char* func) {
    return Release(func, "devPtr", devPtr, MemoryKind::kDevice);
  });
}

aclError aclrtFreeHost(void* hostPtr) {
  return Guarded(__func__, [&](const char* func) {
    return Release(func, "hostPtr", hostPtr, MemoryKind::kHost);
  });
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  return Guarded(__func__, [&](const char* func) {
    if (free == nullptr) return ReportNull(func, "free");
    if (total == nullptr) return ReportNull(func, "total");
    if (EnumValue(attr) < ACL_DDR_MEM || EnumValue(attr) > ACL_MEM_P2P_HUGE1G) {
      return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "attr", std::to_string(EnumValue(attr)),
                           "must be an aclrtMemAttr value (0..17)");
    }
    Context* context = nullptr;
    if (const aclError status = RequireContext(func, &context)) return status;
    const MemoryInfo info = GetDevice(context->device)->Memory();
    *free = info.free_bytes;
    *total = info.total_bytes;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
