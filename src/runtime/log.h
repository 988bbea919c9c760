// Leveled logging, configured from the environment the way CANN users already configure it.
#pragma once

#include <cstdarg>

namespace openaclnn {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kNull = 4 };

// OPENACLNN_LOG_LEVEL (debug|info|warning|error|null) wins over ASCEND_GLOBAL_LOG_LEVEL (0-4).
// Default: error. Lines go to stderr, or stdout when ASCEND_SLOG_PRINT_TO_STDOUT=1.
bool LogEnabled(LogLevel level);
void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));
void LogV(LogLevel level, const char* format, va_list args);

}  // namespace openaclnn
