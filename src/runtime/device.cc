#include "runtime/device.h"

#include <cstdlib>
#include <cstring>

namespace openaclnn {
namespace {

std::string BackendNames() {
  std::string names;
  for (const BackendEntry& entry : RegisteredBackends()) {
    names += names.empty() ? "" : ", ";
    names += entry.name;
  }
  return names;
}

Backend* ChooseBackend() {
  auto* backend = new Backend;
  const char* chosen = std::getenv("OPENACLNN_DEVICE");
  backend->name =
      (chosen == nullptr || chosen[0] == '\0') ? RegisteredBackends().front().name : chosen;
  for (const BackendEntry& entry : RegisteredBackends()) {
    if (backend->name == entry.name) {
      entry.make(backend);
      if (backend->unavailable_reason.empty() && backend->devices.empty()) {
        backend->unavailable_reason = "the " + backend->name + " backend found no device";
      }
      return backend;
    }
  }
  backend->unavailable_reason = "OPENACLNN_DEVICE=" + backend->name +
                                " names no known backend; valid values are " + BackendNames();
  return backend;
}

}  // namespace

const Backend& ActiveBackend() {
  // Never destroyed: stream workers may still copy memory while the process exits.
  static const Backend* backend = ChooseBackend();
  return *backend;
}

uint32_t DeviceCount() { return static_cast<uint32_t>(ActiveBackend().devices.size()); }

Device* GetDevice(int32_t id) {
  if (id < 0 || static_cast<uint32_t>(id) >= DeviceCount()) return nullptr;
  return ActiveBackend().devices[static_cast<size_t>(id)].get();
}

}  // namespace openaclnn
