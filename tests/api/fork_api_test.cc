// fork() after the library has run: the child has only the forking thread, so the kernel pool,
// the stream workers and any lock a vanished thread held must be rebuilt there
// (docs/contract/runtime.md §3). Each child computes the op and must get the parent's bits; it
// runs under alarm() and the parent gives up on it after a deadline, so a hang fails the test
// instead of stalling the suite.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "callback_gate.h"

namespace {

// Large enough to be split over the kernel pool's threads and to be queued on the stream's
// worker rather than run on the calling thread.
constexpr int64_t kCount = 1 << 20;
// Generous: the aarch64 stage runs this under qemu, 10-20 times slower than native.
constexpr int kChildSeconds = 90;

std::vector<float> Values(uint32_t seed, float low, float high) {
  std::vector<float> values(kCount);
  for (float& value : values) {
    seed = seed * 1664525u + 1013904223u;
    value = low + (high - low) * static_cast<float>(seed >> 8) * 0x1p-24f;
  }
  return values;
}

// Device copies of fixed inputs and an output, and the op queued on a stream.
class Loss {
 public:
  Loss() : x_(Values(1, -8, 8)), t_(Values(2, 0, 1)) {
    x_device_ = Upload(x_);
    t_device_ = Upload(t_);
    aclrtMalloc(&out_device_, Bytes(), ACL_MEM_MALLOC_HUGE_FIRST);
  }
  ~Loss() {
    for (void* device : {x_device_, t_device_, out_device_}) aclrtFree(device);
  }

  // Queues the element-wise loss on `stream`; false if the C API refused.
  bool Launch(aclrtStream stream) {
    const int64_t shape[] = {kCount};
    aclTensor* x =
        aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, x_device_);
    aclTensor* t =
        aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, t_device_);
    aclTensor* out =
        aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, out_device_);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    bool ok = aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                  x, t, nullptr, nullptr, 0, out, &workspace_size, &executor) == ACL_SUCCESS &&
              workspace_size == 0 &&
              aclnnBinaryCrossEntropyWithLogits(nullptr, 0, executor, stream) == ACL_SUCCESS;
    for (aclTensor* tensor : {x, t, out}) aclDestroyTensor(tensor);
    return ok;
  }

  // Runs the op on `stream` and returns the result's bits (empty on any failure).
  std::vector<float> Compute(aclrtStream stream) {
    if (!Launch(stream) || aclrtSynchronizeStream(stream) != ACL_SUCCESS) return {};
    return Result();
  }

  std::vector<float> Result() const {
    std::vector<float> result(kCount);
    aclrtMemcpy(result.data(), Bytes(), out_device_, Bytes(), ACL_MEMCPY_DEVICE_TO_HOST);
    return result;
  }

 private:
  static size_t Bytes() { return kCount * sizeof(float); }
  static void* Upload(const std::vector<float>& host) {
    void* device = nullptr;
    aclrtMalloc(&device, Bytes(), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(device, Bytes(), host.data(), Bytes(), ACL_MEMCPY_HOST_TO_DEVICE);
    return device;
  }

  std::vector<float> x_, t_;
  void* x_device_ = nullptr;
  void* t_device_ = nullptr;
  void* out_device_ = nullptr;
};

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && !a.empty() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Runs `child` in a forked child and returns its exit status; -1 if it did not finish in time
// (it is killed), -2 if it died of a signal.
int InChild(const std::function<int()>& child) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(kChildSeconds);
    _exit(child());  // _exit: the child must not run the parent's gtest teardown
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kChildSeconds + 5);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
}

class Fork : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    aclrtDestroyStream(stream_);
    aclrtResetDevice(0);
    aclFinalize();
  }
  aclrtStream stream_ = nullptr;
};

