// aclInit / aclFinalize / aclFinalizeReference. As in CANN, every aclInit counts a reference
// (a repeat still returns ACL_ERROR_REPEAT_INITIALIZE), aclFinalize releases everything at once,
// and aclFinalizeReference releases one reference.
#include <cstdio>
#include <mutex>

#include "acl/acl_rt.h"
#include "runtime/context.h"
#include "runtime/fork.h"
#include "runtime/report.h"

namespace openaclnn {
namespace {

struct InitState {
  std::mutex mu;
  uint64_t references = 0;
  bool finalized = false;
};

InitState& State() {
  static auto* state = [] {
    auto* created = new InitState;
    HoldAcrossFork(&created->mu, ForkRank::kInit);
    return created;
  }();
  return *state;
}

aclError CheckConfig(const char* func, const char* path) {
  if (path == nullptr || path[0] == '\0') return ACL_SUCCESS;
  FILE* file = std::fopen(path, "r");
  if (file == nullptr) {
    return ReportInvalid(ACL_ERROR_INVALID_FILE, func, "configPath", path,
                         "the file does not exist or cannot be read");
  }
  std::fclose(file);
  return ACL_SUCCESS;
}

// Streams, contexts and device references go; memory blocks stay with their owners.
void ReleaseRuntime(InitState& state) {
  CloseAllDevices();
  state.references = 0;
  state.finalized = true;
}

}  // namespace
}  // namespace openaclnn

using namespace openaclnn;

extern "C" {

aclError aclInit(const char* configPath) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckConfig(func, configPath)) return status;
    InitState& state = State();
    std::lock_guard<std::mutex> lock(state.mu);
    state.finalized = false;
    if (state.references++ == 0) return ACL_SUCCESS;
    return ReportFailure(ACL_ERROR_REPEAT_INITIALIZE, kRuntimeParamError,
                         "%s: ACL is already initialized (repeat calls are harmless).", func);
  });
}

aclError aclFinalize(void) {
  return Guarded(__func__, [&](const char* func) {
    InitState& state = State();
    std::lock_guard<std::mutex> lock(state.mu);
    if (state.finalized) {
      return ReportFailure(ACL_ERROR_REPEAT_FINALIZE, kRuntimeParamError,
                           "%s: ACL is already finalized.", func);
    }
    ReleaseRuntime(state);
    return ACL_SUCCESS;
  });
}

aclError aclFinalizeReference(uint64_t* refCount) {
  return Guarded(__func__, [&](const char* func) {
    InitState& state = State();
    std::lock_guard<std::mutex> lock(state.mu);
    if (state.references == 0) {
      if (refCount != nullptr) *refCount = 0;
      return ReportFailure(ACL_ERROR_REPEAT_FINALIZE, kRuntimeParamError,
                           "%s: no aclInit reference is left to release.", func);
    }
    if (--state.references == 0) ReleaseRuntime(state);
    if (refCount != nullptr) *refCount = state.references;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
