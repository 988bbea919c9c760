// Device tensors built the way CANN samples build them, for tests that call the ops' C API.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace openaclnn::testing {

inline uint16_t ToHalf(float value) { return aclFloatToFloat16(value); }

// fp32 -> bf16 by round to nearest even (finite values only in these tests).
inline uint16_t ToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// IEEE binary16 -> fp32 (aclFloat16ToFloat, as in CANN, has no Inf/NaN, so tests decode
// themselves).
inline float FromHalf(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0x1f) {
    magnitude =
        mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  }
  return (bits & 0x8000) ? -magnitude : magnitude;
}

inline float FromBFloat16(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

// Owns a device buffer and the aclTensor viewing it.
class DeviceTensor {
 public:
  // A contiguous tensor holding `values` (converted to `dtype`; fp32/fp16/bf16/double).
  DeviceTensor(std::vector<int64_t> shape, aclDataType dtype, const std::vector<float>& values)
      : DeviceTensor(shape, dtype, values, {}, 0, shape) {}

  // Any view: `storage_values` fill the storage block of `storage_shape`.
  DeviceTensor(std::vector<int64_t> shape, aclDataType dtype,
               const std::vector<float>& storage_values, std::vector<int64_t> strides,
               int64_t offset, std::vector<int64_t> storage_shape)
      : dtype_(dtype) {
    int64_t storage_count = 1;
    for (int64_t dim : storage_shape) storage_count *= dim;
    bytes_ = static_cast<size_t>(storage_count) * aclDataTypeSize(dtype);
    std::vector<unsigned char> host(bytes_ > 0 ? bytes_ : 1);
    for (int64_t i = 0; i < storage_count; ++i) {
      const float value = i < static_cast<int64_t>(storage_values.size()) ? storage_values[i] : 0;
      Store(host.data(), i, value);
    }
    EXPECT_EQ(aclrtMalloc(&device_, bytes_ > 0 ? bytes_ : 32, ACL_MEM_MALLOC_HUGE_FIRST),
              ACL_SUCCESS);
    if (bytes_ > 0) {
      EXPECT_EQ(aclrtMemcpy(device_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE),
                ACL_SUCCESS);
    }
    tensor_ = aclCreateTensor(shape.data(), shape.size(), dtype,
                              strides.empty() ? nullptr : strides.data(), offset, ACL_FORMAT_ND,
                              storage_shape.data(), storage_shape.size(), device_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  ~DeviceTensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(device_);
  }

  aclTensor* get() const { return tensor_; }
  void* device() const { return device_; }

  // The whole storage block as it lies in memory, for bitwise comparisons.
  std::vector<unsigned char> Bytes() const {
    std::vector<unsigned char> host(bytes_);
    if (bytes_ > 0) {
      EXPECT_EQ(aclrtMemcpy(host.data(), bytes_, device_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST),
                ACL_SUCCESS);
    }
    return host;
  }

  // The whole storage block, widened to float.
  std::vector<float> Read() const {
    std::vector<unsigned char> host(bytes_ > 0 ? bytes_ : 1);
    if (bytes_ > 0) {
      EXPECT_EQ(aclrtMemcpy(host.data(), bytes_, device_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST),
                ACL_SUCCESS);
    }
    std::vector<float> values(bytes_ / aclDataTypeSize(dtype_));
    for (size_t i = 0; i < values.size(); ++i) values[i] = Load(host.data(), i);
    return values;
  }

 private:
  void Store(unsigned char* host, int64_t i, float value) const {
    switch (dtype_) {
      case ACL_FLOAT16: {
        const uint16_t bits = ToHalf(value);
        std::memcpy(host + 2 * i, &bits, 2);
        break;
      }
      case ACL_BF16: {
        const uint16_t bits = ToBFloat16(value);
        std::memcpy(host + 2 * i, &bits, 2);
        break;
      }
      case ACL_DOUBLE: {
        const double wide = value;
        std::memcpy(host + 8 * i, &wide, 8);
        break;
      }
      default:
        std::memcpy(host + 4 * i, &value, 4);
    }
  }
  float Load(const unsigned char* host, size_t i) const {
    uint16_t bits;
    switch (dtype_) {
      case ACL_FLOAT16:
        std::memcpy(&bits, host + 2 * i, 2);
        return FromHalf(bits);
      case ACL_BF16:
        std::memcpy(&bits, host + 2 * i, 2);
        return FromBFloat16(bits);
      case ACL_DOUBLE: {
        double wide;
        std::memcpy(&wide, host + 8 * i, 8);
        return static_cast<float>(wide);
      }
      default: {
        float value;
        std::memcpy(&value, host + 4 * i, 4);
        return value;
      }
    }
  }

  aclDataType dtype_;
  size_t bytes_ = 0;
  void* device_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// A device and stream for the whole test program.
class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    aclInit(nullptr);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  }
  void TearDown() override {
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
  }
  static inline aclrtStream stream = nullptr;
};

// Phase 1's status for a test that only plans: a successful executor is destroyed.
inline aclnnStatus PlanOnly(aclnnStatus status, aclOpExecutor* executor) {
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  return status;
}

// An op's phase 2 (aclnnXxx(workspace, workspaceSize, executor, stream)).
using LaunchFunction = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// Phase 2 after a phase 1 that returned `status`: the workspace it asked for, the launch on the
// test program's stream and a sync. Returns the first failing status.
inline aclnnStatus LaunchAndSync(aclnnStatus status, uint64_t workspace_size,
                                 aclOpExecutor* executor, LaunchFunction launch) {
  if (status != ACLNN_SUCCESS) return status;
  void* workspace = nullptr;
  if (workspace_size > 0) {
    EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  status = launch(workspace, workspace_size, executor, AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

// `count` values uniform in [low, high] (as CANN's ATK draws them), the same for every `seed`.
inline std::vector<float> UniformValues(int64_t count, float low, float high, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  std::vector<float> values(count);
  for (float& value : values) value = uniform(rng);
  return values;
}

inline int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

// The flat index, in a contiguous tensor of `shape`, of element `i` (row-major) of the broadcast
// shape `into`: right-aligned, a dimension of size 1 repeated.
inline int64_t BroadcastIndex(const std::vector<int64_t>& shape, const std::vector<int64_t>& into,
                              int64_t i) {
  int64_t index = 0, stride = 1;
  for (size_t d = 1; d <= shape.size(); ++d) {  // innermost first
    const int64_t size = shape[shape.size() - d], broadcast = into[into.size() - d];
    if (size != 1) index += (i % broadcast) * stride;
    i /= broadcast;
    stride *= size;
  }
  return index;
}

// The SoC profile (OPENACLNN_SOC_VERSION, read by every phase 1) for one test's scope.
class ScopedSoc {
 public:
  explicit ScopedSoc(const char* name) {
    if (const char* before = std::getenv("OPENACLNN_SOC_VERSION")) saved_ = before, had_ = true;
    setenv("OPENACLNN_SOC_VERSION", name, 1);
  }
  ScopedSoc(const ScopedSoc&) = delete;
  ScopedSoc& operator=(const ScopedSoc&) = delete;
  ~ScopedSoc() {
    if (had_) {
      setenv("OPENACLNN_SOC_VERSION", saved_.c_str(), 1);
    } else {
      unsetenv("OPENACLNN_SOC_VERSION");
    }
  }

 private:
  std::string saved_;
  bool had_ = false;
};

// The recent error text, which must exist after a failure and name `word`.
// `values` written into `tensor`'s storage as its dtype, infinities and NaN (with their sign)
// included, which the test tensors' own encoders do not carry for fp16/bf16.
inline void UploadWithSpecials(const DeviceTensor& tensor, aclDataType dtype,
                               const std::vector<float>& values) {
  const size_t size = aclDataTypeSize(dtype);
  std::vector<unsigned char> bytes(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, &values[i], 4);
    if (dtype == ACL_FLOAT16) {
      const uint32_t sign = (bits >> 16) & 0x8000u;
      bits = std::isnan(values[i])   ? sign | 0x7e00u
             : std::isinf(values[i]) ? sign | 0x7c00u
                                     : ToHalf(values[i]);
    } else if (dtype == ACL_BF16) {
      bits >>= 16;  // exact for the values used here
    }
    std::memcpy(bytes.data() + i * size, &bits, size);
  }
  ASSERT_EQ(aclrtMemcpy(tensor.device(), bytes.size(), bytes.data(), bytes.size(),
                        ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
}

inline ::testing::AssertionResult ErrorMentions(const std::string& word) {
  const std::string text = aclGetRecentErrMsg();
  if (text.find(word) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "error message \"" << text << "\" lacks \"" << word << "\"";
}

// The exact loss in fp64, the reference the op is compared with.
inline double ExactLoss(double x, double t, double w, double p) {
  const double softplus_neg = x > 0 ? std::log1p(std::exp(-x)) : -x + std::log1p(std::exp(x));
  const double softplus_pos = softplus_neg + x;
  return w * (p * t * softplus_neg + (1 - t) * softplus_pos);
}

inline double ExactSigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The binary cross entropy of probabilities, in long double (a 64-bit significand on x86-64,
// binary128 elsewhere): far more than the results' 24 bits. Each log is clamped at -100; ln(1-x)
// comes from log1p, exact for tiny x; x outside [0, 1] gives NaN.
inline long double ExactProbabilityLoss(long double x, long double t, long double w) {
  const long double log_x = std::max(std::log(x), -100.0L);
  const long double log_one_minus_x = std::max(std::log1p(-x), -100.0L);
  return -w * (t * log_x + (1 - t) * log_one_minus_x);
}

// Its gradient with respect to x, g w (x - t) / max(x (1 - x), fl32(1e-12)), before any 1/N.
inline long double ExactProbabilityGradient(long double x, long double t, long double w,
                                            long double g) {
  return g * w * (x - t) / std::max(x * (1 - x), static_cast<long double>(1e-12f));
}

// Whether `got`, a value of `dtype` (fp32, fp16, bf16), is `exact` rounded to nearest: within half
// an ulp of it (a quarter below a power of two), with 2^-40 of that as slack for the reference's
// own rounding; zero, infinity and NaN as IEEE rounds to them.
inline ::testing::AssertionResult CorrectlyRounded(double got, long double exact,
                                                   aclDataType dtype) {
  const int precision = dtype == ACL_FLOAT ? 24 : dtype == ACL_FLOAT16 ? 11 : 8;
  const int min_exponent = dtype == ACL_FLOAT16 ? -14 : -126;
  const int max_exponent = dtype == ACL_FLOAT16 ? 15 : 127;
  const long double largest = std::ldexp(2.0L - std::ldexp(1.0L, 1 - precision), max_exponent);
  const auto failure = [&] {
    return ::testing::AssertionFailure()
           << "got " << got << ", exact " << static_cast<double>(exact) << " (dtype " << dtype
           << ")";
  };
  if (std::isnan(exact) || std::isnan(got)) {
    return std::isnan(exact) && std::isnan(got) ? ::testing::AssertionSuccess() : failure();
  }
  const long double top_half_ulp = std::ldexp(1.0L, max_exponent - precision);
  if (std::isinf(got)) {
    const bool overflows = std::fabs(exact) >= largest + top_half_ulp && (got > 0) == (exact > 0);
    return overflows ? ::testing::AssertionSuccess() : failure();
  }
  const int exponent = got == 0 ? min_exponent : std::max(std::ilogb(got), min_exponent);
  long double allowed = std::ldexp(1.0L, exponent - precision);  // half an ulp
  if (got != 0 && std::fabs(got) == std::ldexp(1.0, exponent) && exponent > min_exponent &&
      std::fabs(exact) < std::fabs(got)) {
    allowed /= 2;
  }
  return std::fabs(exact - got) <= allowed * (1 + std::ldexp(1.0L, -40))
             ? ::testing::AssertionSuccess()
             : failure();
}

}  // namespace openaclnn::testing
