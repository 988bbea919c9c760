// Shape algebra used to plan element-wise kernels: dimension reordering and coalescing.
#include "base/shape.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace openaclnn {
namespace {

struct Layout {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> strides;  // one per operand

  void Order() {
    std::vector<int64_t*> pointers;
    for (auto& operand : strides) pointers.push_back(operand.data());
    OrderDimensionsByStrides(static_cast<int>(shape.size()), shape.data(), pointers.data(),
                             static_cast<int>(pointers.size()));
  }
};

TEST(OrderDimensionsByStrides, ContiguousOperandsKeepTheirOrder) {
  Layout layout{{4, 5, 6}, {{30, 6, 1}, {30, 6, 1}}};
  layout.Order();
  EXPECT_EQ(layout.shape, (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(layout.strides[0], (std::vector<int64_t>{30, 6, 1}));
}

TEST(OrderDimensionsByStrides, TheFirstOperandDecidesWhereItMoves) {
  // The output (first) is contiguous [7, 100]; self and target are [100, 7] storage viewed as
  // [7, 100]: strided writes cost more than strided reads, so the output's order stays.
  Layout layout{{7, 100}, {{100, 1}, {1, 7}, {1, 7}}};
  layout.Order();
  EXPECT_EQ(layout.shape, (std::vector<int64_t>{7, 100}));
  // All transposed: visited in memory order.
  Layout transposed{{7, 100}, {{1, 7}, {1, 7}, {1, 7}}};
  transposed.Order();
  EXPECT_EQ(transposed.shape, (std::vector<int64_t>{100, 7}));
  EXPECT_EQ(transposed.strides[1], (std::vector<int64_t>{7, 1}));
}

TEST(OrderDimensionsByStrides, OthersVoteWhereTheFirstIsBroadcast) {
  // A first operand broadcast along dim 0 has no say there; two transposed inputs outvote one
  // contiguous one.
  Layout layout{{7, 100}, {{0, 1}, {1, 7}, {1, 7}, {100, 1}}};
  layout.Order();
  EXPECT_EQ(layout.shape, (std::vector<int64_t>{100, 7}));
  EXPECT_EQ(layout.strides[3], (std::vector<int64_t>{1, 100}));
}

TEST(OrderDimensionsByStrides, BroadcastOperandsHaveNoSay) {
  // self is [3, 2] storage viewed as [2, 3]; a weight [3] broadcasts along dim 0 (stride 0).
  Layout layout{{2, 3}, {{1, 2}, {0, 1}}};
  layout.Order();
  EXPECT_EQ(layout.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(layout.strides[0], (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(layout.strides[1], (std::vector<int64_t>{1, 0}));
}

TEST(OrderDimensionsByStrides, TiesKeepTheOrder) {
  Layout layout{{2, 3}, {{0, 1}, {1, 2}, {3, 1}}};
  layout.Order();
  EXPECT_EQ(layout.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(layout.strides[1], (std::vector<int64_t>{1, 2}));
}

TEST(OrderDimensionsByStrides, NegativeStridesCountByMagnitude) {
  Layout layout{{3, 5}, {{-1, 3}}};
  layout.Order();
  EXPECT_EQ(layout.shape, (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(layout.strides[0], (std::vector<int64_t>{3, -1}));
}

TEST(CoalesceDimensions, MergesWhatEveryOperandStepsThroughAsOne) {
  std::vector<int64_t> shape{2, 1, 3, 4};
  std::vector<int64_t> a{12, 99, 4, 1}, b{0, 0, 4, 1};
  int64_t* strides[] = {a.data(), b.data()};
  const int rank = CoalesceDimensions(4, shape.data(), strides, 2);
  ASSERT_EQ(rank, 2);
  EXPECT_EQ(shape[0], 2);
  EXPECT_EQ(shape[1], 12);
  EXPECT_EQ(a[1], 1);
  EXPECT_EQ(b[0], 0);
}

}  // namespace
}  // namespace openaclnn
