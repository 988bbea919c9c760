// The Stream internals the ops layer relies on: FindStream / Enqueue as declared in stream.h.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "acl/acl_rt.h"
#include "runtime/handle_registry.h"
#include "runtime/stream.h"

namespace {

class StreamInternal : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS); }
  void TearDown() override { ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS); }
};

TEST(StreamLookup, NullStreamWithoutDeviceIsContextNull) {
  aclError status = ACL_SUCCESS;
  EXPECT_EQ(openaclnn::FindStream(nullptr, &status), nullptr);
  EXPECT_EQ(status, ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(StreamInternal, FindStreamResolvesNullAndRejectsGarbage) {
  aclError status = -1;
  EXPECT_NE(openaclnn::FindStream(nullptr, &status), nullptr);
  EXPECT_EQ(status, ACL_SUCCESS);
  int not_a_stream = 0;
  EXPECT_EQ(openaclnn::FindStream(&not_a_stream, &status), nullptr);
  EXPECT_EQ(status, ACL_ERROR_INVALID_PARAM);
}

TEST_F(StreamInternal, EnqueueRunsManyTasksInOrderWhileTheRingGrows) {
  aclrtStream handle = nullptr;
  ASSERT_EQ(aclrtCreateStream(&handle), ACL_SUCCESS);
  aclError status = -1;
  openaclnn::Stream* stream = openaclnn::FindStream(handle, &status);
  ASSERT_NE(stream, nullptr);
  // Hold the worker so the queue has to grow well past its initial size.
  std::atomic<bool> release{false};
  std::atomic<bool>* gate = &release;
  openaclnn::Enqueue(stream, openaclnn::Task([gate] {
                       while (!gate->load()) std::this_thread::yield();
                     }));
  constexpr int kTasks = 5000;
  std::vector<int> order;
  order.reserve(kTasks);
  std::vector<int>* sink = &order;
  for (int i = 0; i < kTasks; ++i) {
    openaclnn::Enqueue(stream, openaclnn::Task([sink, i] { sink->push_back(i); }));
  }
  EXPECT_TRUE(order.empty());
  release = true;
  ASSERT_EQ(aclrtSynchronizeStream(handle), ACL_SUCCESS);
  ASSERT_EQ(order.size(), static_cast<size_t>(kTasks));
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(order[static_cast<size_t>(i)], i);
  ASSERT_EQ(aclrtDestroyStream(handle), ACL_SUCCESS);
  EXPECT_EQ(openaclnn::FindStream(handle, &status), nullptr);
  EXPECT_EQ(status, ACL_ERROR_INVALID_PARAM);
}

TEST(HandleRegistry, HandlesAreNeverReused) {
  openaclnn::HandleRegistry<int> registry(0x1234);
  int object = 7;
  void* first = registry.Add(&object);
  EXPECT_EQ(registry.Find(first), &object);
  EXPECT_EQ(registry.Remove(first), &object);
  EXPECT_EQ(registry.Remove(first), nullptr);
  void* second = registry.Add(&object);
  EXPECT_NE(first, second);
  EXPECT_EQ(registry.Find(first), nullptr);
  EXPECT_EQ(registry.Find(nullptr), nullptr);
}

}  // namespace
