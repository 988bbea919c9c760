// The table of live aclrtMalloc/aclrtMallocHost blocks, so that freeing an unknown, foreign or
// already-freed address is an error message instead of heap corruption.
#pragma once

#include <cstddef>
#include <cstdint>

namespace openaclnn {

enum class MemoryKind { kDevice, kHost };

struct Allocation {
  size_t bytes;
  MemoryKind kind;
  int32_t device;  // the device that allocated it; -1 for plain host memory
};

enum class TakeResult { kTaken, kUnknown, kWrongKind };

void RememberAllocation(void* address, const Allocation& allocation);
// Removes the record of the block starting at `address` if it is of `kind`.
TakeResult TakeAllocation(void* address, MemoryKind kind, Allocation* allocation);

// Where `address` lies in the recorded block that holds it.
struct BlockPosition {
  size_t offset;  // bytes from the block's start to `address`
  size_t bytes;   // the block's size
};
// False when no recorded block holds `address` (a foreign address, which cannot be checked).
bool FindBlock(const void* address, BlockPosition* position);

}  // namespace openaclnn
