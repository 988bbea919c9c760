#include "atk_memory.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace openaclnn::tools {
namespace {

// The golden script per element of a case's largest tensor: float64 copies of each input, the
// loss or gradient, PyTorch's own computation and the metrics' temporaries. Measured at
// 104-115 bytes (1e7-element cases of either family's ops, torch 1.13), with headroom; plus
// the interpreter with numpy and torch loaded.
constexpr uint64_t kGoldenBytesPerElement = 128;
constexpr uint64_t kGoldenBaseBytes = uint64_t{512} << 20;

uint64_t MemInfoAvailable() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  uint64_t kib = 0;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib << 10;
  }
  return 0;
}

// memory.max - memory.current of this process's cgroup (v2); UINT64_MAX without a limit.
uint64_t CgroupHeadroom() {
  std::ifstream cgroup("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(cgroup, line)) {
    if (line.rfind("0::", 0) == 0) path = "/sys/fs/cgroup" + line.substr(3);
  }
  uint64_t limit = 0, current = 0;
  std::ifstream max_file(path + "/memory.max"), current_file(path + "/memory.current");
  if (path.empty() || !(max_file >> limit) || !(current_file >> current)) return UINT64_MAX;
  return limit > current ? limit - current : 0;  // "max" (no limit) fails to read as a number
}

std::string GiB(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  return text;
}

}  // namespace

uint64_t AvailableMemoryBytes() { return std::min(MemInfoAvailable(), CgroupHeadroom()); }

uint64_t CaseFootprintBytes(const AtkCase& atk_case) {
  uint64_t tensor_bytes = 0;
  for (const AtkTensor& input : atk_case.inputs) {
    tensor_bytes += static_cast<uint64_t>(input.numel()) * DtypeSize(input.dtype);
  }
  // The output is at most as large as the inputs' broadcast shape, in a dtype at most 8 bytes
  // wide; so is each float64 tensor of the golden's (a broadcast input, the element-wise result).
  const auto largest = static_cast<uint64_t>(atk_case.LargestCount());
  tensor_bytes += largest * 8;
  const uint64_t tool = 2 * tensor_bytes;  // host copies, and the device's (host memory on CPU)
  const uint64_t golden = kGoldenBaseBytes + kGoldenBytesPerElement * largest;
  return std::max(tool, golden);
}

std::string SkipReason(const AtkCase& atk_case, uint64_t budget, int64_t max_elements) {
  const int64_t largest = atk_case.LargestCount();
  std::ostringstream reason;
  const uint64_t needed = CaseFootprintBytes(atk_case);
  if (needed > budget) {
    reason << largest << " elements need about " << GiB(needed) << " of memory; " << GiB(budget)
           << " may be used";
  } else if (max_elements >= 0 && largest > max_elements) {
    reason << largest << " elements, above --max-elements " << max_elements;
  }
  return reason.str();
}

}  // namespace openaclnn::tools
