// A backend built as a library of its own, libopenaclnn_<name>.so beside this one (backends/
// plugin.h): loaded only when OPENACLNN_DEVICE names it, so neither this library nor any
// CANN-named link needs what that backend needs (CUDA's plugin links the CUDA runtime statically
// and needs only the driver). A plugin that cannot be loaded, or that speaks another ABI version,
// leaves the backend without devices and says why.
#include <dlfcn.h>

#include <cctype>
#include <string>
#include <system_error>

#include "backends/plugin.h"
#include "runtime/device.h"

namespace openaclnn {
namespace {

// The folder this library was loaded from, with a trailing '/'; empty if unknown.
std::string OwnFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&LoadPluginBackend), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// The runtime's Device over a plugin's device handle and operations.
class PluginDevice final : public Device {
 public:
  PluginDevice(const PluginDeviceOps& ops, void* device) : ops_(ops), device_(device) {}

  void* Allocate(size_t bytes, PagePolicy policy) override {
    return ops_.allocate(device_, bytes, static_cast<int>(policy));
  }
  void Free(void* address) override { ops_.free(device_, address); }
  void* AllocateHost(size_t bytes) override { return ops_.allocate_host(device_, bytes); }
  void FreeHost(void* address) override { ops_.free_host(device_, address); }
  DeviceError Copy(void* dst, const void* src, size_t bytes) override {
    return ops_.copy(device_, dst, src, bytes);
  }
  DeviceError Fill(void* dst, unsigned char value, size_t bytes) override {
    return ops_.fill(device_, dst, value, bytes);
  }
  MemoryInfo Memory() const override {
    MemoryInfo info{0, 0};
    ops_.memory(device_, &info.free_bytes, &info.total_bytes);
    return info;
  }
  int64_t ComputeUnits() const override { return ops_.compute_units(device_); }
  int64_t CacheBytes() const override { return ops_.cache_bytes(device_); }
  DeviceError Bind() override { return ops_.bind(device_); }

  void* CreateQueue() override {
    void* queue = nullptr;
    Refused(ops_.create_queue(device_, &queue));
    return queue;
  }
  void DestroyQueue(void* queue) override { ops_.destroy_queue(device_, queue); }
  bool SynchronizeQueue(void* queue, int64_t timeout_ms) override {
    return ops_.synchronize_queue(device_, queue, timeout_ms) != 0;
  }
  bool QueueIdle(void* queue) override { return ops_.queue_idle(device_, queue) != 0; }
  DeviceError CopyAsync(void* queue, void* dst, const void* src, size_t bytes) override {
    return ops_.copy_async(device_, queue, dst, src, bytes);
  }
  DeviceError FillAsync(void* queue, void* dst, unsigned char value, size_t bytes) override {
    return ops_.fill_async(device_, queue, dst, value, bytes);
  }
  DeviceError HostCallback(void* queue, void (*fn)(void*), void* data) override {
    return ops_.host_callback(device_, queue, fn, data);
  }
  void* CreateEvent() override {
    void* event = nullptr;
    Refused(ops_.create_event(device_, &event));
    return event;
  }
  void DestroyEvent(void* event) override { ops_.destroy_event(device_, event); }
  DeviceError RecordEvent(void* event, void* queue) override {
    return ops_.record_event(device_, event, queue);
  }
  DeviceError WaitEvent(void* queue, void* event) override {
    return ops_.wait_event(device_, queue, event);
  }
  DeviceError SynchronizeEvent(void* event) override {
    return ops_.synchronize_event(device_, event);
  }
  bool EventDone(void* event) override { return ops_.event_done(device_, event) != 0; }
  DeviceError ElapsedMs(void* start, void* end, float* ms) override {
    return ops_.elapsed_ms(device_, start, end, ms);
  }

 private:
  // A queue or event the device refused is the system refusing a resource: the runtime turns
  // that exception into its resource status (stream.cc, event.cc).
  static void Refused(const char* why) {
    if (why != nullptr) {
      throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), why);
    }
  }

  const PluginDeviceOps& ops_;
  void* const device_;
};

}  // namespace

std::string PluginIncompatibility(const PluginBackend& plugin) {
  if (plugin.abi_version != kPluginAbiVersion || plugin.struct_size != sizeof(PluginBackend)) {
    return "it speaks plugin ABI version " + std::to_string(plugin.abi_version) + " (" +
           std::to_string(plugin.struct_size) + "-byte table), this library version " +
           std::to_string(kPluginAbiVersion) + " (" + std::to_string(sizeof(PluginBackend)) +
           " bytes); rebuild the two together";
  }
  if (plugin.unavailable_reason != nullptr) return "";
  if (plugin.kernels == nullptr || plugin.device_ops == nullptr || plugin.devices == nullptr) {
    return "it gave no kernel table or no device operations";
  }
  if (plugin.kernels->abi_version != kLossKernelsAbiVersion) {
    return "its kernel table is ABI version " + std::to_string(plugin.kernels->abi_version) +
           ", this library's " + std::to_string(kLossKernelsAbiVersion) +
           "; rebuild the two together";
  }
  return "";
}

void LoadPluginBackend(Backend* backend) {
  std::string label = backend->name;  // "no CUDA device", as the plugin itself says it
  for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string no_device = "no " + label + " device: ";
  const std::string path = OwnFolder() + "libopenaclnn_" + backend->name + ".so";
  // Never closed: its devices and kernels live as long as the process.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    backend->unavailable_reason = no_device + "the " + backend->name + " backend (" + path +
                                  ") could not be loaded (" + (why ? why : "unknown reason") +
                                  "); this build of OpenACLNN may have been made without it";
    return;
  }
  auto entry = reinterpret_cast<PluginEntry>(dlsym(library, kPluginEntry));
  const PluginBackend* plugin = entry == nullptr ? nullptr : entry();
  if (plugin == nullptr) {
    backend->unavailable_reason = no_device + path + " lacks " + kPluginEntry;
    return;
  }
  if (const std::string why = PluginIncompatibility(*plugin); !why.empty()) {
    backend->unavailable_reason = no_device + path + " cannot be used: " + why;
    return;
  }
  if (plugin->unavailable_reason != nullptr) {
    backend->unavailable_reason = plugin->unavailable_reason;
    return;
  }
  for (int32_t i = 0; i < plugin->device_count; ++i) {
    backend->devices.push_back(
        std::make_unique<PluginDevice>(*plugin->device_ops, plugin->devices[i]));
  }
  backend->kernels = plugin->kernels;
}

}  // namespace openaclnn
