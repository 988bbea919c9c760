// OPENACLNN_DEVICE=cuda (set by CTest) on a machine without a GPU or without a driver: the
// backend reports zero devices and every call that needs one fails with a code and a message
// that says so; nothing crashes. On a machine with a GPU these tests are skipped (the suites run
// there instead: see scripts/gpu-check.sh).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

namespace {

bool HasCudaDevice() {
  uint32_t count = 0;
  return aclrtGetDeviceCount(&count) == ACL_SUCCESS && count > 0;
}

class NoCudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_STREQ(std::getenv("OPENACLNN_DEVICE"), "cuda") << "run through CTest";
    if (HasCudaDevice()) GTEST_SKIP() << "a CUDA device is present";
    aclGetRecentErrMsg();  // start each test with an empty error queue
  }
};

TEST_F(NoCudaDevice, ReportsZeroDevicesWithTheReason) {
  uint32_t count = 7;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_ERROR_RT_NO_DEVICE);
  EXPECT_EQ(count, 0u);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("no CUDA device"), std::string::npos);
}

TEST_F(NoCudaDevice, SetDeviceFailsWithACodeAndAMessage) {
  EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_RT_NO_DEVICE);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find("aclrtSetDevice"), std::string::npos) << message;
  EXPECT_NE(message.find("no CUDA device"), std::string::npos) << message;
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(NoCudaDevice, MemoryAndStreamsNeedADevice) {
  void* memory = nullptr;
  EXPECT_EQ(aclrtMalloc(&memory, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(memory, nullptr);
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_RT_CONTEXT_NULL);
  // Host memory needs no device: it falls back to plain host memory.
  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 64), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemset(host, 64, 0, 64), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
}

TEST_F(NoCudaDevice, OpPhaseOneSaysThereIsNoDevice) {
  int64_t shape[] = {4};
  float values[4] = {};
  aclTensor* self =
      aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, values);
  aclTensor* target =
      aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, values);
  aclTensor* out =
      aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, values);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(self, target, nullptr, nullptr, 0,
                                                              out, &workspace, &executor),
            ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_EQ(executor, nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("no CUDA device"), std::string::npos);
  aclDestroyTensor(self);
  aclDestroyTensor(target);
  aclDestroyTensor(out);
}

}  // namespace
