// Hostile and careless use of the C API: objects destroyed between the phases, dead streams,
// sizes at the edge of int64, out-of-range enums from C, copies past the end of a block. Each
// case once corrupted memory, leaked or returned a wrong status (AddressSanitizer, UBSan and
// LeakSanitizer catch what a status check cannot; the suite runs this file under them).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "op_tester.h"

extern "C" {
aclTensor* CreateTensorWithRawEnums(const int64_t* shape, uint64_t rank, int dtype, int format,
                                    void* data);
int RawDataType(const aclTensor* tensor);
int RawFormat(const aclTensor* tensor);
}

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr float kSentinel = 12345.0f;

// A tensor the test destroys itself (DeviceTensor would destroy it again).
aclTensor* Alias(const DeviceTensor& owner, const Shape& shape) {
  return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                         shape.data(), shape.size(), owner.device());
}

aclnnStatus Forward(const aclTensor* self, const aclTensor* target, int64_t reduction,
                    aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
      self, target, nullptr, nullptr, reduction, out, workspace_size, executor);
}

aclnnStatus Launch(aclOpExecutor* executor, aclrtStream stream = AclEnvironment::stream) {
  return aclnnBinaryCrossEntropyWithLogits(nullptr, 0, executor, stream);
}

// Allocates the workspace phase 1 asked for, launches and synchronizes; the caller frees it.
aclnnStatus LaunchWithWorkspace(aclOpExecutor* executor, uint64_t workspace_size,
                                void** workspace) {
  EXPECT_EQ(aclrtMalloc(workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const aclnnStatus status = aclnnBinaryCrossEntropyWithLogits(*workspace, workspace_size, executor,
                                                               AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  return status;
}

// --- Item 1: a tensor destroyed between phase 1 and phase 2 ---

TEST(SafetyLifecycle, PhaseTwoAfterAnInputWasDestroyedFailsAndWritesNothing) {
  DeviceTensor storage({4}, ACL_FLOAT, {1, 2, 3, 4});
  DeviceTensor target({4}, ACL_FLOAT, {0, 1, 0, 1}), out({4}, ACL_FLOAT, std::vector(4, kSentinel));
  aclTensor* self = Alias(storage, {4});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(Forward(self, target.get(), 0, out.get(), &workspace_size, &executor), ACLNN_SUCCESS);
  ASSERT_EQ(aclDestroyTensor(self), ACLNN_SUCCESS);
  EXPECT_EQ(Launch(executor), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("input 0 of the executor"));
  ASSERT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  EXPECT_EQ(out.Read(), std::vector(4, kSentinel));
}

TEST(SafetyLifecycle, ARepeatableExecutorRelaunchedAfterItsOutWasDestroyedFails) {
  DeviceTensor self({4}, ACL_FLOAT, {1, 2, 3, 4}), target({4}, ACL_FLOAT, {0, 1, 0, 1});
  DeviceTensor storage({1}, ACL_FLOAT, {kSentinel});
  aclTensor* out = Alias(storage, {1});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(Forward(self.get(), target.get(), 2, out, &workspace_size, &executor), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  void* workspace = nullptr;
  ASSERT_EQ(LaunchWithWorkspace(executor, workspace_size, &workspace), ACLNN_SUCCESS);
  ASSERT_EQ(aclDestroyTensor(out), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(storage.device(), 4, &kSentinel, 4, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogits(workspace, workspace_size, executor,
                                              AclEnvironment::stream),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("output 0 of the executor"));
  ASSERT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  EXPECT_EQ(storage.Read()[0], kSentinel);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  aclrtFree(workspace);
}

// --- Item 2: aclSet*TensorAddr naming a destroyed tensor ---

class SafetySetAddress : public ::testing::Test {
 protected:
  void SetUp() override {
    self_ = Alias(self_storage_, {4});
    out_ = Alias(out_storage_, {4});
    uint64_t workspace_size = 0;
    ASSERT_EQ(Forward(self_, target_.get(), 0, out_, &workspace_size, &executor_), ACLNN_SUCCESS);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor_), ACLNN_SUCCESS);
    ASSERT_EQ(aclDestroyTensor(self_), ACLNN_SUCCESS);
    ASSERT_EQ(aclDestroyTensor(out_), ACLNN_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(aclDestroyAclOpExecutor(executor_), ACLNN_SUCCESS); }

  DeviceTensor self_storage_{{4}, ACL_FLOAT, {1, 2, 3, 4}};
  DeviceTensor target_{{4}, ACL_FLOAT, {0, 1, 0, 1}};
  DeviceTensor out_storage_{{4}, ACL_FLOAT, {}};
  DeviceTensor spare_{{4}, ACL_FLOAT, {}};
  aclTensor* self_ = nullptr;
  aclTensor* out_ = nullptr;
  aclOpExecutor* executor_ = nullptr;
};

TEST_F(SafetySetAddress, EveryVariantRejectsADestroyedTensor) {
  using Setter = aclnnStatus (*)(aclOpExecutor*, size_t, aclTensor*, void*);
  struct Case {
    Setter set;
    size_t index;
    aclTensor* tensor;
    const char* role;
  };
  const Case cases[] = {
      {aclSetInputTensorAddr, 0, self_, "input 0"},  {AclSetInputTensorAddr, 0, self_, "input 0"},
      {aclSetOutputTensorAddr, 0, out_, "output 0"}, {AclSetOutputTensorAddr, 0, out_, "output 0"},
      {aclSetTensorAddr, 0, self_, "input 0"},       {aclSetTensorAddr, 4, out_, "output 0"},
      {AclSetTensorAddr, 4, out_, "output 0"}};
  for (const Case& c : cases) {
    EXPECT_EQ(c.set(executor_, c.index, c.tensor, spare_.device()), ACLNN_ERR_PARAM_INVALID)
        << c.role;
    EXPECT_TRUE(ErrorMentions(c.role));
  }
  EXPECT_EQ(Launch(executor_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("destroyed"));
}

TEST_F(SafetySetAddress, ALiveTensorInTheSlotOfADestroyedOneIsRejected) {
  EXPECT_EQ(aclSetInputTensorAddr(executor_, 1, self_, spare_.device()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetInputTensorAddr(executor_, 0, spare_.get(), spare_.device()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("destroyed"));
}

TEST_F(SafetySetAddress, DynamicVariantsRejectDestroyedExecutorsAndLists) {
  const aclTensor* members[] = {Alias(spare_, {4})};  // the list owns it
  aclTensorList* list = aclCreateTensorList(members, 1);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(aclSetDynamicInputTensorAddr(executor_, 0, 0, list, spare_.device()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetDynamicOutputTensorAddr(executor_, 0, 0, list, spare_.device()),
            ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
  EXPECT_EQ(aclSetDynamicTensorAddr(executor_, 0, 0, list, spare_.device()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("not a live aclTensorList"));
}

// --- Item 3: empty launches check their stream too ---

TEST(SafetyStreams, AnEmptyLaunchOnADestroyedStreamFailsAsANonEmptyOneDoes) {
  aclrtStream dead = nullptr;
  ASSERT_EQ(aclrtCreateStream(&dead), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(dead), ACL_SUCCESS);
  for (const Shape& shape : {Shape{0}, Shape{3}}) {
    DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}),
        out(shape, ACL_FLOAT, {});
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(Forward(self.get(), target.get(), 0, out.get(), &workspace_size, &executor),
              ACLNN_SUCCESS);
    EXPECT_EQ(Launch(executor, dead), ACLNN_ERR_RUNTIME_ERROR) << shape[0];
    EXPECT_TRUE(ErrorMentions("not usable"));
  }
}

// --- Item 4: aclrtDestroyStreamForce releases what it drops (LeakSanitizer checks) ---

void SleepCallback(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

TEST(SafetyStreams, ForceDestroyReleasesQueuedLaunches) {
  constexpr int64_t kCount = 1 << 16;
  DeviceTensor self({kCount}, ACL_FLOAT, {}), target({kCount}, ACL_FLOAT, {});
  DeviceTensor out({1}, ACL_FLOAT, {});
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  // The worker sleeps in the callback while everything after it stays queued.
  ASSERT_EQ(aclrtLaunchCallback(SleepCallback, nullptr, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
  std::vector<void*> workspaces;
  for (int i = 0; i < 20; ++i) {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(Forward(self.get(), target.get(), 1, out.get(), &workspace_size, &executor),
              ACLNN_SUCCESS);
    workspaces.push_back(nullptr);
    ASSERT_EQ(aclrtMalloc(&workspaces.back(), workspace_size, ACL_MEM_MALLOC_HUGE_FIRST),
              ACL_SUCCESS);
    ASSERT_EQ(
        aclnnBinaryCrossEntropyWithLogits(workspaces.back(), workspace_size, executor, stream),
        ACLNN_SUCCESS);
  }
  // LeakSanitizer (sanitizer stage) reports the executors if the dropped launches keep them.
  ASSERT_EQ(aclrtDestroyStreamForce(stream), ACL_SUCCESS);
  for (void* workspace : workspaces) aclrtFree(workspace);
}

TEST(SafetyStreams, ForceDestroyCompletesQueuedEventRecords) {
  aclrtStream stream = nullptr;
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchCallback(SleepCallback, nullptr, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStreamForce(stream), ACL_SUCCESS);
  // The dropped record must not leave a waiter blocked forever.
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

// --- Item 5: OPENACLNN_NUM_THREADS (ctest runs this again with huge and malformed values) ---

TEST(SafetyThreads, AMeanOverAMillionElementsMatchesFp64) {
  constexpr int64_t kCount = 1 << 20;
  std::vector<float> x(kCount), t(kCount);
  for (int64_t i = 0; i < kCount; ++i) {
    x[i] = static_cast<float>(i % 1001) / 100.0f - 5.0f;
    t[i] = static_cast<float>(i % 7) / 6.0f;
  }
  DeviceTensor self({kCount}, ACL_FLOAT, x), target({kCount}, ACL_FLOAT, t),
      out({1}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(Forward(self.get(), target.get(), 1, out.get(), &workspace_size, &executor),
            ACLNN_SUCCESS);
  void* workspace = nullptr;
  ASSERT_EQ(LaunchWithWorkspace(executor, workspace_size, &workspace), ACLNN_SUCCESS);
  double exact = 0;
  for (int64_t i = 0; i < kCount; ++i) exact += ExactLoss(x[i], t[i], 1, 1);
  exact /= kCount;
  EXPECT_NEAR(out.Read()[0], exact, 1e-6 * exact);
  aclrtFree(workspace);
}

// --- Items 6-8: sizes, strides and offsets at the edge of int64 ---

TEST(SafetySizes, DefaultStridesThatOverflowAreRejected) {
  const int64_t shape[] = {0, int64_t{1} << 32, int64_t{1} << 32};
  EXPECT_EQ(aclCreateTensor(shape, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 3, nullptr),
            nullptr);
  EXPECT_TRUE(ErrorMentions("strides"));
}

// Phase 1 only (no data needed): the status, and the workspace size on success.
aclnnStatus PlanMeanOver(int64_t count, aclDataType dtype, uint64_t* workspace_size) {
  const int64_t shape[] = {count}, one[] = {1};
  aclTensor* self = aclCreateTensor(shape, 1, dtype, nullptr, 0, ACL_FORMAT_ND, shape, 1, nullptr);
  aclTensor* target =
      aclCreateTensor(shape, 1, dtype, nullptr, 0, ACL_FORMAT_ND, shape, 1, nullptr);
  aclTensor* out = aclCreateTensor(one, 1, dtype, nullptr, 0, ACL_FORMAT_ND, one, 1, nullptr);
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = Forward(self, target, 1, out, workspace_size, &executor);
  if (status == ACLNN_SUCCESS) {
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  }
  for (aclTensor* tensor : {self, target, out}) aclDestroyTensor(tensor);
  return status;
}

TEST(SafetySizes, AMeanOverInt64MaxElementsIsRejectedAsUnaddressable) {
  uint64_t workspace_size = 0;
  EXPECT_EQ(PlanMeanOver(kInt64Max, ACL_FLOAT, &workspace_size), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("beyond 2^63 bytes"));
}

TEST(SafetySizes, TheWorkspaceOfTheLargestAddressableMeanIsExact) {
  const int64_t count = kInt64Max / 2;  // fp16: the last byte is byte 2^63 - 2
  uint64_t workspace_size = 0;
  ASSERT_EQ(PlanMeanOver(count, ACL_FLOAT16, &workspace_size), ACLNN_SUCCESS);
  // Per started block of 4096 elements: its fp64 sum and error bound; then one exact sum (71
  // words) and two words more (docs/contract/checks-and-codes.md).
  const uint64_t blocks = (static_cast<uint64_t>(count) + 4095) / 4096;
  EXPECT_EQ(workspace_size, blocks * 2 * sizeof(double) + 73 * sizeof(uint64_t));
}

TEST(SafetySizes, AViewWhoseByteAddressOverflowsIsRejectedInPhaseOne) {
  DeviceTensor self({0}, ACL_FLOAT, {}), target({0}, ACL_FLOAT, {}), storage({1}, ACL_FLOAT, {});
  const int64_t one[] = {1}, huge_stride[] = {4}, storage_shape[] = {kInt64Max};
  aclTensor* out = aclCreateTensor(one, 1, ACL_FLOAT, huge_stride, kInt64Max - 1, ACL_FORMAT_ND,
                                   storage_shape, 1, storage.device());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(Forward(self.get(), target.get(), 1, out, &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("bytes"));
  aclDestroyTensor(out);
}

TEST(SafetySizes, AHugeStrideOfAOneElementOutIsNeverSteppedAlong) {
  DeviceTensor self({0}, ACL_FLOAT, {}), target({0}, ACL_FLOAT, {});
  DeviceTensor storage({5}, ACL_FLOAT, std::vector(5, kSentinel));
  const int64_t one[] = {1}, huge_stride[] = {kInt64Max - 1}, storage_shape[] = {5};
  aclTensor* out = aclCreateTensor(one, 1, ACL_FLOAT, huge_stride, 4, ACL_FORMAT_ND, storage_shape,
                                   1, storage.device());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(Forward(self.get(), target.get(), 1, out, &workspace_size, &executor), ACLNN_SUCCESS);
  ASSERT_EQ(Launch(executor), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  const std::vector<float> got = storage.Read();
  EXPECT_TRUE(std::isnan(got[4]));  // the mean over no elements
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], kSentinel);
  aclDestroyTensor(out);
}

// --- Item 9: enum values a C caller may pass ---

TEST(SafetyEnums, OutOfRangeDtypeAndFormatAreKeptAndRejectedWhereUsed) {
  DeviceTensor target({2}, ACL_FLOAT, {}), out({2}, ACL_FLOAT, {});
  const int64_t shape[] = {2};
  aclTensor* bad_dtype = CreateTensorWithRawEnums(shape, 1, 1000, ACL_FORMAT_ND, target.device());
  aclTensor* bad_format = CreateTensorWithRawEnums(shape, 1, ACL_FLOAT, 77, target.device());
  ASSERT_NE(bad_dtype, nullptr);
  ASSERT_NE(bad_format, nullptr);
  EXPECT_EQ(RawDataType(bad_dtype), 1000);
  EXPECT_EQ(RawFormat(bad_format), 77);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(Forward(bad_dtype, target.get(), 0, out.get(), &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("1000"));
  EXPECT_EQ(Forward(bad_format, target.get(), 0, out.get(), &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("format 77"));
  aclDestroyTensor(bad_dtype);
  aclDestroyTensor(bad_format);
}

// --- Item 10: copies and fills that would run past the end of an aclrtMalloc block ---

class SafetyMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclrtMalloc(&block_, kBlock, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  void TearDown() override { aclrtFree(block_); }
  char* at(size_t offset) const { return static_cast<char*>(block_) + offset; }

  static constexpr size_t kBlock = 64;
  static constexpr size_t kBig = 1 << 20;
  void* block_ = nullptr;
  std::vector<char> host_ = std::vector<char>(kBig, 7);
};

TEST_F(SafetyMemory, CopiesPastTheEndOfABlockAreRejected) {
  EXPECT_EQ(aclrtMemcpy(block_, kBig, host_.data(), kBig, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(ErrorMentions("64-byte block"));
  EXPECT_EQ(aclrtMemcpy(at(32), kBig, host_.data(), 33, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(host_.data(), kBig, at(8), 57, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(ErrorMentions("src"));
  EXPECT_EQ(aclrtMemcpyAsync(at(1), kBig, host_.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE,
                             AclEnvironment::stream),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy2d(block_, 32, host_.data(), 32, 32, 3, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  // What fits still works, up to the last byte.
  EXPECT_EQ(aclrtMemcpy(at(32), kBig, host_.data(), 32, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy2d(block_, 32, host_.data(), 32, 32, 2, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
}

TEST_F(SafetyMemory, FillsPastTheEndOfABlockAreRejected) {
  EXPECT_EQ(aclrtMemset(block_, kBig, 0, kBig), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(ErrorMentions("devPtr"));
  EXPECT_EQ(aclrtMemsetAsync(at(60), kBig, 0, 5, AclEnvironment::stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(at(60), kBig, 0, 4), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
}

}  // namespace
}  // namespace openaclnn::testing
