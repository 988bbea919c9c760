// Page-aligned host blocks with the huge-page policy applied. The CPU device's memory and
// aclrtMallocHost memory both come from here.
#pragma once

#include <cstddef>

#include "runtime/device.h"

namespace openaclnn {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;
// aclrtMalloc promises 64-byte alignment; blocks of a huge page or more get huge-page alignment.
inline constexpr size_t kBlockAlignment = 64;

// nullptr when the system has no memory for it.
void* AllocateHostBlock(size_t bytes, PagePolicy policy);
void FreeHostBlock(void* address);

// Free and total RAM, from /proc/meminfo (MemAvailable) or sysconf.
MemoryInfo HostMemoryInfo();

}  // namespace openaclnn
