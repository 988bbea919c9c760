// The ACL runtime C API, called as CANN programs call it. The suite runs on every backend
// (tests/cuda runs it with OPENACLNN_DEVICE=cuda): what holds only where device memory is host
// memory and streams are the runtime's own worker threads (the cpu backend) is checked only there.
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "callback_gate.h"

namespace {

using Clock = std::chrono::steady_clock;

void AppendIndex(void* data) {
  auto* pair = static_cast<std::pair<std::vector<int>*, int>*>(data);
  pair->first->push_back(pair->second);
}

void Sleep20ms(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }

// The cpu backend (OPENACLNN_DEVICE unset, empty or "cpu"): device memory is host memory the test
// may touch directly, and a stream is a worker thread whose queued work can be dropped.
bool HostBackend() {
  const char* device = std::getenv("OPENACLNN_DEVICE");
  return device == nullptr || device[0] == '\0' || std::strcmp(device, "cpu") == 0;
}

uint32_t DeviceCount() {
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  return count;
}

// Pinned host memory (aclrtMallocHost): what a GPU copies to and from asynchronously; a copy
// with pageable memory may wait for its stream there, and a stream held by a gate never drains.
struct HostBuffer {
  HostBuffer(size_t bytes, uint8_t fill) : size(bytes) {
    EXPECT_EQ(aclrtMallocHost(reinterpret_cast<void**>(&data), size), ACL_SUCCESS);
    std::memset(data, fill, size);
  }
  ~HostBuffer() { EXPECT_EQ(aclrtFreeHost(data), ACL_SUCCESS); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  bool operator==(const HostBuffer& other) const {
    return size == other.size && std::memcmp(data, other.data, size) == 0;
  }
  uint8_t* data = nullptr;
  size_t size;
};

class Runtime : public ::testing::Test {
 protected:
  void SetUp() override {
    aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS); }
};

// ---- init, devices, contexts ---------------------------------------------------------------

TEST(Init, RepeatInitAndFinalizeReportTheirCodes) {
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  uint64_t references = 0;
  EXPECT_EQ(aclFinalizeReference(&references), ACL_SUCCESS);
  EXPECT_EQ(references, 1u);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  EXPECT_EQ(aclFinalizeReference(&references), ACL_ERROR_REPEAT_FINALIZE);
}

TEST(Init, ConfigFileMustExist) {
  EXPECT_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
  char path[] = "/tmp/openaclnn_acl_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "{}", 2), 2);
  close(fd);
  EXPECT_EQ(aclInit(path), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  unlink(path);
}

TEST(Init, FinalizeReleasesDevicesAndStreams) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST(Device, CountAndIdsAreChecked) {
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_GE(count, 1u);
  EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtSetDevice(static_cast<int32_t>(count)), ACL_ERROR_RT_INVALID_DEVICEID);
  const std::string text = aclGetRecentErrMsg();
  EXPECT_NE(text.find("deviceId"), std::string::npos) << text;
}

TEST(Device, GetDeviceNeedsSetDeviceAndIsPerThread) {
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  aclError other = ACL_SUCCESS;
  std::thread([&] {
    int32_t id = 0;
    other = aclrtGetDevice(&id);
  }).join();
  EXPECT_EQ(other, ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

TEST(Device, SetDeviceIsReferenceCounted) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // one reference left
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);  // released with it
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST(Device, ResetDeviceForceDropsAllReferences) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDeviceForce(0), ACL_SUCCESS);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(Runtime, RunModeVersionPeerAndCapabilities) {
  aclrtRunMode mode = ACL_DEVICE;
  EXPECT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
  EXPECT_EQ(mode, ACL_HOST);
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
  int32_t major = 0, minor = 0, patch = -1;
  EXPECT_EQ(aclrtGetVersion(&major, &minor, &patch), ACL_SUCCESS);
  EXPECT_EQ(major, ACL_MAJOR_VERSION);
  EXPECT_EQ(minor, ACL_MINOR_VERSION);
  EXPECT_EQ(patch, ACL_PATCH_VERSION);
  EXPECT_EQ(aclrtGetVersion(&major, nullptr, &patch), ACL_ERROR_INVALID_PARAM);
  int32_t peer = -1;
  EXPECT_EQ(aclrtDeviceCanAccessPeer(&peer, 0, 0), ACL_SUCCESS);
  EXPECT_EQ(peer, 0);
  EXPECT_EQ(aclrtDeviceCanAccessPeer(&peer, 0, static_cast<int32_t>(DeviceCount())),
            ACL_ERROR_RT_INVALID_DEVICEID);
  int64_t cores = 0;
  EXPECT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cores), ACL_SUCCESS);
  EXPECT_GE(cores, 1);
  EXPECT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &cores), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetDeviceCapability(static_cast<int32_t>(DeviceCount()), ACL_DEVICE_INFO_AI_CORE_NUM,
                                   &cores),
            ACL_ERROR_RT_INVALID_DEVICEID);
}