TEST_F(Fork, ChildOfAMultiThreadedParentComputesTheParentsBits) {
  Loss loss;
  const std::vector<float> parent = loss.Compute(stream_);  // starts the pool and the worker
  ASSERT_FALSE(parent.empty());
  const int status = InChild([&] {
    // On the stream created before fork(), on a new one, and from two threads at once.
    if (!SameBits(loss.Compute(stream_), parent)) return 1;
    aclrtStream fresh = nullptr;
    if (aclrtCreateStream(&fresh) != ACL_SUCCESS) return 2;
    if (!SameBits(loss.Compute(fresh), parent)) return 3;
    std::atomic<bool> other_ok{false};
    std::thread other([&] {
      if (aclrtSetDevice(0) != ACL_SUCCESS) return;
      {
        Loss own;
        aclrtStream stream = nullptr;
        other_ok =
            aclrtCreateStream(&stream) == ACL_SUCCESS && SameBits(own.Compute(stream), parent);
        aclrtDestroyStream(stream);
      }
      aclrtResetDevice(0);
    });
    const bool here_ok = SameBits(loss.Compute(fresh), parent);
    other.join();
    aclrtDestroyStream(fresh);
    return here_ok && other_ok ? 0 : 4;
  });
  EXPECT_EQ(status, 0) << "-1: the child hung; 1-4: see the child's steps";
  EXPECT_TRUE(SameBits(loss.Compute(stream_), parent));  // the parent is unaffected
}

TEST_F(Fork, ChildForkedWithWorkQueuedDropsItAndComputesAgain) {
  Loss loss;
  const std::vector<float> parent = loss.Compute(stream_);
  ASSERT_FALSE(parent.empty());
  aclrtStream other = nullptr;
  ASSERT_EQ(aclrtCreateStream(&other), ACL_SUCCESS);
  Loss queued;
  // fork() while the worker runs a callback and the op waits behind it; a second stream's
  // worker is busy with a large op at the same moment.
  CallbackGate gate;
  ASSERT_EQ(aclrtLaunchCallback(CallbackGate::Hold, &gate, ACL_CALLBACK_BLOCK, stream_),
            ACL_SUCCESS);
  ASSERT_TRUE(queued.Launch(stream_));
  aclrtEvent after = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&after), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(after, stream_), ACL_SUCCESS);  // queued behind the op
  ASSERT_TRUE(loss.Launch(other));
  while (!gate.entered) std::this_thread::sleep_for(std::chrono::microseconds(100));
  const int status = InChild([&] {
    // The parent's queued work is dropped: synchronizing returns instead of waiting for it,
    // and the dropped event record completes its event.
    if (aclrtSynchronizeStream(stream_) != ACL_SUCCESS) return 1;
    if (aclrtSynchronizeStream(other) != ACL_SUCCESS) return 2;
    if (aclrtSynchronizeEvent(after) != ACL_SUCCESS) return 3;
    if (!SameBits(queued.Compute(stream_), parent)) return 4;
    if (!SameBits(loss.Compute(other), parent)) return 5;
    // The event, created before the fork, orders new work in the child.
    if (!queued.Launch(stream_) || aclrtRecordEvent(after, stream_) != ACL_SUCCESS) return 6;
    if (aclrtStreamWaitEvent(other, after) != ACL_SUCCESS) return 7;
    if (aclrtSynchronizeStream(other) != ACL_SUCCESS) return 8;
    aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    if (aclrtQueryEventStatus(after, &recorded) != ACL_SUCCESS) return 9;
    return recorded == ACL_EVENT_RECORDED_STATUS_COMPLETE ? 0 : 10;
  });
  gate.open = true;
  EXPECT_EQ(status, 0) << "-1: the child hung; 1-10: see the child's steps";
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(other), ACL_SUCCESS);
  EXPECT_TRUE(SameBits(queued.Result(), parent));  // the parent ran all of it
  EXPECT_TRUE(SameBits(loss.Result(), parent));
  aclrtDestroyEvent(after);
  aclrtDestroyStream(other);
}

}  // namespace
