// The CUDA backend's devices: memory from cudaMalloc (never managed memory) and cudaMallocHost
// (pinned), copies in any direction through unified addressing, streams as non-blocking
// cudaStream_t (so, as in CANN, aclrtMemcpy does not wait for them), events as cudaEvent_t, host
// callbacks through cudaLaunchHostFunc. Built into libopenaclnn_cuda.so with the CUDA runtime
// linked statically; libopenaclnn loads it (runtime/cuda_loader.cc) and calls its one exported
// function, openaclnn_cuda_backend.
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>
#include <thread>

#include "kernels/cuda/bce_cuda.h"
#include "runtime/device.h"

namespace openaclnn {
namespace {

// nullptr for success, else CUDA's description; the non-sticky error is cleared so the next
// call does not report it again.
DeviceError Check(cudaError_t status) {
  if (status == cudaSuccess) return nullptr;
  cudaGetLastError();
  return cudaGetErrorString(status);
}

// Stream and event creation fail as the system refusing a resource (see Guarded).
[[noreturn]] void Refused(const char* what, cudaError_t status) {
  cudaGetLastError();
  throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                          std::string(what) + ": " + cudaGetErrorString(status));
}

bool IsDeviceAddress(const void* address) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, address) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal) : ordinal_(ordinal) {}

  void* Allocate(size_t bytes, PagePolicy /*policy*/) override {
    void* address = nullptr;
    if (Bind() != nullptr || Check(cudaMalloc(&address, bytes)) != nullptr) return nullptr;
    return address;
  }
  void Free(void* address) override {
    Bind();
    Check(cudaFree(address));
  }
  void* AllocateHost(size_t bytes) override {
    void* address = nullptr;
    if (Bind() != nullptr || Check(cudaMallocHost(&address, bytes)) != nullptr) return nullptr;
    return address;
  }
  void FreeHost(void* address) override { Check(cudaFreeHost(address)); }
  DeviceError Copy(void* dst, const void* src, size_t bytes) override {
    if (DeviceError why = Bind()) return why;
    return Check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
  }
  DeviceError Fill(void* dst, unsigned char value, size_t bytes) override {
    if (!IsDeviceAddress(dst)) {  // aclrtMemset on host memory (aclrtMallocHost) is allowed
      std::memset(dst, value, bytes);
      return nullptr;
    }
    if (DeviceError why = Bind()) return why;
    return Check(cudaMemset(dst, value, bytes));
  }
  MemoryInfo Memory() const override {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    if (cudaSetDevice(ordinal_) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total_bytes)) {
      cudaGetLastError();
    }
    return {free_bytes, total_bytes};
  }
  int64_t ComputeUnits() const override { return Attribute(cudaDevAttrMultiProcessorCount); }
  int64_t CacheBytes() const override { return Attribute(cudaDevAttrL2CacheSize); }
  DeviceError Bind() override { return Check(cudaSetDevice(ordinal_)); }

  void* CreateQueue() override {
    cudaStream_t stream = nullptr;
    Bind();
    const cudaError_t status = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (status != cudaSuccess) Refused("cudaStreamCreateWithFlags", status);
    return stream;
  }
  void DestroyQueue(void* queue) override { Check(cudaStreamDestroy(Stream(queue))); }
  bool SynchronizeQueue(void* queue, int64_t timeout_ms) override {
    if (timeout_ms < 0) return Check(cudaStreamSynchronize(Stream(queue))) == nullptr;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (cudaStreamQuery(Stream(queue)) == cudaErrorNotReady) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    cudaGetLastError();
    return true;
  }
  bool QueueIdle(void* queue) override {
    const cudaError_t status = cudaStreamQuery(Stream(queue));
    cudaGetLastError();
    return status != cudaErrorNotReady;
  }
  DeviceError CopyAsync(void* queue, void* dst, const void* src, size_t bytes) override {
    return Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, Stream(queue)));
  }
  DeviceError FillAsync(void* queue, void* dst, unsigned char value, size_t bytes) override {
    return Check(cudaMemsetAsync(dst, value, bytes, Stream(queue)));
  }
  DeviceError HostCallback(void* queue, void (*fn)(void*), void* data) override {
    return Check(cudaLaunchHostFunc(Stream(queue), fn, data));
  }
  void* CreateEvent() override {
    cudaEvent_t event = nullptr;
    Bind();
    const cudaError_t status = cudaEventCreateWithFlags(&event, cudaEventDefault);
    if (status != cudaSuccess) Refused("cudaEventCreateWithFlags", status);
    return event;
  }
  void DestroyEvent(void* event) override { Check(cudaEventDestroy(Event(event))); }
  DeviceError RecordEvent(void* event, void* queue) override {
    return Check(cudaEventRecord(Event(event), Stream(queue)));
  }
  DeviceError WaitEvent(void* queue, void* event) override {
    return Check(cudaStreamWaitEvent(Stream(queue), Event(event), 0));
  }
  DeviceError SynchronizeEvent(void* event) override {
    return Check(cudaEventSynchronize(Event(event)));
  }
  bool EventDone(void* event) override {
    const cudaError_t status = cudaEventQuery(Event(event));
    cudaGetLastError();
    return status != cudaErrorNotReady;
  }
  DeviceError ElapsedMs(void* start, void* end, float* ms) override {
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

}  // namespace
}  // namespace openaclnn

// The CUDA devices, or why there are none (no driver, no GPU).
extern "C" __attribute__((visibility("default"))) void openaclnn_cuda_backend(
    openaclnn::Backend* backend) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    backend->unavailable_reason =
        std::string("no CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
    return;
  }
  if (count == 0) {
    backend->unavailable_reason = "no CUDA device: the CUDA driver reports no GPU";
    return;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    backend->devices.push_back(std::make_unique<openaclnn::CudaDevice>(ordinal));
  }
  backend->kernels = &openaclnn::kCudaBceKernels;
}