TEST_F(Runtime, ContextsSwitchAndDie) {
  aclrtContext primary = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&primary), ACL_SUCCESS);
  aclrtContext mine = nullptr;
  ASSERT_EQ(aclrtCreateContext(&mine, 0), ACL_SUCCESS);
  aclrtContext current = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  EXPECT_EQ(current, mine);
  EXPECT_NE(mine, primary);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetCurrentContext(primary), ACL_SUCCESS);
  ASSERT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  EXPECT_EQ(current, primary);
  EXPECT_EQ(aclrtDestroyContext(primary), ACL_ERROR_INVALID_PARAM);  // owned by the device
  ASSERT_EQ(aclrtDestroyContext(mine), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);  // died with it
  EXPECT_EQ(aclrtDestroyContext(mine), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetCurrentContext(mine), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateContext(nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateContext(&mine, static_cast<int32_t>(DeviceCount())),
            ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtGetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(Context, DestroyingTheCurrentContextLeavesTheThreadWithout) {
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
  aclrtContext current = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&current), ACL_ERROR_RT_CONTEXT_NULL);
}

// ---- memory -------------------------------------------------------------------------------

TEST_F(Runtime, MallocAlignsAndHonoursEveryPolicy) {
  for (const aclrtMemMallocPolicy policy :
       {ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY,
        ACL_MEM_MALLOC_HUGE_FIRST_P2P, static_cast<aclrtMemMallocPolicy>(12345)}) {
    void* small = nullptr;
    ASSERT_EQ(aclrtMalloc(&small, 1, policy), ACL_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
    EXPECT_EQ(aclrtMemset(small, 32, 0xAB, 32), ACL_SUCCESS);  // rounded up to 32 bytes
    void* large = nullptr;
    ASSERT_EQ(aclrtMalloc(&large, (size_t{4} << 20) + 3, policy), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(large, (size_t{4} << 20) + 32, 0xCD, (size_t{4} << 20) + 32),
              ACL_SUCCESS);
    // Host memory comes in huge pages (a GPU's allocator promises only its own alignment).
    if (HostBackend()) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % (size_t{2} << 20), 0u);
    }
    EXPECT_EQ(aclrtFree(small), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(large), ACL_SUCCESS);
  }
  void* aligned = nullptr;
  ASSERT_EQ(aclrtMallocAlign32(&aligned, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 32, 0u);
  EXPECT_EQ(aclrtFree(aligned), ACL_SUCCESS);
}

