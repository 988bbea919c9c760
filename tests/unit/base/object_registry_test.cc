#include "base/object_registry.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace openaclnn {
namespace {

TEST(ObjectRegistryTest, TracksLiveObjects) {
  ObjectRegistry<int> registry;
  int a = 0;
  int b = 0;
  EXPECT_FALSE(registry.Contains(&a));
  EXPECT_FALSE(registry.Contains(nullptr));
  EXPECT_TRUE(registry.Add(&a));
  EXPECT_TRUE(registry.Contains(&a));
  EXPECT_FALSE(registry.Contains(&b));
  EXPECT_EQ(registry.Size(), 1u);
  EXPECT_TRUE(registry.Remove(&a));
  EXPECT_FALSE(registry.Remove(&a));  // a second destroyer loses
  EXPECT_FALSE(registry.Contains(&a));
  EXPECT_EQ(registry.Size(), 0u);
}

TEST(ObjectRegistryTest, OnlyOneOfRacingRemoversWins) {
  ObjectRegistry<int> registry;
  std::vector<int> objects(1000);
  for (int& object : objects) registry.Add(&object);
  std::vector<int> wins(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int& object : objects) wins[t] += registry.Remove(&object) ? 1 : 0;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wins[0] + wins[1] + wins[2] + wins[3], 1000);
  EXPECT_EQ(registry.Size(), 0u);
}

}  // namespace
}  // namespace openaclnn
