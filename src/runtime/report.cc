#include "runtime/report.h"

#include <cstdarg>
#include <cstdio>

namespace openaclnn {
namespace {

thread_local aclError last_error = ACL_SUCCESS;

}  // namespace

aclError ReportNull(const char* func, const char* arg) {
  RecordError(kRuntimeNullError, "%s: Argument %s must not be null.", func, arg);
  last_error = ACL_ERROR_INVALID_PARAM;
  return ACL_ERROR_INVALID_PARAM;
}

aclError ReportInvalid(aclError code, const char* func, const char* arg, const std::string& value,
                       const char* reason) {
  RecordError(kRuntimeParamError, "%s: Value %s for %s is invalid. Reason: %s.", func,
              value.c_str(), arg, reason);
  last_error = code;
  return code;
}

aclError ReportFailure(aclError code, ErrorKind kind, const char* format, ...) {
  va_list args;
  va_start(args, format);
  RecordErrorV(kind, format, args);
  va_end(args);
  last_error = code;
  return code;
}

aclError LastError(bool clear) {
  const aclError code = last_error;
  if (clear) last_error = ACL_SUCCESS;
  return code;
}

std::string PointerText(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", pointer);
  return text;
}

}  // namespace openaclnn