TEST_F(Runtime, MallocRejectsBadArguments) {
  void* block = nullptr;
  EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&block, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMallocHost(nullptr, 16), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMallocHost(&block, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&block, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_EQ(aclrtMalloc(&block, size_t{1} << 60, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_RT_MEMORY_ALLOCATION);
}

TEST(Memory, DeviceMallocNeedsADevice) {
  void* block = nullptr;
  EXPECT_EQ(aclrtMalloc(&block, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
  ASSERT_EQ(aclrtMallocHost(&block, 16), ACL_SUCCESS);  // host memory does not
  EXPECT_EQ(aclrtFreeHost(block), ACL_SUCCESS);
}

TEST_F(Runtime, FreeRejectsUnknownForeignAndDoubleFreedPointers) {
  void* device = nullptr;
  void* host = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMallocHost(&host, 128), ACL_SUCCESS);
  int local = 0;
  EXPECT_EQ(aclrtFree(&local), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(static_cast<char*>(device) + 64), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(host), ACL_ERROR_INVALID_PARAM);        // wrong kind
  EXPECT_EQ(aclrtFreeHost(device), ACL_ERROR_INVALID_PARAM);  // wrong kind
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(device), ACL_ERROR_INVALID_PARAM);  // double free
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  const std::string text = aclGetRecentErrMsg();
  EXPECT_NE(text.find("already freed"), std::string::npos) << text;
}

TEST_F(Runtime, MemcpyEveryKindAndEveryErrorPath) {
  std::vector<uint8_t> host(256), back(256);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint8_t>(i * 7 + 1);
  void* device = nullptr;
  void* device2 = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&device2, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(device, 256, host.data(), 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(device2, 256, device, 256, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(back.data(), 256, device2, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, host);
  std::vector<uint8_t> copy(256);
  EXPECT_EQ(aclrtMemcpy(copy.data(), 256, host.data(), 256, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(copy, host);
  std::fill(copy.begin(), copy.end(), 0);
  EXPECT_EQ(aclrtMemcpy(copy.data(), 256, device, 100, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
  EXPECT_TRUE(std::equal(copy.begin(), copy.begin() + 100, host.begin()));
  EXPECT_EQ(copy[100], 0);

  EXPECT_EQ(aclrtMemcpy(device, 256, host.data(), 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(nullptr, 256, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(device, 256, nullptr, 16, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(device, 16, host.data(), 17, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(device, 256, host.data(), 16, static_cast<aclrtMemcpyKind>(8)),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(device, 256, host.data(), 16, static_cast<aclrtMemcpyKind>(-1)),
            ACL_ERROR_INVALID_PARAM);
  const std::string text = aclGetRecentErrMsg();
  EXPECT_NE(text.find("Value 17 for count is invalid"), std::string::npos) << text;
  EXPECT_NE(text.find("Argument dst must not be null"), std::string::npos) << text;
  EXPECT_NE(text.find("for kind is invalid"), std::string::npos) << text;
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(device2), ACL_SUCCESS);
}

TEST_F(Runtime, Memcpy2dCopiesRowsBetweenPitches) {
  std::vector<uint8_t> source(4 * 10), target(4 * 6, 0xEE);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i);
  ASSERT_EQ(aclrtMemcpy2d(target.data(), 6, source.data(), 10, 5, 4, ACL_MEMCPY_HOST_TO_HOST),
            ACL_SUCCESS);
  for (size_t row = 0; row < 4; ++row) {
    for (size_t column = 0; column < 6; ++column) {
      const uint8_t expected = column < 5 ? source[row * 10 + column] : 0xEE;
      EXPECT_EQ(target[row * 6 + column], expected) << row << "," << column;
    }
  }
  EXPECT_EQ(aclrtMemcpy2d(target.data(), 4, source.data(), 10, 5, 4, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy2d(target.data(), 6, source.data(), 4, 5, 4, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy2d(nullptr, 6, source.data(), 10, 5, 4, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
}

TEST_F(Runtime, MemsetFillsBytesWithinTheLimit) {
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemset(device, 64, 0, 64), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemset(device, 64, 0x1A5, 10), ACL_SUCCESS);  // only the low byte counts
  std::vector<uint8_t> back(64);
  ASSERT_EQ(aclrtMemcpy(back.data(), 64, device, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(back[i], i < 10 ? 0xA5 : 0) << i;
  EXPECT_EQ(aclrtMemset(device, 8, 0, 9), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(nullptr, 8, 0, 8), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(device, 8, 0, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
}

TEST_F(Runtime, MemInfoReportsTheDevicesMemory) {
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes), ACL_SUCCESS);
  EXPECT_GT(total_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &total_bytes), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetMemInfo(static_cast<aclrtMemAttr>(99), &free_bytes, &total_bytes),
            ACL_ERROR_INVALID_PARAM);
}

// ---- streams ------------------------------------------------------------------------------

TEST_F(Runtime, StreamRunsManyTasksInOrder) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  constexpr int kTasks = 3000;
  std::vector<int> order;
  std::vector<std::pair<std::vector<int>*, int>> payload;
  payload.reserve(kTasks);
  for (int i = 0; i < kTasks; ++i) payload.emplace_back(&order, i);
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_EQ(aclrtLaunchCallback(AppendIndex, &payload[static_cast<size_t>(i)], ACL_CALLBACK_BLOCK,
                                  stream),
              ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  ASSERT_EQ(order.size(), static_cast<size_t>(kTasks));
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(order[static_cast<size_t>(i)], i);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(Runtime, MemcpyAsyncReturnsBeforeTheCopyRuns) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  CallbackGate gate;
  ASSERT_EQ(aclrtLaunchCallback(CallbackGate::Hold, &gate, ACL_CALLBACK_BLOCK, stream),
            ACL_SUCCESS);
  HostBuffer source(4096, 0x5A), target(4096, 0);
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(device, 4096, 0x11, 4096, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(device, 4096, source.data, 2048, ACL_MEMCPY_HOST_TO_DEVICE, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(target.data, 4096, device, 4096, ACL_MEMCPY_DEVICE_TO_HOST, stream),
            ACL_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(target.data[0], 0);  // still queued behind the gate
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
  gate.open = true;
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
  for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(target.data[i], i < 2048 ? 0x5A : 0x11) << i;
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(Runtime, AsyncCallsValidateLikeTheirSyncForms) {
  std::vector<uint8_t> a(16), b(16);
  EXPECT_EQ(aclrtMemcpyAsync(a.data(), 8, b.data(), 16, ACL_MEMCPY_HOST_TO_HOST, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpyAsync(nullptr, 16, b.data(), 16, ACL_MEMCPY_HOST_TO_HOST, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemsetAsync(a.data(), 8, 0, 16, nullptr), ACL_ERROR_INVALID_PARAM);
  int garbage = 0;
  EXPECT_EQ(aclrtMemcpyAsync(a.data(), 16, b.data(), 16, ACL_MEMCPY_HOST_TO_HOST, &garbage),
            ACL_ERROR_INVALID_PARAM);
  b.assign(16, 9);
  EXPECT_EQ(aclrtMemcpyAsync(a.data(), 16, b.data(), 16, ACL_MEMCPY_HOST_TO_HOST, nullptr),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // the default stream
  EXPECT_EQ(a, b);
}

TEST_F(Runtime, SynchronizeWithTimeoutExpiresThenSucceeds) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  CallbackGate gate;
  ASSERT_EQ(aclrtLaunchCallback(CallbackGate::Hold, &gate, ACL_CALLBACK_BLOCK, stream),
            ACL_SUCCESS);
  const auto start = Clock::now();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 30), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(25));
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, -2), ACL_ERROR_INVALID_PARAM);
  gate.open = true;
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, -1), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(Runtime, DestroyWaitsForQueuedWork) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::vector<int> order;
  std::pair<std::vector<int>*, int> payload{&order, 1};
  ASSERT_EQ(aclrtLaunchCallback(Sleep20ms, nullptr, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchCallback(AppendIndex, &payload, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(order, std::vector<int>{1});
}

TEST_F(Runtime, DestroyedUnknownAndDefaultStreamsAreRejected) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  aclrtStreamStatus status;
  EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtLaunchCallback(Sleep20ms, nullptr, ACL_CALLBACK_BLOCK, stream),
            ACL_ERROR_INVALID_PARAM);
  const std::string text = aclGetRecentErrMsg();
  EXPECT_NE(text.find("not a live stream"), std::string::npos) << text;
  int garbage[4] = {};
  EXPECT_EQ(aclrtDestroyStream(garbage), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtStreamQuery(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateStreamWithConfig(&stream, 0, 0x40), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtLaunchCallback(nullptr, nullptr, ACL_CALLBACK_BLOCK, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(
      aclrtLaunchCallback(Sleep20ms, nullptr, static_cast<aclrtCallbackBlockType>(5), nullptr),
      ACL_ERROR_INVALID_PARAM);
}

TEST(Stream, CreatingAStreamNeedsADevice) {
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(Runtime, StreamWithConfigAndForceDestroy) {
  // A GPU's queue cannot drop work it has accepted: force-destroy waits there.
  if (!HostBackend()) GTEST_SKIP() << "queued work is dropped only by the cpu backend's streams";
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStreamWithConfig(&stream, 0, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC),
            ACL_SUCCESS);
  CallbackGate gate;
  ASSERT_EQ(aclrtLaunchCallback(CallbackGate::Hold, &gate, ACL_CALLBACK_BLOCK, stream),
            ACL_SUCCESS);
  std::vector<int> order;
  std::pair<std::vector<int>*, int> payload{&order, 1};
  ASSERT_EQ(aclrtLaunchCallback(AppendIndex, &payload, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
  while (!gate.entered) std::this_thread::yield();
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    gate.open = true;
  });
  EXPECT_EQ(aclrtDestroyStreamForce(stream), ACL_SUCCESS);
  opener.join();
  EXPECT_TRUE(order.empty());  // queued work was dropped
  EXPECT_EQ(aclrtDestroyStreamForce(stream), ACL_ERROR_INVALID_PARAM);
}

// ---- events -------------------------------------------------------------------------------

TEST_F(Runtime, EventRecordQuerySynchronizeAndElapsedTime) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC), ACL_SUCCESS);
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  EXPECT_EQ(aclrtQueryEventStatus(start, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_NOT_READY);  // never recorded
  float ms = -1;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_INVALID_PARAM);

  CallbackGate gate;
  ASSERT_EQ(aclrtLaunchCallback(CallbackGate::Hold, &gate, ACL_CALLBACK_BLOCK, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(start, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchCallback(Sleep20ms, nullptr, ACL_CALLBACK_BLOCK, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(end, stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtQueryEventStatus(end, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_NOT_READY);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
  gate.open = true;
  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtQueryEventStatus(end, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_COMPLETE);
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 19.0f);
  EXPECT_LT(ms, 2000.0f);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, end, start), ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);
  EXPECT_EQ(aclrtEventElapsedTime(nullptr, start, end), ACL_ERROR_INVALID_PARAM);

  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtRecordEvent(start, stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeEvent(start), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtQueryEventStatus(start, &status), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(Runtime, EventArgumentsAreChecked) {
  aclrtEvent event = nullptr;
  EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateEventWithFlag(&event, 0x80000000u), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateEventExWithFlag(&event, 0x4), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtRecordEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtStreamWaitEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC), ACL_SUCCESS);
  EXPECT_EQ(aclrtQueryEventStatus(event, nullptr), ACL_ERROR_INVALID_PARAM);
  int garbage = 0;
  EXPECT_EQ(aclrtRecordEvent(event, &garbage), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);  // never recorded: nothing to wait for
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(Runtime, StreamWaitEventOrdersWorkAcrossStreams) {
  aclrtStream producer = nullptr, consumer = nullptr;
  ASSERT_EQ(aclrtCreateStream(&producer), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&consumer), ACL_SUCCESS);
  aclrtEvent ready = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&ready), ACL_SUCCESS);
  CallbackGate gate;
  HostBuffer source(1024, 0x42), target(1024, 0);
  void* middle = nullptr;
  ASSERT_EQ(aclrtMalloc(&middle, 1024, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchCallback(CallbackGate::Hold, &gate, ACL_CALLBACK_BLOCK, producer),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(middle, 1024, source.data, 1024, ACL_MEMCPY_HOST_TO_DEVICE, producer),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(ready, producer), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamWaitEvent(consumer, ready), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(target.data, 1024, middle, 1024, ACL_MEMCPY_DEVICE_TO_HOST, consumer),
            ACL_SUCCESS);
  // The event may be destroyed while work still refers to it.
  ASSERT_EQ(aclrtDestroyEvent(ready), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(consumer, 30), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  EXPECT_EQ(target.data[0], 0);
  gate.open = true;
  ASSERT_EQ(aclrtSynchronizeStream(consumer), ACL_SUCCESS);
  EXPECT_TRUE(target == source);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(middle), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(producer), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(consumer), ACL_SUCCESS);
}

TEST_F(Runtime, SynchronizeDeviceWaitsForEveryStream) {
  std::vector<aclrtStream> streams(3);
  std::atomic<int> done{0};
  auto bump = [](void* data) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    static_cast<std::atomic<int>*>(data)->fetch_add(1);
  };
  for (auto& stream : streams) {
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    ASSERT_EQ(aclrtLaunchCallback(bump, &done, ACL_CALLBACK_NO_BLOCK, stream), ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtLaunchCallback(bump, &done, ACL_CALLBACK_NO_BLOCK, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  EXPECT_EQ(done.load(), 4);
  for (auto& stream : streams) EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// ---- system parameters --------------------------------------------------------------------

TEST_F(Runtime, SysParamsHaveRangesAndContextScope) {
  int64_t value = -1;
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 0);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 3), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 3);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, -1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetSysParamOpt(static_cast<aclSysParamOpt>(4), 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);

  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &value),
            ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);  // a context-level set also writes the process table
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);

  aclrtContext other = nullptr;
  ASSERT_EQ(aclrtCreateContext(&other, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value),
            ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);  // per context
  EXPECT_EQ(aclrtDestroyContext(other), ACL_SUCCESS);
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_ERROR_RT_CONTEXT_NULL);
}

// ---- small helpers ------------------------------------------------------------------------

TEST(Helpers, DataTypeSizesFollowTheCannTable) {
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_DOUBLE), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT8), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_BOOL), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT4), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX32), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX128), 16u);
  EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0u);
  EXPECT_EQ(aclDataTypeSize(ACL_DT_UNDEFINED), 0u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT4_E2M1), 8u);  // unlisted: CANN's default
}

TEST(Helpers, DataBuffersRecordAddressAndSize) {
  int storage[4];
  aclDataBuffer* buffer = aclCreateDataBuffer(storage, sizeof(storage));
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(aclGetDataBufferAddr(buffer), storage);
  EXPECT_EQ(aclGetDataBufferSizeV2(buffer), sizeof(storage));
  EXPECT_EQ(aclUpdateDataBuffer(buffer, nullptr, 0), ACL_SUCCESS);
  EXPECT_EQ(aclGetDataBufferAddr(buffer), nullptr);
  EXPECT_EQ(aclGetDataBufferSizeV2(buffer), 0u);
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclDestroyDataBuffer(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetDataBufferAddr(nullptr), nullptr);
  EXPECT_EQ(aclGetDataBufferSizeV2(nullptr), 0u);
}

TEST(Helpers, AppLogAcceptsCannStyleCalls) {
  ACL_APP_LOG(ACL_INFO, "plain message");
  ACL_APP_LOG(ACL_ERROR, "value %d and %s", 42, "text");
  aclAppLog(ACL_WARNING, nullptr, nullptr, 0, nullptr);
  SUCCEED();
}

TEST(Helpers, RecentErrMsgIsEmptyWhenNothingFailed) {
  aclGetRecentErrMsg();
  const char* text = aclGetRecentErrMsg();
  ASSERT_NE(text, nullptr);
  EXPECT_STREQ(text, "");
}

// ---- process exit -------------------------------------------------------------------------

TEST(Exit, ProgramThatNeverDestroysItsStreamsExitsCleanly) {
  // A GPU driver's own teardown waits for host functions still running on its streams.
  if (!HostBackend()) GTEST_SKIP() << "exit with a callback blocked is checked on the cpu backend";
  EXPECT_EXIT(
      {
        aclrtSetDevice(0);
        aclrtStream stream = nullptr;
        aclrtCreateStream(&stream);
        static CallbackGate gate;  // never opened: a task is blocked at exit
        aclrtLaunchCallback(CallbackGate::Hold, &gate, ACL_CALLBACK_BLOCK, stream);
        aclrtLaunchCallback(Sleep20ms, nullptr, ACL_CALLBACK_BLOCK, nullptr);
        while (!gate.entered) std::this_thread::yield();
        std::exit(3);
      },
      ::testing::ExitedWithCode(3), "");
}

}  // namespace
