// What CANN's samples write in each program, written once for this folder's newer samples: the
// CHECK_RET and LOG_PRINT macros, device and stream set-up, fp32 device tensors, the workspace,
// and the result printed as CANN's samples print it ("result[i] is: %f"). Plain acl calls only,
// so a sample that includes it builds unchanged against CANN or OpenACLNN.
#ifndef OPENACLNN_EXAMPLES_ACL_SAMPLE_H_
#define OPENACLNN_EXAMPLES_ACL_SAMPLE_H_

#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

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

// A contiguous fp32 tensor: its device block and the aclTensor describing it.
struct Fp32Tensor {
  void* deviceAddr = nullptr;
  aclTensor* tensor = nullptr;
};

inline int SetUp(int32_t deviceId, aclrtStream* stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret);
            return ret);
  return ACL_SUCCESS;
}

// Copies `values` to a new device block and describes it as an ND tensor of `shape`.
inline int MakeTensor(const std::vector<float>& values, const std::vector<int64_t>& shape,
                      Fp32Tensor* made) {
  const size_t bytes = values.size() * sizeof(float);
  auto ret = aclrtMalloc(&made->deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(made->deviceAddr, bytes, values.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  made->tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0,
                                 ACL_FORMAT_ND, shape.data(), shape.size(), made->deviceAddr);
  return ACL_SUCCESS;
}

inline void Release(Fp32Tensor* tensor) {
  aclDestroyTensor(tensor->tensor);
  aclrtFree(tensor->deviceAddr);
}

// The device block phase 1 asked for (none for 0 bytes).
inline int AllocateWorkspace(uint64_t workspaceSize, void** workspaceAddr) {
  *workspaceAddr = nullptr;
  if (workspaceSize == 0) return ACL_SUCCESS;
  auto ret = aclrtMalloc(workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
            return ret);
  return ACL_SUCCESS;
}

// Waits for the stream, then copies `count` results of `out` to the host and prints them.
inline int WaitAndPrint(aclrtStream stream, const Fp32Tensor& out, int64_t count) {
  auto ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);
  std::vector<float> result(count, 0.0f);
  ret = aclrtMemcpy(result.data(), count * sizeof(float), out.deviceAddr, count * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  for (int64_t i = 0; i < count; i++) {
    LOG_PRINT("result[%ld] is: %f\n", static_cast<long>(i), result[i]);
  }
  return ACL_SUCCESS;
}

inline void TearDown(int32_t deviceId, aclrtStream stream, void* workspaceAddr) {
  if (workspaceAddr != nullptr) aclrtFree(workspaceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
}

#endif  // OPENACLNN_EXAMPLES_ACL_SAMPLE_H_
