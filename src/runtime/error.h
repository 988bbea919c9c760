// The per-thread error queue behind aclGetRecentErrMsg(), in CANN's error-manager text format.
#pragma once

#include <cstdarg>

namespace openaclnn {

// What CANN calls an error code and title, e.g. {"EZ1001", "AclNN_Parameter_Error"}.
struct ErrorKind {
  const char* code;
  const char* title;
};

inline constexpr ErrorKind kRuntimeParamError{"EH0001", "Runtime_Parameter_Error"};
inline constexpr ErrorKind kRuntimeNullError{"EH0002", "Runtime_Parameter_Error"};
inline constexpr ErrorKind kRuntimeInnerError{"EE9999", "Runtime_Inner_Error"};

// Queues a message for the calling thread's next aclGetRecentErrMsg() and logs it at error level.
void RecordError(ErrorKind kind, const char* format, ...) __attribute__((format(printf, 2, 3)));
void RecordErrorV(ErrorKind kind, const char* format, va_list args);

// Formats every queued message of this thread (newest first) and clears the queue. The text
// stays valid until this thread calls it again; "" when nothing is queued.
const char* TakeRecentErrors();

}  // namespace openaclnn
