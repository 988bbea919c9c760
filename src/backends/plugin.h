// The interface between libopenaclnn and a backend built as a plugin of its own,
// libopenaclnn_<name>.so beside it (the CUDA backend is one): the plugin exports one extern "C"
// function, openaclnn_backend_plugin, that returns a PluginBackend. Only plain C types cross:
// opaque handles, function pointers over them, C strings the plugin keeps alive, and the kernel
// table (kernels/loss_problem.h). The loader (plugin_loader.cc) checks both ABI versions and the
// struct's size before it reads anything else, and wraps each device in the runtime's C++ Device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/loss_problem.h"

namespace openaclnn {

// Changes whenever PluginBackend or PluginDeviceOps change layout or meaning.
inline constexpr uint32_t kPluginAbiVersion = 1;

// A device's operations, each over the plugin's opaque device handle; the meaning of each is
// that of the Device member of the same name (runtime/device.h). Failures return a static,
// readable reason (nullptr: success); nothing throws across the boundary. `policy` is a
// PagePolicy value. create_queue and create_event store the new handle, or return why the device
// refused one (the runtime reports that as the system refusing a resource).
struct PluginDeviceOps {
  void* (*allocate)(void* device, size_t bytes, int policy);
  void (*free)(void* device, void* address);
  void* (*allocate_host)(void* device, size_t bytes);
  void (*free_host)(void* device, void* address);
  const char* (*copy)(void* device, void* dst, const void* src, size_t bytes);
  const char* (*fill)(void* device, void* dst, unsigned char value, size_t bytes);
  void (*memory)(void* device, size_t* free_bytes, size_t* total_bytes);
  int64_t (*compute_units)(void* device);
  int64_t (*cache_bytes)(void* device);
  const char* (*bind)(void* device);
  const char* (*create_queue)(void* device, void** queue);
  void (*destroy_queue)(void* device, void* queue);
  int (*synchronize_queue)(void* device, void* queue, int64_t timeout_ms);  // 0: timed out
  int (*queue_idle)(void* device, void* queue);
  const char* (*copy_async)(void* device, void* queue, void* dst, const void* src, size_t bytes);
  const char* (*fill_async)(void* device, void* queue, void* dst, unsigned char value,
                            size_t bytes);
  const char* (*host_callback)(void* device, void* queue, void (*fn)(void*), void* data);
  const char* (*create_event)(void* device, void** event);
  void (*destroy_event)(void* device, void* event);
  const char* (*record_event)(void* device, void* event, void* queue);
  const char* (*wait_event)(void* device, void* queue, void* event);
  const char* (*synchronize_event)(void* device, void* event);
  int (*event_done)(void* device, void* event);
  const char* (*elapsed_ms)(void* device, void* start, void* end, float* ms);
};

// What a plugin hands over, alive as long as the process.
struct PluginBackend {
  uint32_t abi_version;  // kPluginAbiVersion of the plugin's build
  uint32_t struct_size;  // sizeof(PluginBackend) in the plugin's build
  // Why the backend has no device (e.g. "no CUDA device: ..."); nullptr when it works.
  const char* unavailable_reason;
  int32_t device_count;
  void* const* devices;  // device_count opaque handles, for device_ops
  const PluginDeviceOps* device_ops;
  const LossKernels* kernels;
};
static_assert(std::is_standard_layout_v<PluginDeviceOps> &&
              std::is_trivially_copyable_v<PluginDeviceOps>);
static_assert(std::is_standard_layout_v<PluginBackend> &&
              std::is_trivially_copyable_v<PluginBackend>);

// The one symbol a plugin exports: extern "C" const PluginBackend* openaclnn_backend_plugin(void).
inline constexpr const char* kPluginEntry = "openaclnn_backend_plugin";
using PluginEntry = const PluginBackend* (*)();

// Why a plugin's tables cannot be used (another plugin ABI version or struct size, or a kernel
// table of another ABI version; both versions named), or "" when this library reads them.
std::string PluginIncompatibility(const PluginBackend& plugin);

struct Backend;
// The factory of every plugin backend (backends/registry.cc): loads libopenaclnn_<name>.so for
// the backend's name from beside this library and fills `backend` from its PluginBackend.
void LoadPluginBackend(Backend* backend);

}  // namespace openaclnn
