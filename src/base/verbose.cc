#include "base/verbose.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace openaclnn {

bool VerboseEnabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("OPENACLNN_VERBOSE");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return enabled;
}

void PrintVerboseLine(const std::string& description, double run_ms, double total_ms) {
  // One fprintf call per line keeps the lines of different streams' workers whole.
  std::fprintf(stderr, "openaclnn_verbose exec %s run_ms=%.3f total_ms=%.3f\n", description.c_str(),
               run_ms, total_ms);
}

}  // namespace openaclnn
