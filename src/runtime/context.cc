#include "runtime/context.h"

#include <algorithm>

#include "runtime/device.h"
#include "runtime/fork.h"
#include "runtime/handle_registry.h"
#include "runtime/report.h"
#include "runtime/stream_impl.h"

namespace openaclnn {
namespace {

HandleRegistry<Context>& Contexts() {
  static auto* registry = new HandleRegistry<Context>(0x4358);  // "CX"
  return *registry;
}

// Held as a handle, not a pointer: another thread may destroy the context (aclrtResetDevice),
// and the stale handle then simply stops resolving.
thread_local void* current_context = nullptr;

struct DeviceState {
  int64_t opens = 0;
  Context* primary = nullptr;
};

// Indexed by device id; guarded by RuntimeMutex().
std::vector<DeviceState>& DeviceStates() {
  static auto* states = new std::vector<DeviceState>(DeviceCount());
  return *states;
}

void StopStream(Stream* stream) {
  stream->Drain();
  delete stream;
}

}  // namespace

std::mutex& RuntimeMutex() {
  static auto* mutex = [] {
    auto* created = new std::mutex;
    HoldAcrossFork(created, ForkRank::kRuntime);
    return created;
  }();
  return *mutex;
}

Context* CurrentContext() {
  return current_context == nullptr ? nullptr : Contexts().Find(current_context);
}

void SetCurrentContext(Context* context) {
  current_context = context == nullptr ? nullptr : context->handle;
  // A device that keeps a per-thread current device (CUDA) follows; checked by aclrtSetDevice.
  if (context != nullptr) GetDevice(context->device)->Bind();
}

Context* FindContext(const void* handle) { return Contexts().Find(handle); }

std::vector<Context*> AllContexts() { return Contexts().All(); }

aclError RequireContext(const char* func, Context** context) {
  *context = CurrentContext();
  if (*context != nullptr) return ACL_SUCCESS;
  return ReportFailure(ACL_ERROR_RT_CONTEXT_NULL, kRuntimeParamError,
                       "%s: no current context on this thread. Reason: call aclrtSetDevice or "
                       "aclrtSetCurrentContext first.",
                       func);
}

Context* CreateContext(int32_t device, bool is_primary) {
  auto context = std::make_unique<Context>();
  context->device = device;
  context->is_primary = is_primary;
  context->default_stream = CreateStream(context.get(), true);
  try {
    context->handle = Contexts().Add(context.get());
  } catch (...) {
    if (UnregisterStream(context->default_stream)) StopStream(context->default_stream);
    throw;
  }
  return context.release();
}

void DestroyContext(Context* context) {
  if (Contexts().Remove(context->handle) == nullptr) return;
  std::vector<Stream*> streams;
  {
    std::lock_guard<std::mutex> lock(RuntimeMutex());
    streams.swap(context->streams);
  }
  streams.push_back(context->default_stream);
  for (Stream* stream : streams) {
    if (UnregisterStream(stream)) StopStream(stream);
  }
  delete context;
}

Context* OpenDevice(int32_t device) {
  std::lock_guard<std::mutex> lock(RuntimeMutex());
  DeviceState& state = DeviceStates()[static_cast<size_t>(device)];
  if (state.primary == nullptr) state.primary = CreateContext(device, true);
  ++state.opens;
  return state.primary;
}

void CloseDevice(int32_t device, bool force) {
  Context* doomed = nullptr;
  {
    std::lock_guard<std::mutex> lock(RuntimeMutex());
    DeviceState& state = DeviceStates()[static_cast<size_t>(device)];
    if (state.opens == 0) return;
    state.opens = force ? 0 : state.opens - 1;
    if (state.opens == 0) std::swap(doomed, state.primary);
  }
  // Outside the lock: the streams' remaining tasks may themselves call into the runtime.
  if (doomed != nullptr) DestroyContext(doomed);
}

void CloseAllDevices() {
  for (uint32_t device = 0; device < DeviceCount(); ++device) {
    CloseDevice(static_cast<int32_t>(device), true);
  }
  for (Context* context : AllContexts()) DestroyContext(context);
}

}  // namespace openaclnn
