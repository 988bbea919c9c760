// The device backend interface. A backend is one object per device that provides memory, queues
// (streams) and events, plus a table of kernels that the runtime carries without reading it; the
// acl* entry points never ask which backend is active. Backends are listed once, one line each,
// in backends/registry.cc; OPENACLNN_DEVICE picks one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace openaclnn {

// How hard to try for huge pages (from aclrtMemMallocPolicy).
enum class PagePolicy { kHugeFirst, kHugeOnly, kNormalOnly };

struct MemoryInfo {
  size_t free_bytes;
  size_t total_bytes;
};

// Failures of device operations are returned as a static, readable reason; nullptr is success.
using DeviceError = const char*;

class Device {
 public:
  virtual ~Device() = default;

  // Returns nullptr when the memory is not available. `bytes` is already rounded up by the caller.
  virtual void* Allocate(size_t bytes, PagePolicy policy) = 0;
  virtual void Free(void* address) = 0;
  // Host memory the device copies from and to fastest (aclrtMallocHost: pinned on a GPU).
  virtual void* AllocateHost(size_t bytes) = 0;
  virtual void FreeHost(void* address) = 0;
  // Any direction: host and device addresses may be mixed (the backend knows which is which).
  virtual DeviceError Copy(void* dst, const void* src, size_t bytes) = 0;
  virtual DeviceError Fill(void* dst, unsigned char value, size_t bytes) = 0;
  virtual MemoryInfo Memory() const = 0;
  // Parallel compute units (aclGetDeviceCapability's AI/vector core counts).
  virtual int64_t ComputeUnits() const = 0;
  // Size of the last-level cache (aclGetDeviceCapability's L2 size).
  virtual int64_t CacheBytes() const = 0;
  // Makes this device the calling thread's current one (aclrtSetDevice, aclrtSetCurrentContext).
  virtual DeviceError Bind() { return nullptr; }

  // Native queues and events, for devices that order work themselves. CreateQueue returns
  // nullptr on a backend without them (the CPU): its streams are host worker threads, and the
  // runtime's own Event records complete on them. The other functions are then never called.
  virtual void* CreateQueue() { return nullptr; }
  virtual void DestroyQueue(void* /*queue*/) {}
  // Waits for everything queued so far; timeout_ms < 0 waits forever. Returns false on timeout.
  virtual bool SynchronizeQueue(void* /*queue*/, int64_t /*timeout_ms*/) { return true; }
  virtual bool QueueIdle(void* /*queue*/) { return true; }
  virtual DeviceError CopyAsync(void* /*queue*/, void* /*dst*/, const void* /*src*/,
                                size_t /*bytes*/) {
    return kNoNativeQueues;
  }
  virtual DeviceError FillAsync(void* /*queue*/, void* /*dst*/, unsigned char /*value*/,
                                size_t /*bytes*/) {
    return kNoNativeQueues;
  }
  virtual DeviceError HostCallback(void* /*queue*/, void (* /*fn*/)(void*), void* /*data*/) {
    return kNoNativeQueues;
  }
  virtual void* CreateEvent() { return nullptr; }
  virtual void DestroyEvent(void* /*event*/) {}
  virtual DeviceError RecordEvent(void* /*event*/, void* /*queue*/) { return kNoNativeQueues; }
  virtual DeviceError WaitEvent(void* /*queue*/, void* /*event*/) { return kNoNativeQueues; }
  virtual DeviceError SynchronizeEvent(void* /*event*/) { return kNoNativeQueues; }
  virtual bool EventDone(void* /*event*/) { return true; }
  virtual DeviceError ElapsedMs(void* /*start*/, void* /*end*/, float* /*ms*/) {
    return kNoNativeQueues;
  }

 protected:
  static constexpr const char* kNoNativeQueues = "this device has no native queues";
};

struct LossKernels;  // kernels/loss_problem.h: the runtime carries the table, the ops layer reads
                     // it

// The backend named by OPENACLNN_DEVICE (chosen once): its devices, or why it has none.
struct Backend {
  std::string name;
  std::vector<std::unique_ptr<Device>> devices;
  std::string unavailable_reason;  // empty when the backend works
  // The backend's kernel table, read at phase 1 (CurrentLossKernels()).
  const LossKernels* kernels = nullptr;
};

// One registered backend: how OPENACLNN_DEVICE spells it and how it is made. A factory fills
// `devices` and `kernels`, or says in `unavailable_reason` why it cannot (`name` is set).
struct BackendEntry {
  const char* name;
  void (*make)(Backend* backend);
};

// Every backend, the first the default (backends/registry.cc).
std::span<const BackendEntry> RegisteredBackends();

const Backend& ActiveBackend();
uint32_t DeviceCount();
// nullptr when `id` is out of range.
Device* GetDevice(int32_t id);

}  // namespace openaclnn
