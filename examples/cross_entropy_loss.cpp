// aclnnCrossEntropyLoss as CANN's sample calls it: fp32 logits [2,5] = {5,0,3,3,7}, {9,3,5,2,4},
// int64 targets {0, 0}, no weight, reduction "mean", ignoreIndex -100, no label smoothing, zloss
// outputs passed and left alone. Builds unchanged against CANN or OpenACLNN.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_cross_entropy_loss.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

// A contiguous tensor: its device block and the aclTensor describing it.
struct DeviceTensor {
  void* deviceAddr = nullptr;
  aclTensor* tensor = nullptr;
};

int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

int SetUp(int32_t deviceId, aclrtStream* stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret);
            return ret);
  return ACL_SUCCESS;
}

// Copies `values` to a new device block and describes it as an ND tensor of `shape` and `dtype`.
template <class T>
int MakeTensor(const std::vector<T>& values, const std::vector<int64_t>& shape, aclDataType dtype,
               DeviceTensor* made) {
  const size_t bytes = values.size() * sizeof(T);
  auto ret = aclrtMalloc(&made->deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(made->deviceAddr, bytes, values.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  made->tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0,
                                 ACL_FORMAT_ND, shape.data(), shape.size(), made->deviceAddr);
  return ACL_SUCCESS;
}

void Release(DeviceTensor* tensor) {
  aclDestroyTensor(tensor->tensor);
  aclrtFree(tensor->deviceAddr);
}

int main() {
  const int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  auto ret = SetUp(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("SetUp failed. ERROR: %d\n", ret); return ret);

  const std::vector<int64_t> inputShape = {2, 5};
  const std::vector<int64_t> targetShape = {2};
  const std::vector<int64_t> lossShape = {1};
  const std::vector<int64_t> lseShape = {2};
  DeviceTensor input, target, loss, logProb, zloss, lseForZloss;
  ret = MakeTensor<float>({5, 0, 3, 3, 7, 9, 3, 5, 2, 4}, inputShape, ACL_FLOAT, &input);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor<int64_t>({0, 0}, targetShape, ACL_INT64, &target);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor<float>({0}, lossShape, ACL_FLOAT, &loss);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor<float>(std::vector<float>(ElementCount(inputShape), 0.0f), inputShape, ACL_FLOAT,
                          &logProb);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor<float>({0}, lossShape, ACL_FLOAT, &zloss);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor<float>({0, 0}, lseShape, ACL_FLOAT, &lseForZloss);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  char* reduction = const_cast<char*>("mean");
  const int64_t ignoreIndex = -100;
  const double labelSmoothing = 0.0;
  const double lseSquareScaleForZloss = 0.0;
  const bool returnZloss = false;

  // Phase 1: the checks, the plan and the workspace it needs.
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnCrossEntropyLossGetWorkspaceSize(
      input.tensor, target.tensor, nullptr, reduction, ignoreIndex, labelSmoothing,
      lseSquareScaleForZloss, returnZloss, loss.tensor, logProb.tensor, zloss.tensor,
      lseForZloss.tensor, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnCrossEntropyLossGetWorkspaceSize failed. ERROR: %d\n[ERROR msg]%s", ret,
                      aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  // Phase 2: queue the computation on the stream, then wait for it.
  ret = aclnnCrossEntropyLoss(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCrossEntropyLoss failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n[ERROR msg]%s",
                                          ret, aclGetRecentErrMsg());
            return ret);

  // The mean loss, then the rows' log-probabilities.
  for (DeviceTensor* result : {&loss, &logProb}) {
    const int64_t count = result == &loss ? 1 : ElementCount(inputShape);
    std::vector<float> values(count, 0.0f);
    ret = aclrtMemcpy(values.data(), count * sizeof(float), result->deviceAddr,
                      count * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
              return ret);
    for (int64_t i = 0; i < count; i++) {
      LOG_PRINT("%s[%ld] is: %f\n", result == &loss ? "loss" : "logProb", static_cast<long>(i),
                values[i]);
    }
  }

  for (DeviceTensor* tensor : {&input, &target, &loss, &logProb, &zloss, &lseForZloss}) {
    Release(tensor);
  }
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
