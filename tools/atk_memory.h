// What an ATK case needs in memory, and what the machine has: a case too large to run is
// reported as skipped with its size instead of running into an out-of-memory kill.
#pragma once

#include <cstdint>
#include <string>

#include "atk_case.h"

namespace openaclnn::tools {

// Memory this process may still use: MemAvailable (/proc/meminfo), lowered to what the cgroup's
// limit leaves (cgroup v2 memory.max - memory.current) where one applies. 0 when unknown.
uint64_t AvailableMemoryBytes();

// The most a case takes at once: the tool's host and device copies of its tensors while it runs,
// or the golden script's float64 work on it afterwards (the two never overlap: the tool frees a
// case's tensors once they are dumped), whichever is larger.
uint64_t CaseFootprintBytes(const AtkCase& atk_case);

// Why the case is skipped ("" when it runs): its footprint above `budget` bytes, or its largest
// tensor above `max_elements`.
std::string SkipReason(const AtkCase& atk_case, uint64_t budget, int64_t max_elements);

}  // namespace openaclnn::tools
