// The mean loss of a transposed (non-contiguous) batch of logits: self is a [3,4] view of a
// [4,3] buffer, read in place through its strides, as aclnn allows for every tensor.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

#define CHECK_RET(cond, message)                                                               \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      printf("%s failed (line %d). [ERROR msg]%s\n", message, __LINE__, aclGetRecentErrMsg()); \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

int main() {
  CHECK_RET(aclInit(nullptr) == ACL_SUCCESS, "aclInit");
  CHECK_RET(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
  aclrtStream stream;
  CHECK_RET(aclrtCreateStream(&stream) == ACL_SUCCESS, "aclrtCreateStream");

  // logits buffer: 4 rows x 3 columns; self is its transpose, shape [3,4], strides {1,3}.
  const std::vector<float> logits = {-2.0f, 0.5f, 1.0f,  3.0f, -0.5f, 0.0f,
                                     0.25f, 2.0f, -1.0f, 1.5f, -3.0f, 0.75f};
  const std::vector<float> targets = {0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0};  // [3,4], contiguous
  const size_t bytes = logits.size() * sizeof(float);
  void* logitsDevice = nullptr;
  void* targetsDevice = nullptr;
  void* outDevice = nullptr;
  CHECK_RET(aclrtMalloc(&logitsDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "malloc");
  CHECK_RET(aclrtMalloc(&targetsDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "malloc");
  CHECK_RET(aclrtMalloc(&outDevice, sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS,
            "malloc");
  aclrtMemcpy(logitsDevice, bytes, logits.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  aclrtMemcpy(targetsDevice, bytes, targets.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);

  const int64_t viewShape[] = {3, 4}, viewStrides[] = {1, 3}, storageShape[] = {4, 3};
  const int64_t targetStrides[] = {4, 1}, scalarShape[] = {1};
  aclTensor* self = aclCreateTensor(viewShape, 2, ACL_FLOAT, viewStrides, 0, ACL_FORMAT_ND,
                                    storageShape, 2, logitsDevice);
  aclTensor* target = aclCreateTensor(viewShape, 2, ACL_FLOAT, targetStrides, 0, ACL_FORMAT_ND,
                                      viewShape, 2, targetsDevice);
  aclTensor* out = aclCreateTensor(scalarShape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                                   scalarShape, 1, outDevice);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor;
  CHECK_RET(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                self, target, nullptr, nullptr,
                /*reduction=mean*/ 1, out, &workspaceSize, &executor) == ACL_SUCCESS,
            "aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize");
  void* workspace = nullptr;
  if (workspaceSize > 0) aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(
      aclnnBinaryCrossEntropyWithLogits(workspace, workspaceSize, executor, stream) == ACL_SUCCESS,
      "aclnnBinaryCrossEntropyWithLogits");
  CHECK_RET(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream");

  float mean = 0;
  aclrtMemcpy(&mean, sizeof(mean), outDevice, sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
  printf("mean loss of the transposed batch is: %f\n", mean);

  aclDestroyTensor(self);
  aclDestroyTensor(target);
  aclDestroyTensor(out);
  aclrtFree(logitsDevice);
  aclrtFree(targetsDevice);
  aclrtFree(outDevice);
  if (workspace != nullptr) aclrtFree(workspace);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
