#include "runtime/error.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "runtime/log.h"

namespace openaclnn {
namespace {

struct QueuedError {
  ErrorKind kind;
  std::string stamp;
  std::string message;
};

// A thread that keeps failing without ever reading its errors must not grow without bound.
constexpr size_t kMaxQueued = 64;

thread_local std::vector<QueuedError> queue;
thread_local std::string last_text;

std::string Timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const long long micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%d-%H:%M:%S", &local);
  char stamp[48];
  std::snprintf(stamp, sizeof(stamp), "%s.%03lld.%03lld", date, micros / 1000, micros % 1000);
  return stamp;
}

bool IsInternal(const ErrorKind& kind) {
  const size_t length = std::strlen(kind.code);
  return length >= 4 && (std::strcmp(kind.code + length - 4, "9999") == 0 ||
                         std::strcmp(kind.code + length - 4, "8888") == 0);
}

std::string Header(const QueuedError& error, const char* separator) {
  return "[PID: " + std::to_string(getpid()) + "] " + error.stamp + " " + error.kind.title + "(" +
         error.kind.code + "):" + separator + error.message + "\n";
}

std::string Render() {
  bool all_internal = true;
  for (const QueuedError& error : queue) all_internal = all_internal && IsInternal(error.kind);
  const QueuedError& newest = queue.back();
  std::string text;
  if (all_internal) {
    text = std::string(newest.kind.code) + ": Internal error!\n" + newest.kind.code +
           Header(newest, "  ");
  } else {
    text = Header(newest, " ");
  }
  if (queue.size() > 1) {
    text += "TraceBack (most recent call last):\n";
    for (size_t i = queue.size() - 1; i-- > 0;) text += "        " + queue[i].message + "\n";
  }
  return text;
}

}  // namespace

void RecordErrorV(ErrorKind kind, const char* format, va_list args) {
  char message[1024];
  std::vsnprintf(message, sizeof(message), format, args);
  Log(LogLevel::kError, "%s(%s): %s", kind.title, kind.code, message);
  if (queue.size() == kMaxQueued) queue.erase(queue.begin());
  queue.push_back({kind, Timestamp(), message});
}

void RecordError(ErrorKind kind, const char* format, ...) {
  va_list args;
  va_start(args, format);
  RecordErrorV(kind, format, args);
  va_end(args);
}

const char* TakeRecentErrors() {
  last_text = queue.empty() ? std::string() : Render();
  queue.clear();
  return last_text.c_str();
}

}  // namespace openaclnn
