// Runs a fixed set of op calls through the public API on whichever backend OPENACLNN_DEVICE
// names and prints one line per call: its name and a hash of its output's bits (every NaN
// counted as one NaN, since payloads are not part of the contract). The CPU and the CUDA
// backend must print the same lines (compare_backends.sh): the bitwise CPU == CUDA check.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy.h"
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"

namespace {

aclrtStream g_stream = nullptr;

#define CHECK(call)                                                                     \
  do {                                                                                  \
    if (const int status_ = (call); status_ != 0) {                                     \
      std::fprintf(stderr, "%s failed: %d %s\n", #call, status_, aclGetRecentErrMsg()); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

// Deterministic inputs in [low, high), with a special value at every 61st element.
std::vector<float> Values(uint64_t seed, int64_t count, float low, float high) {
  static const float kSpecials[] = {0.0f, -0.0f, 100.0f, -100.0f, INFINITY, NAN, 3.0e38f};
  std::vector<float> values(count);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const float unit = static_cast<float>(state >> 40) / static_cast<float>(1ull << 24);
    values[i] = i % 61 == 60 ? kSpecials[(state >> 20) % 7] : low + (high - low) * unit;
  }
  return values;
}

uint16_t ToBits16(float value, aclDataType dtype) {
  if (dtype == ACL_FLOAT16) return aclFloatToFloat16(value);
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// A device tensor viewing `storage` (converted to `dtype`) with `shape` and `strides`.
struct Tensor {
  Tensor(const std::vector<float>& storage, aclDataType dtype, std::vector<int64_t> shape,
         std::vector<int64_t> strides)
      : bytes(storage.size() * aclDataTypeSize(dtype)) {
    std::vector<unsigned char> host(bytes);
    for (size_t i = 0; i < storage.size(); ++i) {
      if (dtype == ACL_FLOAT) {
        std::memcpy(&host[4 * i], &storage[i], 4);
      } else {
        const uint16_t bits = ToBits16(storage[i], dtype);
        std::memcpy(&host[2 * i], &bits, 2);
      }
    }
    CHECK(aclrtMalloc(&device, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(device, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    int64_t storage_shape[] = {static_cast<int64_t>(storage.size())};
    tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, ACL_FORMAT_ND,
                             storage_shape, 1, device);
  }
  ~Tensor() {
    aclDestroyTensor(tensor);
    aclrtFree(device);
  }
  // FNV-1a over the storage's bits, NaNs made canonical.
  uint64_t Hash(aclDataType dtype) const {
    std::vector<unsigned char> host(bytes);
    CHECK(aclrtMemcpy(host.data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    uint64_t hash = 1469598103934665603ull;
    const size_t size = aclDataTypeSize(dtype);
    for (size_t i = 0; i < bytes; i += size) {
      uint32_t bits = 0;
      std::memcpy(&bits, &host[i], size);
      const bool nan =
          size == 4 ? (bits & 0x7fffffffu) > 0x7f800000u
                    : (dtype == ACL_FLOAT16 ? (bits & 0x7fff) > 0x7c00 : (bits & 0x7fff) > 0x7f80);
      if (nan) bits = 0xffffffffu;
      for (int b = 0; b < 4; ++b) hash = (hash ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ull;
    }
    return hash;
  }
  size_t bytes;
  void* device = nullptr;
  aclTensor* tensor = nullptr;
};

void Launch(uint64_t workspace_size, aclOpExecutor* executor,
            aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  void* workspace = nullptr;
  if (workspace_size > 0) CHECK(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(run(workspace, workspace_size, executor, g_stream));
  CHECK(aclrtSynchronizeStream(g_stream));
  if (workspace != nullptr) aclrtFree(workspace);
}

// One call of `op` (0 forward, 1 gradient w.r.t. self, 2 w.r.t. target; 3 and 4 the probability
// family's forward and Backward) over [rows, cols];
// `transposed`: self is read through a transposed view.
void RunCase(int op, int64_t reduction, aclDataType dtype, int64_t rows, int64_t cols,
             bool transposed) {
  const int64_t count = rows * cols;
  const std::vector<int64_t> shape = {rows, cols};
  const std::vector<int64_t> row_major = {cols, 1};
  const bool probabilities = op >= 3;
  Tensor self(probabilities ? Values(1, count, 0, 1) : Values(1, count, -30, 30), dtype, shape,
              transposed ? std::vector<int64_t>{1, rows} : row_major);
  Tensor target(Values(2, count, 0, 1), dtype, shape, row_major);
  Tensor weight(Values(3, 1, 0.5f, 2), dtype, {1}, {1});
  Tensor pos_weight(Values(4, cols, 0, 3), dtype, {cols}, {1});
  const bool reduced_out = (op == 0 || op == 3) && reduction != 0;
  Tensor out(std::vector<float>(reduced_out ? 1 : count), dtype,
             reduced_out ? std::vector<int64_t>{1} : shape,
             reduced_out ? std::vector<int64_t>{1} : row_major);
  const bool scalar_grad = reduction != 0;
  Tensor grad(Values(5, scalar_grad ? 1 : count, -2, 2), dtype,
              scalar_grad ? std::vector<int64_t>{1} : shape,
              scalar_grad ? std::vector<int64_t>{1} : row_major);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  if (op == 0) {
    CHECK(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
        self.tensor, target.tensor, weight.tensor, pos_weight.tensor, reduction, out.tensor,
        &workspace, &executor));
    Launch(workspace, executor, aclnnBinaryCrossEntropyWithLogits);
  } else if (op == 1) {
    CHECK(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
        grad.tensor, self.tensor, target.tensor, weight.tensor, pos_weight.tensor, reduction,
        out.tensor, &workspace, &executor));
    Launch(workspace, executor, aclnnBinaryCrossEntropyWithLogitsBackward);
  } else if (op == 2) {
    CHECK(aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
        grad.tensor, self.tensor, target.tensor, weight.tensor, pos_weight.tensor, reduction,
        out.tensor, &workspace, &executor));
    Launch(workspace, executor, aclnnBinaryCrossEntropyWithLogitsTargetBackward);
  } else if (op == 3) {
    CHECK(aclnnBinaryCrossEntropyGetWorkspaceSize(self.tensor, target.tensor, weight.tensor,
                                                  reduction, out.tensor, &workspace, &executor));
    Launch(workspace, executor, aclnnBinaryCrossEntropy);
  } else {
    CHECK(aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(grad.tensor, self.tensor, target.tensor,
                                                          weight.tensor, reduction, out.tensor,
                                                          &workspace, &executor));
    Launch(workspace, executor, aclnnBinaryCrossEntropyBackward);
  }
  static const char* kOps[] = {"forward", "grad_self", "grad_target", "bce_forward",
                               "bce_backward"};
  std::printf("%s reduction=%lld dtype=%d shape=[%lld,%lld]%s %016llx\n", kOps[op],
              static_cast<long long>(reduction), static_cast<int>(dtype),
              static_cast<long long>(rows), static_cast<long long>(cols),
              transposed ? " transposed" : "", static_cast<unsigned long long>(out.Hash(dtype)));
}

}  // namespace

int main() {
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtCreateStream(&g_stream));
  const int64_t sizes[][2] = {{1, 3}, {37, 111}, {1025, 1031}};  // 1 block, 2 blocks, 259 blocks
  for (int op = 0; op < 5; ++op) {
    for (int64_t reduction = 0; reduction < 3; ++reduction) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (const auto& size : sizes) {
          for (bool transposed : {false, true})
            RunCase(op, reduction, dtype, size[0], size[1], transposed);
        }
      }
    }
  }
  aclrtDestroyStream(g_stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
