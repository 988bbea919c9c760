// Contexts, the per-thread current context, and per-device open counts.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "acl/acl_base.h"

namespace openaclnn {

class Stream;

struct Context {
  void* handle = nullptr;
  int32_t device = 0;
  bool is_primary = false;  // the device's default context, made by aclrtSetDevice
  Stream* default_stream = nullptr;
  std::vector<Stream*> streams;  // user-created streams; guarded by RuntimeMutex()
  // Context-level aclrtCtxSetSysParamOpt values (options 0..2); guarded by the sys-param lock.
  std::array<std::optional<int64_t>, 3> sys_params;
};

// Guards context membership (Context::streams) and the device open counts.
std::mutex& RuntimeMutex();

// The calling thread's current context, or nullptr when none is set or it has been destroyed.
Context* CurrentContext();
void SetCurrentContext(Context* context);
// nullptr when `handle` is not a live context.
Context* FindContext(const void* handle);
std::vector<Context*> AllContexts();

// Current context or a recorded ACL_ERROR_RT_CONTEXT_NULL failure naming `func`.
aclError RequireContext(const char* func, Context** context);

// Makes a context with its default stream (throws on resource failure).
Context* CreateContext(int32_t device, bool is_primary);
// Unregisters the context, runs and stops all its streams, frees it. Must not hold RuntimeMutex.
void DestroyContext(Context* context);

// aclrtSetDevice / aclrtResetDevice bookkeeping. OpenDevice returns the primary context.
Context* OpenDevice(int32_t device);
// Drops one reference (or all with `force`); destroys the primary context at zero.
void CloseDevice(int32_t device, bool force);
// Tears everything down (aclFinalize).
void CloseAllDevices();

}  // namespace openaclnn
