#include "runtime/host_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace openaclnn {
namespace {

// Page faults cost ~10 us per 4 KiB page on our machines; a transparent huge page makes the first
// touch of a big buffer 30-50x faster. Only whole huge pages can be backed, hence the threshold.
void AdviseHugePages(void* address, size_t bytes, PagePolicy policy) {
  if (policy == PagePolicy::kNormalOnly || bytes < kHugePageBytes) return;
#ifdef MADV_HUGEPAGE
  // Advice is best effort: without transparent huge pages the block still works.
  madvise(address, bytes & ~(kHugePageBytes - 1), MADV_HUGEPAGE);
#endif
}

size_t ReadMeminfoKiB(const char* key) {
  FILE* file = std::fopen("/proc/meminfo", "r");
  if (file == nullptr) return 0;
  char line[256];
  size_t kib = 0;
  const size_t key_length = std::strlen(key);
  while (std::fgets(line, sizeof(line), file) != nullptr) {
    if (std::strncmp(line, key, key_length) == 0 && line[key_length] == ':') {
      kib = std::strtoull(line + key_length + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(file);
  return kib;
}

size_t PhysicalBytes() {
  static const size_t bytes = HostMemoryInfo().total_bytes;
  return bytes;
}

}  // namespace

void* AllocateHostBlock(size_t bytes, PagePolicy policy) {
  // Overcommit would hand out a block larger than RAM and fail only when it is touched; refuse it
  // now, as a device with that little memory would.
  if (bytes > PhysicalBytes()) return nullptr;
  const size_t alignment = bytes >= kHugePageBytes ? kHugePageBytes : kBlockAlignment;
  void* address = nullptr;
  if (posix_memalign(&address, alignment, bytes) != 0) return nullptr;
  AdviseHugePages(address, bytes, policy);
  return address;
}

void FreeHostBlock(void* address) { std::free(address); }

MemoryInfo HostMemoryInfo() {
  const size_t total_kib = ReadMeminfoKiB("MemTotal");
  const size_t free_kib = ReadMeminfoKiB("MemAvailable");
  if (total_kib != 0 && free_kib != 0) return {free_kib << 10, total_kib << 10};
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return {static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES)) * page,
          static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * page};
}

}  // namespace openaclnn
