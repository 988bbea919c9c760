// PlanIteration: how an element-wise op walks its operands.
#include "base/iteration.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace openaclnn {
namespace {

// aclTensor holds atomics, so it is neither copied nor moved: views are set in place.
void SetView(aclTensor* tensor, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  tensor->view_shape = std::move(shape);
  tensor->strides = std::move(strides);
}

struct Walk {
  int rank;
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> strides;
};

Walk Plan(const std::vector<int64_t>& shape, const std::vector<const aclTensor*>& tensors,
          bool follow_memory) {
  Walk walk{0, std::vector<int64_t>(8, -1), std::vector<std::vector<int64_t>>(tensors.size())};
  std::vector<int64_t*> strides;
  for (auto& operand : walk.strides) {
    operand.assign(8, -1);  // PlanIteration must write every stride it returns
    strides.push_back(operand.data());
  }
  walk.rank = PlanIteration(shape, tensors.data(), strides.data(), static_cast<int>(tensors.size()),
                            follow_memory, walk.shape.data());
  walk.shape.resize(walk.rank);
  for (auto& operand : walk.strides) operand.resize(walk.rank);
  return walk;
}

TEST(PlanIteration, ContiguousOperandsBecomeOneDimension) {
  aclTensor out, in;
  SetView(&out, {2, 3, 4}, {12, 4, 1});
  SetView(&in, {2, 3, 4}, {12, 4, 1});
  const Walk walk = Plan({2, 3, 4}, {&out, &in}, true);
  EXPECT_EQ(walk.shape, (std::vector<int64_t>{24}));
  EXPECT_EQ(walk.strides[0], (std::vector<int64_t>{1}));
  EXPECT_EQ(walk.strides[1], (std::vector<int64_t>{1}));
}

TEST(PlanIteration, ElementWiseWorkFollowsTheFirstOperandsMemory) {
  aclTensor out, in;
  SetView(&out, {3, 4}, {1, 3});
  SetView(&in, {3, 4}, {4, 1});
  const Walk walk = Plan({3, 4}, {&out, &in}, true);
  EXPECT_EQ(walk.shape, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(walk.strides[0], (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(walk.strides[1], (std::vector<int64_t>{1, 4}));
}

TEST(PlanIteration, AReductionKeepsTheRowMajorOrder) {
  aclTensor in;
  SetView(&in, {3, 4}, {1, 3});
  const Walk walk = Plan({3, 4}, {nullptr, &in}, false);
  EXPECT_EQ(walk.shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(walk.strides[0], (std::vector<int64_t>{0, 0}));  // read through its offset alone
  EXPECT_EQ(walk.strides[1], (std::vector<int64_t>{1, 3}));
}

TEST(PlanIteration, BroadcastOperandsGetZeroStrides) {
  aclTensor out, per_column;
  SetView(&out, {2, 3}, {3, 1});
  SetView(&per_column, {3}, {1});
  const Walk walk = Plan({2, 3}, {&out, &per_column}, true);
  EXPECT_EQ(walk.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(walk.strides[1], (std::vector<int64_t>{0, 1}));
}

TEST(PlanIteration, ASingleElementIsShapeOne) {
  aclTensor out;
  SetView(&out, {}, {});
  const Walk walk = Plan({}, {&out}, true);
  EXPECT_EQ(walk.shape, (std::vector<int64_t>{1}));
  EXPECT_EQ(walk.strides[0], (std::vector<int64_t>{0}));
}

}  // namespace
}  // namespace openaclnn
