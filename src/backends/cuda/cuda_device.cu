// The CUDA backend's devices: memory from cudaMalloc (never managed memory) and cudaMallocHost
// (pinned), copies in any direction through unified addressing, streams as non-blocking
// cudaStream_t (so, as in CANN, aclrtMemcpy does not wait for them), events as cudaEvent_t, host
// callbacks through cudaLaunchHostFunc. Built into libopenaclnn_cuda.so with the CUDA runtime
// linked statically; libopenaclnn loads it (backends/plugin_loader.cc) and calls its one exported
// function, openaclnn_backend_plugin, which hands over plain C tables (backends/plugin.h).
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/loss_kernels_cuda.h"
#include "backends/plugin.h"

namespace openaclnn {
namespace {

// Failures of device operations: a static, readable reason; nullptr is success.
using DeviceError = const char*;

// nullptr for success, else CUDA's description; the non-sticky error is cleared so the next
// call does not report it again.
DeviceError Check(cudaError_t status) {
  if (status == cudaSuccess) return nullptr;
  cudaGetLastError();
  return cudaGetErrorString(status);
}

bool IsDeviceAddress(const void* address) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, address) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

class CudaDevice {
 public:
  explicit CudaDevice(int ordinal) : ordinal_(ordinal) {}

  void* Allocate(size_t bytes) {
    void* address = nullptr;
    if (Bind() != nullptr || Check(cudaMalloc(&address, bytes)) != nullptr) return nullptr;
    return address;
  }
  void Free(void* address) {
    Bind();
    Check(cudaFree(address));
  }
  void* AllocateHost(size_t bytes) {
    void* address = nullptr;
    if (Bind() != nullptr || Check(cudaMallocHost(&address, bytes)) != nullptr) return nullptr;
    return address;
  }
  void FreeHost(void* address) { Check(cudaFreeHost(address)); }
  DeviceError Copy(void* dst, const void* src, size_t bytes) {
    if (DeviceError why = Bind()) return why;
    return Check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
  }
  DeviceError Fill(void* dst, unsigned char value, size_t bytes) {
    if (!IsDeviceAddress(dst)) {  // aclrtMemset on host memory (aclrtMallocHost) is allowed
      std::memset(dst, value, bytes);
      return nullptr;
    }
    if (DeviceError why = Bind()) return why;
    return Check(cudaMemset(dst, value, bytes));
  }
  void Memory(size_t* free_bytes, size_t* total_bytes) const {
    *free_bytes = 0;
    *total_bytes = 0;
    if (cudaSetDevice(ordinal_) != cudaSuccess || cudaMemGetInfo(free_bytes, total_bytes)) {
      cudaGetLastError();
    }
  }
  int64_t ComputeUnits() const { return Attribute(cudaDevAttrMultiProcessorCount); }
  int64_t CacheBytes() const { return Attribute(cudaDevAttrL2CacheSize); }
  DeviceError Bind() { return Check(cudaSetDevice(ordinal_)); }

  // Creation fails as the system refusing a resource (the loader's adapter says so).
  DeviceError CreateQueue(void** queue) {
    cudaStream_t stream = nullptr;
    Bind();
    if (DeviceError why = Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking))) {
      return why;
    }
    *queue = stream;
    return nullptr;
  }
  void DestroyQueue(void* queue) { Check(cudaStreamDestroy(Stream(queue))); }
  bool SynchronizeQueue(void* queue, int64_t timeout_ms) {
    if (timeout_ms < 0) return Check(cudaStreamSynchronize(Stream(queue))) == nullptr;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (cudaStreamQuery(Stream(queue)) == cudaErrorNotReady) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    cudaGetLastError();
    return true;
  }
  bool QueueIdle(void* queue) {
    const cudaError_t status = cudaStreamQuery(Stream(queue));
    cudaGetLastError();
    return status != cudaErrorNotReady;
  }
  DeviceError CopyAsync(void* queue, void* dst, const void* src, size_t bytes) {
    return Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, Stream(queue)));
  }
  DeviceError FillAsync(void* queue, void* dst, unsigned char value, size_t bytes) {
    return Check(cudaMemsetAsync(dst, value, bytes, Stream(queue)));
  }
  DeviceError HostCallback(void* queue, void (*fn)(void*), void* data) {
    return Check(cudaLaunchHostFunc(Stream(queue), fn, data));
  }
  DeviceError CreateEvent(void** created) {
    cudaEvent_t event = nullptr;
    Bind();
    if (DeviceError why = Check(cudaEventCreateWithFlags(&event, cudaEventDefault))) return why;
    *created = event;
    return nullptr;
  }
  void DestroyEvent(void* event) { Check(cudaEventDestroy(Event(event))); }
  DeviceError RecordEvent(void* event, void* queue) {
    return Check(cudaEventRecord(Event(event), Stream(queue)));
  }
  DeviceError WaitEvent(void* queue, void* event) {
    return Check(cudaStreamWaitEvent(Stream(queue), Event(event), 0));
  }
  DeviceError SynchronizeEvent(void* event) { return Check(cudaEventSynchronize(Event(event))); }
  bool EventDone(void* event) {
    const cudaError_t status = cudaEventQuery(Event(event));
    cudaGetLastError();
    return status != cudaErrorNotReady;
  }
  DeviceError ElapsedMs(void* start, void* end, float* ms) {
    return Check(cudaEventElapsedTime(ms, Event(start), Event(end)));
  }

 private:
  static cudaStream_t Stream(void* queue) { return static_cast<cudaStream_t>(queue); }
  static cudaEvent_t Event(void* event) { return static_cast<cudaEvent_t>(event); }
  int64_t Attribute(cudaDeviceAttr attribute) const {
    int value = 0;
    if (cudaDeviceGetAttribute(&value, attribute, ordinal_) != cudaSuccess) cudaGetLastError();
    return value;
  }

  const int ordinal_;
};

