// Every backend, one line each: how OPENACLNN_DEVICE spells it and its factory. The first is the
// default. A backend built into this library has a factory of its own; one built as a plugin
// (libopenaclnn_<name>.so beside this library, backends/plugin.h) is made by the generic loader.
#include "backends/cpu/cpu_backend.h"
#include "backends/plugin.h"
#include "runtime/device.h"

namespace openaclnn {
namespace {

constexpr BackendEntry kBackends[] = {
    {"cpu", MakeCpuBackend},
    {"cuda", LoadPluginBackend},
};

}  // namespace

std::span<const BackendEntry> RegisteredBackends() { return kBackends; }

}  // namespace openaclnn
