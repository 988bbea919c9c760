// The small-call latency on whichever backend OPENACLNN_DEVICE names: a mean loss over
// N = 1000 fp32 elements, both phases and a stream synchronize, timed on the host. Prints the
// median and the 90th percentile in microseconds (scripts/gpu-check.sh reports them).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

namespace {

constexpr int64_t kCount = 1000;
constexpr int kCalls = 3000;

void Check(int status, const char* what) {
  if (status == 0) return;
  std::fprintf(stderr, "%s failed: %d %s\n", what, status, aclGetRecentErrMsg());
  std::exit(1);
}

aclTensor* Tensor(void* device, int64_t count) {
  int64_t shape[] = {count};
  int64_t strides[] = {1};
  return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, device);
}

}  // namespace

int main() {
  Check(aclInit(nullptr), "aclInit");
  Check(aclrtSetDevice(0), "aclrtSetDevice");
  aclrtStream stream = nullptr;
  Check(aclrtCreateStream(&stream), "aclrtCreateStream");
  std::vector<float> host(kCount, 0.25f);
  void* memory[4] = {};
  for (void*& block : memory) {
    Check(aclrtMalloc(&block, kCount * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    Check(aclrtMemcpy(block, kCount * sizeof(float), host.data(), kCount * sizeof(float),
                      ACL_MEMCPY_HOST_TO_DEVICE),
          "aclrtMemcpy");
  }
  aclTensor* self = Tensor(memory[0], kCount);
  aclTensor* target = Tensor(memory[1], kCount);
  aclTensor* out = Tensor(memory[2], 1);
  std::vector<double> micros;
  for (int call = 0; call < kCalls; ++call) {
    const auto start = std::chrono::steady_clock::now();
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    Check(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(self, target, nullptr, nullptr, 1, out,
                                                            &workspace_size, &executor),
          "phase 1");
    Check(aclnnBinaryCrossEntropyWithLogits(memory[3], workspace_size, executor, stream),
          "phase 2");
    Check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(micros.begin(), micros.end());
  std::printf(
      "small call (N=%lld, fp32 mean, both phases + synchronize): median %.2f us, "
      "p90 %.2f us over %d calls\n",
      static_cast<long long>(kCount), micros[micros.size() / 2], micros[micros.size() * 9 / 10],
      kCalls);
  aclDestroyTensor(self);
  aclDestroyTensor(target);
  aclDestroyTensor(out);
  for (void* block : memory) aclrtFree(block);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
