// How every runtime entry point fails: one call records CANN's message text for
// aclGetRecentErrMsg, remembers the code for aclrtGetLastError, and returns the code.
#pragma once

#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <system_error>
#include <type_traits>

#include "acl/acl_base.h"
#include "runtime/error.h"

namespace openaclnn {

// "<func>: Argument <arg> must not be null." (CANN EH0002); returns ACL_ERROR_INVALID_PARAM.
aclError ReportNull(const char* func, const char* arg);

// "<func>: Value <value> for <arg> is invalid. Reason: <reason>." (CANN EH0001); returns code.
aclError ReportInvalid(aclError code, const char* func, const char* arg, const std::string& value,
                       const char* reason);

// Free-form failure for conditions that are not about one argument (no device set, timeout).
aclError ReportFailure(aclError code, ErrorKind kind, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

// The calling thread's last failure code (aclrtGetLastError / aclrtPeekAtLastError).
aclError LastError(bool clear);

// The integer a caller passed for an enum parameter. Read through memcpy: a C caller may pass any
// int, and loading an out-of-range value as the C++ enum type is undefined behaviour.
template <class E>
int64_t EnumValue(const E& value) {
  std::underlying_type_t<E> raw;
  std::memcpy(&raw, &value, sizeof(raw));
  return static_cast<int64_t>(raw);
}

// Formats a handle or address for messages.
std::string PointerText(const void* pointer);

// Runs `body(func)` and turns any exception into a status, so no exception crosses the C
// boundary. (`func` is handed in because __func__ inside a lambda names the lambda.)
template <class F>
aclError Guarded(const char* func, F&& body) {
  try {
    return body(func);
  } catch (const std::bad_alloc&) {
    return ReportFailure(ACL_ERROR_BAD_ALLOC, kRuntimeInnerError, "%s: out of host memory.", func);
  } catch (const std::system_error& error) {
    return ReportFailure(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, kRuntimeInnerError,
                         "%s: the system refused a resource: %s.", func, error.what());
  } catch (...) {
    return ReportFailure(ACL_ERROR_RT_INTERNAL_ERROR, kRuntimeInnerError,
                         "%s: unexpected internal exception.", func);
  }
}

}  // namespace openaclnn