CudaDevice& At(void* device) { return *static_cast<CudaDevice*>(device); }

// The devices' operations as plain C functions over a CudaDevice* handle.
constexpr PluginDeviceOps kDeviceOps = {
    [](void* d, size_t bytes, int /*policy*/) { return At(d).Allocate(bytes); },
    [](void* d, void* address) { At(d).Free(address); },
    [](void* d, size_t bytes) { return At(d).AllocateHost(bytes); },
    [](void* d, void* address) { At(d).FreeHost(address); },
    [](void* d, void* dst, const void* src, size_t bytes) { return At(d).Copy(dst, src, bytes); },
    [](void* d, void* dst, unsigned char value, size_t bytes) {
      return At(d).Fill(dst, value, bytes);
    },
    [](void* d, size_t* free_bytes, size_t* total_bytes) { At(d).Memory(free_bytes, total_bytes); },
    [](void* d) { return At(d).ComputeUnits(); },
    [](void* d) { return At(d).CacheBytes(); },
    [](void* d) { return At(d).Bind(); },
    [](void* d, void** queue) { return At(d).CreateQueue(queue); },
    [](void* d, void* queue) { At(d).DestroyQueue(queue); },
    [](void* d, void* queue, int64_t timeout_ms) {
      return At(d).SynchronizeQueue(queue, timeout_ms) ? 1 : 0;
    },
    [](void* d, void* queue) { return At(d).QueueIdle(queue) ? 1 : 0; },
    [](void* d, void* queue, void* dst, const void* src, size_t bytes) {
      return At(d).CopyAsync(queue, dst, src, bytes);
    },
    [](void* d, void* queue, void* dst, unsigned char value, size_t bytes) {
      return At(d).FillAsync(queue, dst, value, bytes);
    },
    [](void* d, void* queue, void (*fn)(void*), void* data) {
      return At(d).HostCallback(queue, fn, data);
    },
    [](void* d, void** event) { return At(d).CreateEvent(event); },
    [](void* d, void* event) { At(d).DestroyEvent(event); },
    [](void* d, void* event, void* queue) { return At(d).RecordEvent(event, queue); },
    [](void* d, void* queue, void* event) { return At(d).WaitEvent(queue, event); },
    [](void* d, void* event) { return At(d).SynchronizeEvent(event); },
    [](void* d, void* event) { return At(d).EventDone(event) ? 1 : 0; },
    [](void* d, void* start, void* end, float* ms) { return At(d).ElapsedMs(start, end, ms); },
};

// The CUDA devices, or why there are none (no driver, no GPU); made once, never destroyed.
const PluginBackend* MakePlugin() {
  static std::string reason;
  static std::vector<CudaDevice> devices;
  static std::vector<void*> handles;
  static PluginBackend plugin = {kPluginAbiVersion, sizeof(PluginBackend), nullptr,          0,
                                 nullptr,           &kDeviceOps,           &kCudaLossKernels};
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    reason =
        std::string("no CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
  } else if (count == 0) {
    reason = "no CUDA device: the CUDA driver reports no GPU";
  }
  if (!reason.empty()) {
    plugin.unavailable_reason = reason.c_str();
    return &plugin;
  }
  devices.reserve(static_cast<size_t>(count));
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    devices.emplace_back(ordinal);
    handles.push_back(&devices.back());
  }
  plugin.device_count = count;
  plugin.devices = handles.data();
  return &plugin;
}

}  // namespace
}  // namespace openaclnn

extern "C" __attribute__((visibility("default"))) const openaclnn::PluginBackend*
openaclnn_backend_plugin() {
  static const openaclnn::PluginBackend* plugin = openaclnn::MakePlugin();
  return plugin;
}
