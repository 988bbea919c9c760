// aclnnSmoothL1Loss as CANN's sample calls it: [2,2,7,7] FLOAT16 tensors whose device blocks are
// filled from float host vectors of 1.0 (so each tensor's halves are the bytes of those floats:
// 0 and 1.875 in turn, self and target alike), reduction none, beta 1; the fp16 result is read
// back as floats, as the sample does. Builds unchanged against CANN or OpenACLNN.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_smooth_l1_loss.h"

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

// A tensor's device block and the aclTensor describing it.
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

// As CANN's sample: a block of one host element per tensor element, sized by the host type
// (float here), copied from `host`, described as a contiguous ND tensor of `dataType`.
template <typename T>
int MakeTensor(const std::vector<T>& host, const std::vector<int64_t>& shape, aclDataType dataType,
               DeviceTensor* made) {
  const size_t bytes = ElementCount(shape) * sizeof(T);
  auto ret = aclrtMalloc(&made->deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(made->deviceAddr, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  made->tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0,
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

  const std::vector<int64_t> shape = {2, 2, 7, 7};
  const int64_t count = ElementCount(shape);
  DeviceTensor self, target, result;
  ret = MakeTensor(std::vector<float>(count * 2, 1.0f), shape, ACL_FLOAT16, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor(std::vector<float>(count * 2, 1.0f), shape, ACL_FLOAT16, &target);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = MakeTensor(std::vector<float>(count * 2, 1.0f), shape, ACL_FLOAT16, &result);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  const int64_t reduction = 0;  // none
  const float beta = 1.0f;

  // Phase 1: the checks, the plan and the workspace it needs.
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnSmoothL1LossGetWorkspaceSize(self.tensor, target.tensor, reduction, beta,
                                          result.tensor, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnSmoothL1LossGetWorkspaceSize failed. ERROR: %d\n[ERROR msg]%s", ret,
                      aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  // Phase 2: queue the computation on the stream, then wait for it.
  ret = aclnnSmoothL1Loss(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnSmoothL1Loss failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  // Read back as the sample does: the result's block as `count` floats.
  std::vector<float> resultData(count, 0.0f);
  ret = aclrtMemcpy(resultData.data(), count * sizeof(float), result.deviceAddr,
                    count * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  for (int64_t i = 0; i < count; i++) {
    LOG_PRINT("result[%ld] is: %f\n", static_cast<long>(i), resultData[i]);
  }

  for (DeviceTensor* tensor : {&self, &target, &result}) Release(tensor);
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
