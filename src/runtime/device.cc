#include "runtime/device.h"

#include <cstdlib>
#include <cstring>

namespace openaclnn {
namespace {

Backend* ChooseBackend() {
  auto* backend = new Backend;
  const char* chosen = std::getenv("OPENACLNN_DEVICE");
  backend->name = (chosen == nullptr || chosen[0] == '\0') ? "cpu" : chosen;
  if (backend->name == "cpu") {
    backend->devices = MakeCpuDevices();
  } else if (backend->name == "cuda") {
    backend->unavailable_reason =
        "OPENACLNN_DEVICE=cuda, but this build of OpenACLNN has no CUDA backend yet; unset "
        "OPENACLNN_DEVICE or set it to cpu";
  } else {
    backend->unavailable_reason = "OPENACLNN_DEVICE=" + backend->name +
                                  " names no known backend; valid values are cpu and cuda";
  }
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
