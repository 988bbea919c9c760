#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "runtime/host_memory.h"
#include "runtime/memory_registry.h"

namespace {

bool AlignedTo(const void* address, size_t alignment) {
  return reinterpret_cast<uintptr_t>(address) % alignment == 0;
}

TEST(HostMemory, SmallBlocksAre64ByteAlignedAndLargeOnesHugePageAligned) {
  for (const auto policy : {openaclnn::PagePolicy::kHugeFirst, openaclnn::PagePolicy::kHugeOnly,
                            openaclnn::PagePolicy::kNormalOnly}) {
    void* small = openaclnn::AllocateHostBlock(96, policy);
    ASSERT_NE(small, nullptr);
    EXPECT_TRUE(AlignedTo(small, 64));
    std::memset(small, 1, 96);
    void* large = openaclnn::AllocateHostBlock(openaclnn::kHugePageBytes * 3, policy);
    ASSERT_NE(large, nullptr);
    EXPECT_TRUE(AlignedTo(large, openaclnn::kHugePageBytes));
    std::memset(large, 1, openaclnn::kHugePageBytes * 3);
    openaclnn::FreeHostBlock(small);
    openaclnn::FreeHostBlock(large);
  }
}

TEST(HostMemory, ReportsPlausibleMemoryInfo) {
  const openaclnn::MemoryInfo info = openaclnn::HostMemoryInfo();
  EXPECT_GT(info.total_bytes, size_t{64} << 20);
  EXPECT_GT(info.free_bytes, 0u);
  EXPECT_LE(info.free_bytes, info.total_bytes);
}

TEST(MemoryRegistry, TakesEachBlockOnceAndChecksItsKind) {
  int block = 0;
  openaclnn::RememberAllocation(&block, {64, openaclnn::MemoryKind::kHost, 0});
  openaclnn::Allocation found{};
  EXPECT_EQ(openaclnn::TakeAllocation(&block, openaclnn::MemoryKind::kDevice, &found),
            openaclnn::TakeResult::kWrongKind);
  EXPECT_EQ(openaclnn::TakeAllocation(&block, openaclnn::MemoryKind::kHost, &found),
            openaclnn::TakeResult::kTaken);
  EXPECT_EQ(found.bytes, 64u);
  EXPECT_EQ(openaclnn::TakeAllocation(&block, openaclnn::MemoryKind::kHost, &found),
            openaclnn::TakeResult::kUnknown);
}

}  // namespace
