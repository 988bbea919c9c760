// Concurrency stress: many host threads share a few streams; each uploads its inputs on one
// stream, hands them to another through an event, launches ops of sizes on both sides of the
// quick-launch threshold (run on the caller's thread or queued), and reads the result back.
// Every result must equal, bit for bit, the same job run alone on one stream. The suite runs it
// under ThreadSanitizer too.
#include <cstring>
#include <thread>
#include <vector>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

struct Job {
  bool gradient;  // aclnnBinaryCrossEntropyWithLogitsBackward, else the forward
  int64_t count;
  int64_t reduction;
  uint32_t seed;
};

// 1048576 is the quick-launch threshold (kQuickElements): at most that runs on the calling thread
// when its stream is idle.
constexpr int64_t kSizes[] = {1, 257, 4097, 1048576, 1048577};

std::vector<Job> Jobs(int thread, int per_thread) {
  std::vector<Job> jobs;
  for (int i = 0; i < per_thread; ++i) {
    const int k = thread * per_thread + i;
    jobs.push_back({k % 3 == 2, kSizes[k % 5], k % 3, static_cast<uint32_t>(k * 2654435761u)});
  }
  return jobs;
}

std::vector<float> Values(uint32_t seed, int64_t count, float low, float high) {
  std::vector<float> values(count);
  for (float& value : values) {
    seed = seed * 1664525u + 1013904223u;
    value = low + (high - low) * static_cast<float>(seed >> 8) * 0x1p-24f;
  }
  return values;
}

void* Upload(const std::vector<float>& host, aclrtStream stream) {
  void* device = nullptr;
  const size_t bytes = host.size() * sizeof(float);
  EXPECT_EQ(aclrtMalloc(&device, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpyAsync(device, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream),
            ACL_SUCCESS);
  return device;
}

aclTensor* Tensor(int64_t count, void* device) {
  const int64_t shape[] = {count};
  return aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, device);
}

// Uploads on `upload`, computes on `compute` after an event says the inputs are there, and
// returns the result's bits.
std::vector<float> RunJob(const Job& job, aclrtStream upload, aclrtStream compute,
                          aclrtEvent ready) {
  const std::vector<float> x = Values(job.seed, job.count, -8, 8);
  const std::vector<float> t = Values(job.seed ^ 0x5bd1e995u, job.count, 0, 1);
  const int64_t out_count = !job.gradient && job.reduction != 0 ? 1 : job.count;
  void* x_device = Upload(x, upload);
  void* t_device = Upload(t, upload);
  void* out_device = nullptr;
  EXPECT_EQ(aclrtMalloc(&out_device, out_count * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtRecordEvent(ready, upload), ACL_SUCCESS);
  EXPECT_EQ(aclrtStreamWaitEvent(compute, ready), ACL_SUCCESS);
  aclTensor* self = Tensor(job.count, x_device);
  aclTensor* target = Tensor(job.count, t_device);
  aclTensor* out = Tensor(out_count, out_device);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status;
  if (job.gradient) {
    status = aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
        target, self, target, nullptr, nullptr, job.reduction, out, &workspace_size, &executor);
  } else {
    status = aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
        self, target, nullptr, nullptr, job.reduction, out, &workspace_size, &executor);
  }
  EXPECT_EQ(status, ACLNN_SUCCESS);
  void* workspace = nullptr;
  if (workspace_size > 0) {
    EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  status =
      job.gradient
          ? aclnnBinaryCrossEntropyWithLogitsBackward(workspace, workspace_size, executor, compute)
          : aclnnBinaryCrossEntropyWithLogits(workspace, workspace_size, executor, compute);
  EXPECT_EQ(status, ACLNN_SUCCESS);
  // The tensors may go once phase 2 returned; the buffers only after the stream ran.
  for (aclTensor* tensor : {self, target, out}) aclDestroyTensor(tensor);
  EXPECT_EQ(aclrtSynchronizeStream(compute), ACL_SUCCESS);
  std::vector<float> result(out_count);
  EXPECT_EQ(aclrtMemcpy(result.data(), out_count * sizeof(float), out_device,
                        out_count * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  for (void* buffer : {x_device, t_device, out_device, workspace}) aclrtFree(buffer);
  return result;
}

bool BitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(StressConcurrency, ThreadsStreamsAndEventsGiveTheSerialBits) {
  constexpr int kThreads = 8, kStreams = 4, kJobsPerThread = 6, kRounds = 2;
  // The serial reference: every job alone, in order, on one stream.
  aclrtEvent serial_event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&serial_event), ACL_SUCCESS);
  std::vector<std::vector<std::vector<float>>> expected(kThreads);
  for (int thread = 0; thread < kThreads; ++thread) {
    for (const Job& job : Jobs(thread, kJobsPerThread)) {
      expected[thread].push_back(
          RunJob(job, AclEnvironment::stream, AclEnvironment::stream, serial_event));
    }
  }
  aclrtDestroyEvent(serial_event);

  aclrtStream streams[kStreams];
  for (aclrtStream& stream : streams) ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&context), ACL_SUCCESS);
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&, thread] {
      aclrtSetCurrentContext(context);
      aclrtEvent ready = nullptr;
      aclrtCreateEvent(&ready);
      const std::vector<Job> jobs = Jobs(thread, kJobsPerThread);
      for (int round = 0; round < kRounds; ++round) {
        for (size_t j = 0; j < jobs.size(); ++j) {
          const int k = thread + static_cast<int>(j) + round;
          const std::vector<float> got =
              RunJob(jobs[j], streams[k % kStreams], streams[(k + 1 + thread) % kStreams], ready);
          if (!BitwiseEqual(got, expected[thread][j])) ++mismatches[thread];
        }
      }
      aclrtDestroyEvent(ready);
    });
  }
  for (std::thread& worker : threads) worker.join();
  for (aclrtStream stream : streams) EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  for (int thread = 0; thread < kThreads; ++thread) {
    EXPECT_EQ(mismatches[thread], 0) << "thread " << thread;
  }
}

}  // namespace
}  // namespace openaclnn::testing
