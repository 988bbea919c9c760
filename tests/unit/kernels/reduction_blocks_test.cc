// The reductions' block count at the edge of int64 sizes, and the combine of partials that are
// not finite.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/loss_problem.h"
#include "kernels/reduction.h"

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

// A block whose element had an infinite input makes the total IEEE's class of the fp64 sum of
// the partials (double-double arithmetic would make every infinity a NaN), divided or not.
TEST(ReductionLimits, NonFinitePartialsGiveTheTotalsClass) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const auto settle = [](std::initializer_list<Partial> partials, int64_t divisor) {
    PartialsTotal total;
    for (const Partial& partial : partials) total.Add(partial);
    double value = 0.0;
    EXPECT_TRUE(total.Settle(divisor, FloatType::kFloat32, 0x1p-50, &value));
    return value;
  };
  EXPECT_EQ(settle({{1.0, 0.0}, {inf, nan}, {2.0, 0.0}}, 1), inf);
  EXPECT_EQ(settle({{inf, nan}, {0.5, 0.0}}, 3), inf);
  EXPECT_EQ(settle({{1.0, 0.0}, {-inf, nan}}, 1), -inf);
  EXPECT_TRUE(std::isnan(settle({{inf, nan}, {-inf, nan}}, 1)));
  EXPECT_TRUE(std::isnan(settle({{nan, nan}, {1.0, 0.0}}, 7)));
}

}  // namespace
}  // namespace openaclnn
