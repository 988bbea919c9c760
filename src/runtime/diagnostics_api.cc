// Error and log entry points: aclGetRecentErrMsg, aclrtGetLastError, aclrtPeekAtLastError,
// aclAppLog, plus aclrtGetVersion.
#include <cstdarg>
#include <cstdio>

#include "acl/acl_rt.h"
#include "runtime/error.h"
#include "runtime/log.h"
#include "runtime/report.h"

using namespace openaclnn;

namespace {

LogLevel ToLogLevel(const aclLogLevel& level) {
  switch (EnumValue(level)) {
    case ACL_DEBUG:
      return LogLevel::kDebug;
    case ACL_INFO:
      return LogLevel::kInfo;
    case ACL_WARNING:
      return LogLevel::kWarning;
    default:
      return LogLevel::kError;
  }
}

aclError CheckErrLevel(const char* func, const aclrtLastErrLevel& level) {
  if (EnumValue(level) == ACL_RT_THREAD_LEVEL) return ACL_SUCCESS;
  return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "level", std::to_string(EnumValue(level)),
                       "only ACL_RT_THREAD_LEVEL (0) is defined");
}

}  // namespace

extern "C" {

const char* aclGetRecentErrMsg(void) { return TakeRecentErrors(); }

aclError aclrtGetLastError(aclrtLastErrLevel level) {
  if (const aclError status = CheckErrLevel(__func__, level)) return status;
  return LastError(true);
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  if (const aclError status = CheckErrLevel(__func__, level)) return status;
  return LastError(false);
}

void aclAppLog(aclLogLevel logLevel, const char* func, const char* file, uint32_t line,
               const char* fmt, ...) {
  const LogLevel level = ToLogLevel(logLevel);
  if (fmt == nullptr || !LogEnabled(level)) return;
  char message[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  Log(level, "[%s:%u][%s] %s", file == nullptr ? "?" : file, line, func == nullptr ? "?" : func,
      message);
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  return Guarded(__func__, [&](const char* func) {
    if (majorVersion == nullptr) return ReportNull(func, "majorVersion");
    if (minorVersion == nullptr) return ReportNull(func, "minorVersion");
    if (patchVersion == nullptr) return ReportNull(func, "patchVersion");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
