#include "runtime/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace openaclnn {
namespace {

struct LogConfig {
  LogLevel level = LogLevel::kError;
  FILE* sink = stderr;
};

LogLevel ParseNamedLevel(const char* name, LogLevel fallback) {
  static constexpr struct {
    const char* name;
    LogLevel level;
  } kNames[] = {{"debug", LogLevel::kDebug},
                {"info", LogLevel::kInfo},
                {"warning", LogLevel::kWarning},
                {"error", LogLevel::kError},
                {"null", LogLevel::kNull}};
  for (const auto& entry : kNames) {
    if (strcasecmp(name, entry.name) == 0) return entry.level;
  }
  return fallback;
}

LogConfig ReadConfig() {
  LogConfig config;
  if (const char* ascend = std::getenv("ASCEND_GLOBAL_LOG_LEVEL")) {
    if (ascend[0] >= '0' && ascend[0] <= '4' && ascend[1] == '\0') {
      config.level = static_cast<LogLevel>(ascend[0] - '0');
    }
  }
  if (const char* ours = std::getenv("OPENACLNN_LOG_LEVEL")) {
    config.level = ParseNamedLevel(ours, config.level);
  }
  if (const char* to_stdout = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT")) {
    if (std::strcmp(to_stdout, "1") == 0) config.sink = stdout;
  }
  return config;
}

const LogConfig& Config() {
  static const LogConfig config = ReadConfig();
  return config;
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARNING";
    default:
      return "ERROR";
  }
}

}  // namespace

bool LogEnabled(LogLevel level) { return level != LogLevel::kNull && level >= Config().level; }

void LogV(LogLevel level, const char* format, va_list args) {
  if (!LogEnabled(level)) return;
  char message[2048];
  std::vsnprintf(message, sizeof(message), format, args);
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d-%H:%M:%S", &local);
  // One fprintf call per line keeps lines from different threads whole.
  std::fprintf(Config().sink, "[%s] OPENACLNN(%d,%ld):%s.%03d.%03d %s\n", LevelName(level),
               static_cast<int>(getpid()), static_cast<long>(syscall(SYS_gettid)), stamp,
               static_cast<int>(micros / 1000), static_cast<int>(micros % 1000), message);
}

void Log(LogLevel level, const char* format, ...) {
  va_list args;
  va_start(args, format);
  LogV(level, format, args);
  va_end(args);
}

}  // namespace openaclnn
