// Device tensors built the way CANN samples build them, for tests that call the ops' C API.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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
  // A contiguous tensor holding `values` (converted to `dtype`: a floating type, an integer type
  // or bool (truncated), or complex64 (the real part)).
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
      case ACL_FLOAT:
      case ACL_COMPLEX64: {  // a complex number's real part; its imaginary part stays 0
        std::memcpy(host + aclDataTypeSize(dtype_) * i, &value, 4);
        break;
      }
      default: {  // an integer type: the value's low bytes (little-endian), as a cast keeps them
        const int64_t whole = static_cast<int64_t>(value);
        const size_t size = aclDataTypeSize(dtype_);
        std::memcpy(host + size * i, &whole, std::min<size_t>(size, sizeof whole));
      }
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
      case ACL_INT64:
        return static_cast<float>(LoadWhole<int64_t>(host, i));
      case ACL_INT32:
        return static_cast<float>(LoadWhole<int32_t>(host, i));
      case ACL_INT16:
        return LoadWhole<int16_t>(host, i);
      case ACL_INT8:
        return LoadWhole<int8_t>(host, i);
      case ACL_UINT8:
      case ACL_BOOL:
        return LoadWhole<uint8_t>(host, i);
      default: {
        float value = 0;
        if (aclDataTypeSize(dtype_) == 4) std::memcpy(&value, host + 4 * i, 4);
        return value;
      }
    }
  }

  template <class Whole>
  static Whole LoadWhole(const unsigned char* host, size_t i) {
    Whole value;
    std::memcpy(&value, host + sizeof(Whole) * i, sizeof(Whole));
    return value;
  }

  aclDataType dtype_;
  size_t bytes_ = 0;
  void* device_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// Poses as another SoC (OPENACLNN_SOC_VERSION, read at every call) for one scope: the dtype lists
// of the first-generation Ascend910 ("Ascend910A") or of Ascend310P have no bf16.
class ScopedSocVersion {
 public:
  explicit ScopedSocVersion(const char* soc) {
    const char* previous = std::getenv("OPENACLNN_SOC_VERSION");
    had_previous_ = previous != nullptr;
    if (had_previous_) previous_ = previous;
    setenv("OPENACLNN_SOC_VERSION", soc, 1);
  }
  ScopedSocVersion(const ScopedSocVersion&) = delete;
  ScopedSocVersion& operator=(const ScopedSocVersion&) = delete;
  ~ScopedSocVersion() {
    if (had_previous_) {
      setenv("OPENACLNN_SOC_VERSION", previous_.c_str(), 1);
    } else {
      unsetenv("OPENACLNN_SOC_VERSION");
    }
  }

 private:
  bool had_previous_ = false;
  std::string previous_;
};

// An aclTensor of `format` over another tensor's device memory, contiguous (the formats are tags:
// an ND layout is read whatever they say).
class FormattedTensor {
 public:
  FormattedTensor(const std::vector<int64_t>& shape, aclDataType dtype, aclFormat format,
                  void* data)
      : tensor_(aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, format, shape.data(),
                                shape.size(), data)) {}
  ~FormattedTensor() { aclDestroyTensor(tensor_); }
  FormattedTensor(const FormattedTensor&) = delete;
  FormattedTensor& operator=(const FormattedTensor&) = delete;
  aclTensor* get() const { return tensor_; }

 private:
  aclTensor* tensor_;
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

// Every op's phase 2 (aclnnXxx).
using LaunchFunction = aclnnStatus (*)(void* workspace, uint64_t workspace_size,
                                       aclOpExecutor* executor, aclrtStream stream);

