// The Stream internals the ops layer relies on: FindStream / Enqueue as declared in stream.h.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "acl/acl_rt.h"
#include "runtime/handle_registry.h"
#include "runtime/stream.h"

namespace {

class StreamInternal : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS); }
  void TearDown() override {
    if (handle_ != nullptr) {
      EXPECT_EQ(aclrtDestroyStream(handle_), ACL_SUCCESS);
    }
    ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  }

  // A new user stream (handle_), destroyed by TearDown.
  openaclnn::Stream* NewStream() {
    EXPECT_EQ(aclrtCreateStream(&handle_), ACL_SUCCESS);
    aclError status = -1;
    return openaclnn::FindStream(handle_, &status);
  }

  aclrtStream handle_ = nullptr;
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
  openaclnn::Stream* stream = NewStream();
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
  ASSERT_EQ(aclrtSynchronizeStream(handle_), ACL_SUCCESS);
  ASSERT_EQ(order.size(), static_cast<size_t>(kTasks));
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(order[static_cast<size_t>(i)], i);
  ASSERT_EQ(aclrtDestroyStream(handle_), ACL_SUCCESS);
  aclError status = -1;
  EXPECT_EQ(openaclnn::FindStream(handle_, &status), nullptr);
  EXPECT_EQ(status, ACL_ERROR_INVALID_PARAM);
  handle_ = nullptr;
}

TEST_F(StreamInternal, RunOrEnqueueRunsAtOnceOnlyWhenNothingIsPending) {
  openaclnn::Stream* stream = NewStream();
  ASSERT_NE(stream, nullptr);
  std::vector<int> order;
  std::vector<int>* sink = &order;
  // Idle stream: the task has run, on this thread, when the call returns.
  std::thread::id ran_on;
  std::thread::id* ran_on_ptr = &ran_on;
  openaclnn::RunOrEnqueue(stream, openaclnn::Task([sink, ran_on_ptr] {
                            sink->push_back(0);
                            *ran_on_ptr = std::this_thread::get_id();
                          }));
  ASSERT_EQ(order.size(), 1u);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  // Busy stream: the task queues behind the running one, then behind a queued one.
  std::atomic<bool> release{false};
  std::atomic<bool>* gate = &release;
  openaclnn::Enqueue(stream, openaclnn::Task([gate, sink] {
                       while (!gate->load()) std::this_thread::yield();
                       sink->push_back(1);
                     }));
  openaclnn::RunOrEnqueue(stream, openaclnn::Task([sink] { sink->push_back(2); }));
  openaclnn::Enqueue(stream, openaclnn::Task([sink] { sink->push_back(3); }));
  openaclnn::RunOrEnqueue(stream, openaclnn::Task([sink] { sink->push_back(4); }));
  EXPECT_EQ(order.size(), 1u);
  release = true;
  ASSERT_EQ(aclrtSynchronizeStream(handle_), ACL_SUCCESS);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST_F(StreamInternal, RunOrEnqueueFromManyThreadsKeepsTasksApart) {
  openaclnn::Stream* stream = NewStream();
  ASSERT_NE(stream, nullptr);
  // Tasks run on callers and on the worker; none may overlap another (the stream's order).
  std::atomic<int> running{0};
  std::atomic<int> overlaps{0};
  std::atomic<int> done{0};
  struct Counters {
    std::atomic<int>*running, *overlaps, *done;
  } counters{&running, &overlaps, &done};
  constexpr int kThreads = 4, kTasksEach = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([stream, counters, t] {
      for (int i = 0; i < kTasksEach; ++i) {
        const openaclnn::Task task([counters] {
          if (counters.running->fetch_add(1) != 0) counters.overlaps->fetch_add(1);
          counters.done->fetch_add(1);
          counters.running->fetch_sub(1);
        });
        if ((i + t) % 3 == 0) {
          openaclnn::Enqueue(stream, task);
        } else {
          openaclnn::RunOrEnqueue(stream, task);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(aclrtSynchronizeStream(handle_), ACL_SUCCESS);
  EXPECT_EQ(done.load(), kThreads * kTasksEach);
  EXPECT_EQ(overlaps.load(), 0);
}

TEST_F(StreamInternal, DestroyWaitsForATaskACallerRuns) {
  openaclnn::Stream* stream = NewStream();
  ASSERT_NE(stream, nullptr);
  std::atomic<bool> started{false}, release{false};
  struct Flags {
    std::atomic<bool>*started, *release;
  } flags{&started, &release};
  std::thread caller([stream, flags] {
    openaclnn::RunOrEnqueue(stream, openaclnn::Task([flags] {
                              flags.started->store(true);
                              while (!flags.release->load()) std::this_thread::yield();
                            }));
  });
  while (!started.load()) std::this_thread::yield();
  std::atomic<bool> destroyed{false};
  std::thread destroyer([this, &destroyed] {
    EXPECT_EQ(aclrtDestroyStream(handle_), ACL_SUCCESS);
    destroyed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(destroyed.load());  // the stream's work is not done
  release = true;
  caller.join();
  destroyer.join();  // hangs if the worker is not told that the caller's task ended
  EXPECT_TRUE(destroyed.load());
  handle_ = nullptr;
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
