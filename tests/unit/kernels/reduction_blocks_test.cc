// The reductions' block count at the edge of int64 sizes.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "kernels/loss_problem.h"

namespace openaclnn {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

TEST(ReductionLimits, BlockCountsNearInt64MaxAreExact) {
  EXPECT_EQ(ReductionBlocks(kInt64Max), (kInt64Max - 4095) / 4096 + 1);
  EXPECT_EQ(ReductionBlocks(kInt64Max - 4095), (kInt64Max - 4095) / 4096);
  EXPECT_EQ(ReductionBlocks(0), 0);
  EXPECT_EQ(ReductionBlocks(1), 1);
  EXPECT_EQ(ReductionBlocks(4096), 1);
  EXPECT_EQ(ReductionBlocks(4097), 2);
}

}  // namespace
}  // namespace openaclnn
