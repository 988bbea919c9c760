// The CPU backend: device memory is ordinary host memory, so every copy is a memmove; streams
// are the runtime's host worker threads and the kernels are the host kernels.
#include <unistd.h>

#include <cstring>
#include <thread>

#include "backends/cpu/cpu_backend.h"
#include "runtime/host_memory.h"

namespace openaclnn {
namespace {

class CpuDevice final : public Device {
 public:
  void* Allocate(size_t bytes, PagePolicy policy) override {
    return AllocateHostBlock(bytes, policy);
  }
  void Free(void* address) override { FreeHostBlock(address); }
  void* AllocateHost(size_t bytes) override {
    return AllocateHostBlock(bytes, PagePolicy::kHugeFirst);
  }
  void FreeHost(void* address) override { FreeHostBlock(address); }
  // memmove, not memcpy: an overlapping copy is a user mistake, but must not corrupt silently.
  DeviceError Copy(void* dst, const void* src, size_t bytes) override {
    std::memmove(dst, src, bytes);
    return nullptr;
  }
  DeviceError Fill(void* dst, unsigned char value, size_t bytes) override {
    std::memset(dst, value, bytes);
    return nullptr;
  }
  MemoryInfo Memory() const override { return HostMemoryInfo(); }
  int64_t ComputeUnits() const override {
    const unsigned cores = std::thread::hardware_concurrency();
    return cores == 0 ? 1 : static_cast<int64_t>(cores);
  }
  int64_t CacheBytes() const override {
#ifdef _SC_LEVEL3_CACHE_SIZE
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) return l3;
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l2 > 0) return l2;
#endif
    return 0;
  }
};

}  // namespace

void MakeCpuBackend(Backend* backend) {
  backend->devices.push_back(std::make_unique<CpuDevice>());
  backend->kernels = &kCpuLossKernels;
}

}  // namespace openaclnn
