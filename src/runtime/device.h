// The device backend interface. The CPU backend implements it today; a CUDA backend slots in
// behind the same calls, so the acl* entry points never ask which backend is active.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openaclnn {

// How hard to try for huge pages (from aclrtMemMallocPolicy).
enum class PagePolicy { kHugeFirst, kHugeOnly, kNormalOnly };

struct MemoryInfo {
  size_t free_bytes;
  size_t total_bytes;
};

class Device {
 public:
  virtual ~Device() = default;

  // Returns nullptr when the memory is not available. `bytes` is already rounded up by the caller.
  virtual void* Allocate(size_t bytes, PagePolicy policy) = 0;
  virtual void Free(void* address) = 0;
  // Any direction: host and device addresses may be mixed (the backend knows which is which).
  virtual void Copy(void* dst, const void* src, size_t bytes) = 0;
  virtual void Fill(void* dst, unsigned char value, size_t bytes) = 0;
  virtual MemoryInfo Memory() const = 0;
  // Parallel compute units (aclGetDeviceCapability's AI/vector core counts).
  virtual int64_t ComputeUnits() const = 0;
  // Size of the last-level cache (aclGetDeviceCapability's L2 size).
  virtual int64_t CacheBytes() const = 0;
};

// The backend named by OPENACLNN_DEVICE (read once): its devices, or why it has none.
struct Backend {
  std::string name;
  std::vector<std::unique_ptr<Device>> devices;
  std::string unavailable_reason;  // empty when the backend works
};

const Backend& ActiveBackend();
uint32_t DeviceCount();
// nullptr when `id` is out of range.
Device* GetDevice(int32_t id);

// Backend factories.
std::vector<std::unique_ptr<Device>> MakeCpuDevices();

}  // namespace openaclnn
