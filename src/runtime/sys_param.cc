// System parameters. The process table answers aclrtGetSysParamOpt (default 0); each context has
// its own table for aclrtCtxGetSysParamOpt, whose unset entries are an error (107021). As in the
// CANN runtime, a context-level set also writes the process table.
#include "runtime/sys_param.h"

#include <array>
#include <mutex>

#include "acl/acl_rt.h"
#include "runtime/context.h"
#include "runtime/fork.h"
#include "runtime/report.h"

namespace openaclnn {
namespace {

constexpr int kProcessOptions = 4;  // ACL_OPT_DETERMINISTIC .. ACL_OPT_ENABLE_KERNEL_EARLY_START
constexpr int kContextOptions = 3;  // ACL_OPT_DETERMINISTIC .. ACL_OPT_STRONG_CONSISTENCY

std::mutex& TableMutex() {
  static auto* mutex = [] {
    auto* created = new std::mutex;
    HoldAcrossFork(created, ForkRank::kTable);
    return created;
  }();
  return *mutex;
}

std::array<int64_t, kProcessOptions>& ProcessTable() {
  static auto* table = new std::array<int64_t, kProcessOptions>{};
  return *table;
}

aclError CheckOption(const char* func, const aclSysParamOpt& opt, int options) {
  const int64_t index = EnumValue(opt);
  if (index >= 0 && index < options) return ACL_SUCCESS;
  const std::string reason =
      "valid options here are 0.." + std::to_string(options - 1) + " (aclSysParamOpt)";
  return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "opt", std::to_string(index), reason.c_str());
}

// Deterministic levels are 0 (off) .. 3 (batch consistency); the other options are switches.
aclError CheckValue(const char* func, aclSysParamOpt opt, int64_t value) {
  const int64_t highest = opt == ACL_OPT_DETERMINISTIC ? 3 : 1;
  if (value >= 0 && value <= highest) return ACL_SUCCESS;
  const std::string reason = "valid values for option " + std::to_string(static_cast<int>(opt)) +
                             " are 0.." + std::to_string(highest);
  return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "value", std::to_string(value),
                       reason.c_str());
}

}  // namespace

int64_t SysParam(const aclSysParamOpt& opt) {
  const int64_t index = EnumValue(opt);
  if (index < 0 || index >= kProcessOptions) return 0;
  std::lock_guard<std::mutex> lock(TableMutex());
  return ProcessTable()[static_cast<size_t>(index)];
}

}  // namespace openaclnn

using namespace openaclnn;

extern "C" {

aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckOption(func, opt, kProcessOptions)) return status;
    if (const aclError status = CheckValue(func, opt, value)) return status;
    std::lock_guard<std::mutex> lock(TableMutex());
    ProcessTable()[static_cast<size_t>(opt)] = value;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  return Guarded(__func__, [&](const char* func) {
    if (value == nullptr) return ReportNull(func, "value");
    if (const aclError status = CheckOption(func, opt, kProcessOptions)) return status;
    *value = SysParam(opt);
    return ACL_SUCCESS;
  });
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return Guarded(__func__, [&](const char* func) {
    if (const aclError status = CheckOption(func, opt, kContextOptions)) return status;
    if (const aclError status = CheckValue(func, opt, value)) return status;
    Context* context = nullptr;
    if (const aclError status = RequireContext(func, &context)) return status;
    std::lock_guard<std::mutex> lock(TableMutex());
    context->sys_params[static_cast<size_t>(opt)] = value;
    ProcessTable()[static_cast<size_t>(opt)] = value;
    return ACL_SUCCESS;
  });
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  return Guarded(__func__, [&](const char* func) {
    if (value == nullptr) return ReportNull(func, "value");
    if (const aclError status = CheckOption(func, opt, kContextOptions)) return status;
    Context* context = nullptr;
    if (const aclError status = RequireContext(func, &context)) return status;
    std::lock_guard<std::mutex> lock(TableMutex());
    const auto& stored = context->sys_params[static_cast<size_t>(opt)];
    if (!stored.has_value()) {
      return ReportFailure(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, kRuntimeParamError,
                           "%s: option %d was never set on the current context. Reason: call "
                           "aclrtCtxSetSysParamOpt first.",
                           func, static_cast<int>(opt));
    }
    *value = *stored;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
