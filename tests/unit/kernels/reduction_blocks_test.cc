// The reductions' block count at the edge of int64 sizes; the class of a total with terms that
// are not finite.
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

// A partial holding an infinite term (its bound NaN) makes the total that infinity, mean or sum:
// the double-double combine alone would turn it into NaN (inf - inf inside TwoSum).
TEST(ReductionLimits, TotalsOfNonFiniteTermsTakeTheirClass) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const auto settle = [](std::initializer_list<double> sums, int64_t divisor) {
    PartialsTotal total;
    for (double sum : sums) total.Add({sum, std::isfinite(sum) ? 0.0 : NAN});
    double value = 0;
    EXPECT_TRUE(total.Settle(divisor, FloatType::kFloat32, 0x1p-51, &value));
    return value;
  };
  EXPECT_EQ(settle({1.5, kInf, 2.0}, 1), kInf);
  EXPECT_EQ(settle({-kInf, 3.0}, 7), -kInf);
  EXPECT_TRUE(std::isnan(settle({kInf, -kInf}, 1)));
  EXPECT_TRUE(std::isnan(settle({1.0, NAN}, 3)));
  EXPECT_EQ(settle({1.5, 2.5}, 2), 2.0);
}

}  // namespace
}  // namespace openaclnn
