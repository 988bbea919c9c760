// aclnnNLLLoss as CANN's sample calls it: self [2,3] = 0..5 (log-probabilities), int32 targets
// {0, 2}, weight {1.1, 1.2, 1.3}, reduction none. Builds unchanged against CANN or OpenACLNN.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_nll_loss.h"

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

  const std::vector<int64_t> selfShape = {2, 3};
  const std::vector<int64_t> targetShape = {2};
  const std::vector<int64_t> weightShape = {3};
  const std::vector<int64_t> outShape = {2};
  const std::vector<int64_t> totalWeightShape = {1};
  DeviceTensor self, target, weight, out, totalWeight;
  ret = MakeTensor<float>({0, 1, 2, 3, 4, 5}, selfShape, ACL_FLOAT, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor<int32_t>({0, 2}, targetShape, ACL_INT32, &target);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor<float>({1.1, 1.2, 1.3}, weightShape, ACL_FLOAT, &weight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor<float>(std::vector<float>(ElementCount(outShape), 0.0f), outShape, ACL_FLOAT,
                          &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor<float>({0}, totalWeightShape, ACL_FLOAT, &totalWeight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  const int64_t reduction = 0;  // none
  const int64_t ignoreIndex = -100;

  // Phase 1: the checks, the plan and the workspace it needs.
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnNLLLossGetWorkspaceSize(self.tensor, target.tensor, weight.tensor, reduction,
                                     ignoreIndex, out.tensor, totalWeight.tensor, &workspaceSize,
                                     &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnNLLLossGetWorkspaceSize failed. ERROR: %d\n[ERROR msg]%s", ret,
                      aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  // Phase 2: queue the computation on the stream, then wait for it.
  ret = aclnnNLLLoss(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnNLLLoss failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n[ERROR msg]%s",
                                          ret, aclGetRecentErrMsg());
            return ret);

  const int64_t count = ElementCount(outShape);
  std::vector<float> result(count, 0.0f);
  ret = aclrtMemcpy(result.data(), count * sizeof(float), out.deviceAddr, count * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  for (int64_t i = 0; i < count; i++) {
    LOG_PRINT("result[%ld] is: %f\n", static_cast<long>(i), result[i]);
  }

  for (DeviceTensor* tensor : {&self, &target, &weight, &out, &totalWeight}) Release(tensor);
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