// Phase 2 of an executor a successful phase 1 made: a workspace of the size it asked for, the
// launch on the test program's stream, and a wait for the stream.
inline aclnnStatus LaunchAndWait(LaunchFunction launch, uint64_t workspace_size,
                                 aclOpExecutor* executor) {
  void* workspace = nullptr;
  if (workspace_size > 0) {
    EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  const aclnnStatus status = launch(workspace, workspace_size, executor, AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

// Both phases of an op and a sync: `plan(&workspace_size, &executor)` is its GetWorkspaceSize,
// `launch` its phase 2 (the workspace is allocated between them). Returns the first failing
// status.
template <class PlanFn, class LaunchFn>
aclnnStatus RunPhases(PlanFn&& plan, LaunchFn&& launch) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus status = plan(&workspace_size, &executor)) return status;
  void* workspace = nullptr;
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  const aclnnStatus status = launch(workspace, workspace_size, executor, AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

// Phase 1's status for a test that only plans: a successful executor is destroyed.
inline aclnnStatus PlanOnly(aclnnStatus status, aclOpExecutor* executor) {
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  return status;
}

// Phase 2 after a phase 1 that returned `status`: LaunchAndWait where it succeeded.
inline aclnnStatus LaunchAndSync(aclnnStatus status, uint64_t workspace_size,
                                 aclOpExecutor* executor, LaunchFunction launch) {
  return status != ACLNN_SUCCESS ? status : LaunchAndWait(launch, workspace_size, executor);
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

// NumPy's broadcast of two shapes (which must broadcast).
inline std::vector<int64_t> BroadcastShapeOf(const std::vector<int64_t>& a,
                                             const std::vector<int64_t>& b) {
  const std::vector<int64_t>& longer = a.size() >= b.size() ? a : b;
  const std::vector<int64_t>& shorter = a.size() >= b.size() ? b : a;
  std::vector<int64_t> shape = longer;
  const size_t offset = longer.size() - shorter.size();
  for (size_t d = 0; d < shorter.size(); ++d) {
    if (shape[offset + d] == 1) shape[offset + d] = shorter[d];
  }
  return shape;
}

// The flat index, in a contiguous tensor of `shape`, of element `flat` of the broadcast shape
// `into` (NumPy's rules: right-aligned, a dimension of 1 repeats); `shape` broadcasts into `into`.
// With `into` an op's iteration shape and `shape` an operand's, the element the op reads; with
// `shape` a reduced output's, the element a term is summed into.
inline int64_t BroadcastIndex(const std::vector<int64_t>& into, const std::vector<int64_t>& shape,
                              int64_t flat) {
  int64_t index = 0, stride = 1;
  const size_t offset = into.size() - shape.size();
  for (size_t d = into.size(); d-- > 0;) {
    const int64_t coordinate = flat % into[d];
    flat /= into[d];
    if (d < offset) continue;
    const int64_t dim = shape[d - offset];
    if (dim != 1) index += coordinate * stride;
    stride *= dim;
  }
  return index;
}

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

// An INT64 tensor's storage: write `values` exactly (beyond what a float holds), read it back.
inline void UploadInt64(const DeviceTensor& tensor, const std::vector<int64_t>& values) {
  const size_t bytes = values.size() * sizeof(int64_t);
  ASSERT_EQ(aclrtMemcpy(tensor.device(), bytes, values.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
}
inline std::vector<int64_t> ReadInt64(const DeviceTensor& tensor) {
  const std::vector<unsigned char> bytes = tensor.Bytes();
  std::vector<int64_t> values(bytes.size() / sizeof(int64_t));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(int64_t));
  return values;
}

// The recent error text, which must exist after a failure and name `word`.
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

// Binary128 for exact references: the rational formulas' values on fp32 inputs (differences,
// products, sums of a few thousand terms) exactly or within 2^-100 of themselves. Its + - * / need
// only the compiler's runtime (libgcc's soft-float on x86-64; long double is binary128 elsewhere).
#if defined(__x86_64__)
using Binary128 = __float128;
#else
static_assert(std::numeric_limits<long double>::digits == 113, "the reference needs binary128");
using Binary128 = long double;
#endif

// `exact` rounded once to nearest, ties to even, onto `dtype`'s grid (fp32, fp16, bf16: subnormals
// included, +-inf beyond the largest finite value's half ulp), as a float that holds it exactly;
// a zero keeps `exact`'s sign. Finite `exact` below double's overflow threshold.
inline float RoundedTo(Binary128 exact, aclDataType dtype) {
  const int precision = dtype == ACL_FLOAT ? 24 : dtype == ACL_FLOAT16 ? 11 : 8;
  const int min_exponent = dtype == ACL_FLOAT16 ? -14 : -126;
  const int max_exponent = dtype == ACL_FLOAT16 ? 15 : 127;
  const bool negative = exact < 0;
  const Binary128 magnitude = negative ? -exact : exact;
  // At most half the least subnormal (a tie with zero, which is even): a zero of exact's sign.
  if (magnitude <= static_cast<Binary128>(std::ldexp(1.0, min_exponent - precision))) {
    return negative ? -0.0f : 0.0f;
  }
  int exponent = std::ilogb(static_cast<double>(magnitude));  // may be one too high: corrected
  if (magnitude < static_cast<Binary128>(std::ldexp(1.0, exponent))) --exponent;
  const int quantum = std::max(exponent, min_exponent) - (precision - 1);  // the ulp's exponent
  const Binary128 units = magnitude / static_cast<Binary128>(std::ldexp(1.0, quantum));  // exact
  auto whole = static_cast<int64_t>(units);
  const Binary128 fraction = units - static_cast<Binary128>(whole);
  if (fraction > Binary128(0.5) || (fraction == Binary128(0.5) && whole % 2 != 0)) ++whole;
  const double rounded = std::ldexp(static_cast<double>(whole), quantum);
  const double value = rounded >= std::ldexp(1.0, max_exponent + 1)
                           ? std::numeric_limits<double>::infinity()
                           : rounded;
  return static_cast<float>(negative ? -value : value);
}

// Equal values (a NaN equal to any NaN; a zero equal to either zero), for EXPECT_PRED2.
inline bool SameValue(float got, float expected) {
  return (std::isnan(got) && std::isnan(expected)) || got == expected;
}

// Phase 1 alone; a successful executor is destroyed. *workspace_size (when given) is what it
// reported.
template <class Phase1>
aclnnStatus PlanOnly(Phase1&& phase1, uint64_t* workspace_size = nullptr) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = phase1(&size, &executor);
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  if (workspace_size != nullptr) *workspace_size = size;
  return status;
}

// Phase 1 alone (Plan; a successful executor is destroyed, *workspace_size what it reported) and
// both phases with a sync (Run; the first failing status) of a loss API of CANN's
// (self, target, reduction, out) signature, e.g. aclnnMseLoss.
template <auto kGetWorkspaceSize, auto kLaunch>
struct SelfTargetLossApi {
  static aclnnStatus Plan(const aclTensor* self, const aclTensor* target, int64_t reduction,
                          aclTensor* out, uint64_t* workspace_size = nullptr) {
    return PlanOnly(
        [&](uint64_t* size, aclOpExecutor** executor) {
          return kGetWorkspaceSize(self, target, reduction, out, size, executor);
        },
        workspace_size);
  }
  static aclnnStatus Plan(const DeviceTensor& self, const DeviceTensor& target, int64_t reduction,
                          const DeviceTensor& out) {
    return Plan(self.get(), target.get(), reduction, out.get());
  }
  static aclnnStatus Run(const DeviceTensor& self, const DeviceTensor& target, int64_t reduction,
                         const DeviceTensor& out) {
    return RunPhases(
        [&](uint64_t* size, aclOpExecutor** executor) {
          return kGetWorkspaceSize(self.get(), target.get(), reduction, out.get(), size, executor);
        },
        kLaunch);
  }
};

}  // namespace openaclnn::testing
