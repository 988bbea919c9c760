// One training step of a logistic-regression head, as a CANN program runs it: the mean
// BCE-with-logits loss and its gradient with respect to the logits, queued back to back on one
// stream, then one synchronisation and a gradient-descent update of the logits on the host.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"

#define CHECK_RET(cond, message)                                                               \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      printf("%s failed (line %d). [ERROR msg]%s\n", message, __LINE__, aclGetRecentErrMsg()); \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

// Device memory holding `values`, viewed as a contiguous fp32 tensor of `shape`.
static aclTensor* DeviceTensor(const std::vector<float>& values, const std::vector<int64_t>& shape,
                               void** device) {
  const size_t bytes = values.size() * sizeof(float);
  if (aclrtMalloc(device, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return nullptr;
  aclrtMemcpy(*device, bytes, values.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                         shape.data(), shape.size(), *device);
}

int main() {
  CHECK_RET(aclInit(nullptr) == ACL_SUCCESS, "aclInit");
  CHECK_RET(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
  aclrtStream stream;
  CHECK_RET(aclrtCreateStream(&stream) == ACL_SUCCESS, "aclrtCreateStream");

  const std::vector<int64_t> shape = {2, 3};  // 2 samples x 3 labels
  std::vector<float> logits = {1.5f, -0.5f, 0.25f, -2.0f, 0.75f, 3.0f};
  const std::vector<float> labels = {1, 0, 1, 0, 1, 1};
  const std::vector<float> posWeight = {1.0f, 2.0f, 0.5f};  // per label
  void *logitsDevice, *labelsDevice, *posWeightDevice, *lossDevice, *gradOutDevice, *gradDevice;
  aclTensor* self = DeviceTensor(logits, shape, &logitsDevice);
  aclTensor* target = DeviceTensor(labels, shape, &labelsDevice);
  aclTensor* pos = DeviceTensor(posWeight, {3}, &posWeightDevice);
  aclTensor* loss = DeviceTensor({0.0f}, {}, &lossDevice);        // mean: a rank-0 result
  aclTensor* gradOut = DeviceTensor({1.0f}, {}, &gradOutDevice);  // d(loss)/d(loss)
  aclTensor* grad = DeviceTensor(std::vector<float>(6, 0.0f), shape, &gradDevice);
  CHECK_RET(self && target && pos && loss && gradOut && grad, "creating tensors");

  // Forward: phase 1, workspace, phase 2 (queued, not yet run).
  uint64_t forwardBytes = 0;
  aclOpExecutor* forward;
  CHECK_RET(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                self, target, nullptr, pos, 1, loss, &forwardBytes, &forward) == ACL_SUCCESS,
            "aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize");
  void* forwardWorkspace = nullptr;
  if (forwardBytes > 0) aclrtMalloc(&forwardWorkspace, forwardBytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(aclnnBinaryCrossEntropyWithLogits(forwardWorkspace, forwardBytes, forward, stream) ==
                ACL_SUCCESS,
            "aclnnBinaryCrossEntropyWithLogits");

  // Backward on the same stream: runs after the forward, no synchronisation in between.
  uint64_t backwardBytes = 0;
  aclOpExecutor* backward;
  CHECK_RET(
      aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
          gradOut, self, target, nullptr, pos, 1, grad, &backwardBytes, &backward) == ACL_SUCCESS,
      "aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize");
  void* backwardWorkspace = nullptr;
  if (backwardBytes > 0) aclrtMalloc(&backwardWorkspace, backwardBytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(aclnnBinaryCrossEntropyWithLogitsBackward(backwardWorkspace, backwardBytes, backward,
                                                      stream) == ACL_SUCCESS,
            "aclnnBinaryCrossEntropyWithLogitsBackward");
  CHECK_RET(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream");

  float lossValue = 0;
  std::vector<float> gradient(6);
  aclrtMemcpy(&lossValue, sizeof(float), lossDevice, sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
  aclrtMemcpy(gradient.data(), 6 * sizeof(float), gradDevice, 6 * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  printf("loss: %f\n", lossValue);
  const float learningRate = 0.5f;
  for (size_t i = 0; i < logits.size(); ++i) {
    logits[i] -= learningRate * gradient[i];
    printf("grad[%zu] is: %f, updated logit: %f\n", i, gradient[i], logits[i]);
  }

  for (aclTensor* tensor : {self, target, pos, loss, gradOut, grad}) aclDestroyTensor(tensor);
  for (void* device : {logitsDevice, labelsDevice, posWeightDevice, lossDevice, gradOutDevice,
                       gradDevice, forwardWorkspace, backwardWorkspace}) {
    if (device != nullptr) aclrtFree(device);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
