// libFuzzer target over the public C API of every op of the library's op table
// (openaclnn/op_table.h), both loss families, as a careless or hostile caller uses it: the input
// bytes decode into an op and its tensors (shapes, strides, offsets, storage shapes, dtypes and
// formats valid or not, nulls), a reduction, and what phase 2 does (a normal launch, or a destroyed
// tensor, executor or stream, a small workspace, a relaunch, a forced stream destruction). Whatever
// the library accepts and runs is compared with a float64 (long double) reference computed here
// from the textbook formulas; whatever it rejects must come with a message. The sanitizers
// (address, undefined, leak) watch everything else.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "openaclnn/op_table.h"

extern "C" aclTensor* FuzzCreateTensor(const int64_t* view, uint64_t rank, int dtype,
                                       const int64_t* strides, int64_t offset, int format,
                                       const int64_t* storage, uint64_t storage_rank, void* data);

namespace {

using Shape = std::vector<int64_t>;
using Real = long double;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr size_t kMaxBytes = 1 << 18;  // storage the fuzzer backs with memory
constexpr int64_t kMaxElements = 3 * 4096 + 7;
constexpr uint8_t kSentinelByte = 0xA5;

// The integers aclDataType names (acl_base_rt.h); the fuzzer also sends values outside them.
constexpr int kFloat = 0, kFloat16 = 1, kDouble = 11, kInt32 = 3, kBf16 = 27;

[[noreturn]] void Fail(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "FUZZ FAILURE: %s %s\n", what, detail.c_str());
  std::abort();
}

void Require(bool condition, const char* what, const std::string& detail = "") {
  if (!condition) Fail(what, detail);
}

size_t ElementBytes(int dtype) {
  switch (dtype) {
    case kFloat16:
    case kBf16:
      return 2;
    case kFloat:
    case kInt32:
      return 4;
    default:
      return 8;
  }
}

// --- Encoding and decoding values, independently of the library's conversions ---

double DecodeHalf(uint16_t bits) {
  const int exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

double DecodeBf16(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

double Decode(int dtype, const uint8_t* element) {
  uint16_t half;
  float single;
  switch (dtype) {
    case kFloat16:
      std::memcpy(&half, element, 2);
      return DecodeHalf(half);
    case kBf16:
      std::memcpy(&half, element, 2);
      return DecodeBf16(half);
    case kFloat:
      std::memcpy(&single, element, 4);
      return single;
    default:
      return 0;
  }
}

// A finite value of `dtype`, its magnitude below 2^max_exponent, written at `element`.
void EncodeRandom(FuzzedDataProvider& in, int dtype, int max_exponent, bool non_negative,
                  uint8_t* element) {
  const bool negative = !non_negative && in.ConsumeBool();
  const int exponent = in.ConsumeIntegralInRange(-14, max_exponent - 1);
  const auto mantissa = in.ConsumeIntegral<uint32_t>();
  uint16_t bits;
  switch (dtype) {
    case kFloat16:
      bits = static_cast<uint16_t>((negative << 15) | ((exponent + 15) << 10) | (mantissa & 1023));
      std::memcpy(element, &bits, 2);
      break;
    case kBf16:
      bits = static_cast<uint16_t>((negative << 15) | ((exponent + 127) << 7) | (mantissa & 127));
      std::memcpy(element, &bits, 2);
      break;
    case kFloat: {
      const float value = static_cast<float>(
          std::ldexp(1.0 + (mantissa & 0x7fffff) * 0x1p-23, exponent) * (negative ? -1 : 1));
      std::memcpy(element, &value, 4);
      break;
    }
    default:
      break;
  }
}

// A target in [0, 1]: k/256 is exact in every floating type here.
void EncodeProbability(FuzzedDataProvider& in, int dtype, uint8_t* element) {
  const double value = in.ConsumeIntegralInRange(0, 256) / 256.0;
  if (dtype == kFloat) {
    const float single = static_cast<float>(value);
    std::memcpy(element, &single, 4);
  } else if (dtype == kFloat16 || dtype == kBf16) {
    // value = m * 2^e with m in [1, 2): fp16 and bf16 hold k/256 exactly.
    uint16_t bits = 0;
    if (value > 0) {
      int exponent;
      const double fraction = std::frexp(value, &exponent);  // fraction in [0.5, 1)
      if (dtype == kFloat16) {
        bits = static_cast<uint16_t>(((exponent - 1 + 15) << 10) |
                                     static_cast<int>((fraction * 2 - 1) * 1024));
      } else {
        bits = static_cast<uint16_t>(((exponent - 1 + 127) << 7) |
                                     static_cast<int>((fraction * 2 - 1) * 128));
      }
    }
    std::memcpy(element, &bits, 2);
  }
}

// --- Tensors as the fuzzer describes them ---

enum Role {
  kSelf = OPENACLNN_ROLE_SELF,
  kTarget = OPENACLNN_ROLE_TARGET,
  kWeight = OPENACLNN_ROLE_WEIGHT,
  kPosWeight = OPENACLNN_ROLE_POS_WEIGHT,
  kGradOutput = OPENACLNN_ROLE_GRAD_OUTPUT,
  kOut = OPENACLNN_ROLE_OUT,
  kGradSelfOut = OPENACLNN_ROLE_GRAD_SELF_OUT,
  kRoles = OPENACLNN_ROLE_COUNT
};

struct Described {
  bool present = false;
  int dtype = kFloat;
  int format = 2;  // ACL_FORMAT_ND
  Shape shape, strides, storage;
  bool null_strides = false;  // aclCreateTensor computes contiguous ones
  int64_t offset = 0;
  aclTensor* tensor = nullptr;
  void* device = nullptr;
  std::vector<uint8_t> host;  // the storage as written (and, for out, as read back)
  bool destroyed = false;
};

int64_t CountOf(const Shape& shape) {
  __int128 count = 1;
  for (int64_t dim : shape) {
    if (dim < 0) return -1;
    count *= dim;
    if (count > kInt64Max) return -1;
  }
  return static_cast<int64_t>(count);
}

int64_t PickDim(FuzzedDataProvider& in) {
  const int kind = in.ConsumeIntegralInRange(0, 19);
  if (kind < 10) return kind % 5 + 1;
  if (kind < 12) return 0;
  if (kind < 16) return in.ConsumeIntegralInRange<int64_t>(1, 70);
  switch (kind) {
    case 16:
      return int64_t{1} << 32;
    case 17:
      return kInt64Max;
    case 18:
      return -1;
    default:
      return 4097;
  }
}

Shape PickShape(FuzzedDataProvider& in) {
  Shape shape(static_cast<size_t>(in.ConsumeIntegralInRange(0, 9) % 10 == 9 ? 9 : 0));
  if (shape.empty()) shape.resize(static_cast<size_t>(in.ConsumeIntegralInRange(0, 4)));
  for (int64_t& dim : shape) dim = PickDim(in);
  return shape;
}

// A shape for another operand: mostly self's, or one that broadcasts into it, or anything.
Shape RelatedShape(FuzzedDataProvider& in, const Shape& self) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:
      return PickShape(in);
    case 1:
    case 2: {
      Shape shape(self.begin() + in.ConsumeIntegralInRange<size_t>(0, self.size()), self.end());
      for (int64_t& dim : shape) {
        if (in.ConsumeBool()) dim = 1;
      }
      return shape;
    }
    default:
      return self;
  }
}

int PickDtype(FuzzedDataProvider& in, int usual) {
  switch (in.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return kFloat16;
    case 1:
      return kBf16;
    case 2:
      return kFloat;
    case 3:
      return kDouble;
    case 4:
      return kInt32;
    case 5:
      return in.ConsumeIntegralInRange(-100, 1100);
    default:
      return usual;
  }
}

int PickFormat(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return 0;  // NCHW
    case 1:
      return in.ConsumeIntegralInRange(-5, 100);
    default:
      return 2;  // ND
  }
}

void PickLayout(FuzzedDataProvider& in, Described* t) {
  const size_t rank = t->shape.size();
  Shape contiguous(rank, 1);
  for (size_t i = rank; i-- > 1;) {
    __int128 next = static_cast<__int128>(contiguous[i]) * std::max<int64_t>(t->shape[i], 1);
    contiguous[i - 1] = next > kInt64Max ? kInt64Max : static_cast<int64_t>(next);
  }
  t->strides = contiguous;
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
    case 1:
    case 2:
      t->null_strides = true;
      break;
    case 3:  // reversed dimension order (a transposed view)
      if (rank >= 2) {
        int64_t stride = 1;
        for (size_t i = 0; i < rank; ++i) {
          t->strides[i] = stride;
          stride = static_cast<int64_t>(std::min<__int128>(
              kInt64Max, static_cast<__int128>(stride) * std::max<int64_t>(t->shape[i], 1)));
        }
      }
      break;
    case 4:  // padded rows
      for (int64_t& stride : t->strides) {
        stride =
            static_cast<int64_t>(std::min<__int128>(kInt64Max, static_cast<__int128>(stride) * 2));
      }
      break;
    case 5:  // broadcast along one dimension
      if (rank > 0) t->strides[in.ConsumeIntegralInRange<size_t>(0, rank - 1)] = 0;
      break;
    case 6:
      for (int64_t& stride : t->strides) {
        switch (in.ConsumeIntegralInRange(0, 5)) {
          case 0:
            stride = -1;
            break;
          case 1:
            stride = kInt64Max - in.ConsumeIntegralInRange<int64_t>(0, 8);
            break;
          default:
            stride = in.ConsumeIntegralInRange<int64_t>(0, 40);
        }
      }
      break;
    default:
      break;
  }
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
      t->offset = in.ConsumeIntegralInRange<int64_t>(1, 9);
      break;
    case 1:
      t->offset = in.ConsumeBool() ? -1 : kInt64Max - in.ConsumeIntegralInRange<int64_t>(0, 4);
      break;
    default:
      t->offset = 0;
  }
  // The element count the view needs (offset + reach + 1), then the storage shape.
  __int128 needed = static_cast<__int128>(t->offset) + 1;
  bool empty = false;
  for (size_t i = 0; i < rank; ++i) {
    if (t->shape[i] == 0) empty = true;
    if (t->shape[i] > 0 && t->strides[i] > 0) {
      // Each term is below 2^126; saturating at 2^64 keeps the sum from overflowing.
      needed += static_cast<__int128>(t->strides[i]) * (t->shape[i] - 1);
      needed = std::min<__int128>(needed, static_cast<__int128>(1) << 64);
    }
  }
  if (empty) needed = 0;
  const int64_t fitting =
      needed > kInt64Max ? kInt64Max : static_cast<int64_t>(std::max<__int128>(needed, 0));
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
      t->storage = {std::max<int64_t>(fitting - 1, 0)};  // one element short
      break;
    case 1:
      t->storage = PickShape(in);
      break;
    case 2:
      t->storage = {fitting + in.ConsumeIntegralInRange<int64_t>(
                                  0, std::min<int64_t>(5, kInt64Max - fitting))};
      break;
    default:
      t->storage = {fitting};
  }
}

// Storage the fuzzer can back with memory gets it, filled with values; larger storage gets a
// null address (phase 1 may still accept it; phase 2 must then refuse). Targets are
// probabilities; so is self, mostly, in the probability family (outside [0, 1] its loss is NaN).
void Allocate(FuzzedDataProvider& in, openaclnnOpFamily family, Role role, bool output,
              Described* t) {
  const int64_t count = CountOf(t->storage);
  const size_t element = ElementBytes(t->dtype);
  if (count < 0 || static_cast<uint64_t>(count) > kMaxBytes / element) return;
  const size_t bytes = static_cast<size_t>(count) * element;
  t->host.assign(bytes, kSentinelByte);
  for (int64_t i = 0; i < count && !output; ++i) {
    uint8_t* at = t->host.data() + i * element;
    if (role == kTarget || (role == kSelf && family == OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY &&
                            in.ConsumeIntegralInRange(0, 7) != 0)) {
      EncodeProbability(in, t->dtype, at);
    } else {
      EncodeRandom(in, t->dtype,
                   role == kSelf ? (in.ConsumeIntegralInRange(0, 15) == 0 ? 15 : 5) : 2, false, at);
    }
  }
  if (aclrtMalloc(&t->device, std::max<size_t>(bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST) !=
      ACL_SUCCESS) {
    Fail("aclrtMalloc failed", std::to_string(bytes));
  }
  if (bytes > 0) {
    Require(aclrtMemcpy(t->device, bytes, t->host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) ==
                ACL_SUCCESS,
            "aclrtMemcpy to device failed");
  }
}

void Create(Described* t) {
  const Shape& view = t->shape;
  t->tensor = FuzzCreateTensor(view.data(), view.size(), t->dtype,
                               t->null_strides ? nullptr : t->strides.data(), t->offset, t->format,
                               t->storage.data(), t->storage.size(), t->device);
  if (t->tensor == nullptr) {
    Require(std::strlen(aclGetRecentErrMsg()) > 0, "aclCreateTensor failed without a message");
    t->present = false;  // the op sees nullptr
  }
}

// --- The reference ---

Real Softplus(Real y) { return y > 0 ? y + std::log1p(std::exp(-y)) : std::log1p(std::exp(y)); }

// What an output holds.
enum class Result { kLoss, kGradSelf, kGradTarget };

Result ResultOf(openaclnnOpKind kind, int role) {
  switch (kind) {
    case OPENACLNN_OP_GRAD_SELF:
      return Result::kGradSelf;
    case OPENACLNN_OP_GRAD_TARGET:
      return Result::kGradTarget;
    default:  // the loss, and the fused op's second output the gradient with respect to self
      return role == kGradSelfOut ? Result::kGradSelf : Result::kLoss;
  }
}

struct Problem {
  const openaclnnOpDescriptor* op = nullptr;
  int64_t reduction = 0;
  Described t[kRoles];
};

// The op's operand of `role`, or nullptr when it has none.
const openaclnnOperand* OperandOf(const openaclnnOpDescriptor& op, int role) {
  for (size_t i = 0; i < op.operandCount; ++i) {
    if (op.operands[i].role == role) return &op.operands[i];
  }
  return nullptr;
}

// Element of `t` at self's multi-index `index` (right-aligned broadcast).
Real ValueAt(const Described& t, const Shape& self_shape, const Shape& index) {
  if (!t.present) return 1;
  int64_t element = t.offset;
  const size_t lead = self_shape.size() - t.shape.size();
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] != 1) element += index[lead + i] * t.strides[i];
  }
  return Decode(t.dtype, t.host.data() + element * ElementBytes(t.dtype));
}

struct Expected {
  Real value;
  Real scale;  // magnitude of the terms, for cancellation-aware tolerances
};

// The with-logits family's loss or gradient at one element.
Expected WithLogits(Result result, Real x, Real t, Real w, Real pw, Real g) {
  const Real sp_neg = Softplus(-x), sp_pos = Softplus(x);
  const Real log_sigmoid = -sp_neg, log_one_minus = -sp_pos;
  if (result == Result::kLoss) {
    const Real a = -pw * t * log_sigmoid, b = -(1 - t) * log_one_minus;
    return {w * (a + b), std::fabs(w) * (std::fabs(a) + std::fabs(b))};
  }
  if (result == Result::kGradSelf) {
    const Real sigmoid = 1 / (1 + std::exp(-x));
    const Real a = (pw * t + 1 - t) * sigmoid, b = pw * t;
    return {w * g * (a - b), std::fabs(w * g) * (std::fabs(a) + std::fabs(b))};
  }
  const Real a = pw * sp_neg, b = sp_pos;
  return {w * g * (a - b), std::fabs(w * g) * (std::fabs(a) + std::fabs(b))};
}

// The probability family's: logs clamped at -100, the gradient's denominator at fl32(1e-12).
Expected Probabilities(Result result, Real x, Real t, Real w, Real g) {
  if (result == Result::kLoss) {
    const Real a = t * std::max(std::log(x), Real{-100});
    const Real b = (1 - t) * std::max(std::log1p(-x), Real{-100});
    return {-w * (a + b), std::fabs(w) * (std::fabs(a) + std::fabs(b))};
  }
  const Real denominator = std::max(x * (1 - x), static_cast<Real>(1e-12f));
  return {g * w * (x - t) / denominator,
          std::fabs(g * w) * (std::fabs(x) + std::fabs(t)) / denominator};
}

Expected Reference(const Problem& p, Result result, const Shape& index, Real count) {
  const Shape& shape = p.t[kSelf].shape;
  const Real x = ValueAt(p.t[kSelf], shape, index), t = ValueAt(p.t[kTarget], shape, index);
  const Real w = ValueAt(p.t[kWeight], shape, index), pw = ValueAt(p.t[kPosWeight], shape, index);
  const Real g = result == Result::kLoss
                     ? 1
                     : ValueAt(p.t[kGradOutput], shape, index) * (p.reduction == 1 ? 1 / count : 1);
  return p.op->family == OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY ? Probabilities(result, x, t, w, g)
                                                               : WithLogits(result, x, t, w, pw, g);
}

struct TypeLimits {
  Real relative, tiny, max;
};

TypeLimits LimitsOf(int dtype) {
  switch (dtype) {
    case kFloat16:
      return {0x1p-10L, 0x1p-24L, 65504};
    case kBf16:
      return {0x1p-7L, 0x1p-133L, 0x1.fep127L};
    default:
      return {0x1p-21L, 0x1p-149L, 0x1.fffffep127L};
  }
}

void Compare(Real got, Real exact, Real scale, int dtype, const char* what) {
  if (std::isnan(exact)) {  // a probability outside [0, 1]
    Require(std::isnan(got), what, "expected NaN");
    return;
  }
  const TypeLimits limits = LimitsOf(dtype);
  if (std::fabs(exact) > limits.max) {
    Require(std::isinf(got) || std::fabs(got) >= limits.max, what, "expected overflow");
    return;
  }
  // Terms that cancel (negative weights, gradients) may lose fp32's digits of their magnitude.
  const Real tolerance = limits.relative * std::fabs(exact) + 0x1p-21L * scale + limits.tiny;
  if (!(std::fabs(got - exact) <= tolerance)) {
    char text[160];
    std::snprintf(text, sizeof text, "got %.9Lg, exact %.12Lg (scale %.3Lg, dtype %d)", got, exact,
                  scale, dtype);
    Fail(what, text);
  }
}

void ForEachIndex(const Shape& shape, auto&& visit) {
  const int64_t count = CountOf(shape);
  Shape index(shape.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    for (size_t i = shape.size(); i-- > 0;) {
      index[i] = rest % shape[i];
      rest /= shape[i];
    }
    visit(index);
  }
}

int64_t OutElement(const Described& out, const Shape& index) {
  int64_t element = out.offset;
  for (size_t i = 0; i < index.size(); ++i) element += index[i] * out.strides[i];
  return element;
}

// Reads output `role` back and checks every element of its view against the reference, and
// every other byte of its storage for the sentinel.
void CheckResult(Problem& p, int role) {
  const Described& out = p.t[role];
  const Result result = ResultOf(p.op->kind, role);
  std::vector<uint8_t> got(out.host.size());
  if (!got.empty()) {
    Require(aclrtMemcpy(got.data(), got.size(), out.device, got.size(),
                        ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
            "aclrtMemcpy from device failed");
  }
  const size_t element_bytes = ElementBytes(out.dtype);
  const Shape& shape = p.t[kSelf].shape;
  const Real count = static_cast<Real>(CountOf(shape));
  std::set<int64_t> written;
  if (result == Result::kLoss && p.reduction != 0) {
    Real total = 0, scale = 0;
    ForEachIndex(shape, [&](const Shape& index) {
      const Expected e = Reference(p, result, index, count);
      total += e.value;
      scale += e.scale;
    });
    const int64_t element = out.offset;
    const Real value = Decode(out.dtype, got.data() + element * element_bytes);
    if (count == 0) {
      Require(p.reduction == 1 ? std::isnan(value) : value == 0, "empty reduction");
    } else {
      if (p.reduction == 1) total /= count, scale /= count;
      Compare(value, total, scale, out.dtype, "reduced loss");
    }
    written.insert(element);
  } else {
    // Overlapping output elements (a zero stride) have no single expected value.
    bool overlapping = false;
    ForEachIndex(shape, [&](const Shape& index) {
      overlapping |= !written.insert(OutElement(out, index)).second;
    });
    if (!overlapping) {
      ForEachIndex(shape, [&](const Shape& index) {
        const Expected e = Reference(p, result, index, count);
        const int64_t element = OutElement(out, index);
        Compare(Decode(out.dtype, got.data() + element * element_bytes), e.value, e.scale,
                out.dtype, "element");
      });
    }
  }
  for (size_t byte = 0; byte < got.size(); ++byte) {
    if (written.count(static_cast<int64_t>(byte / element_bytes)) == 0) {
      Require(got[byte] == kSentinelByte, "a byte outside out's view was written");
    }
  }
}

// --- Driving the API ---

// What a run compared, printed at exit: a fuzzer that never gets past the checks proves little.
struct Tally {
  long launches = 0, elements = 0;
  long per_op[16] = {};  // by table index: an op never compared is an op not fuzzed
  ~Tally() {
    std::fprintf(stderr, "compared %ld launches, %ld elements\n", launches, elements);
    for (size_t i = 0; i < openaclnnOpCount() && i < std::size(per_op); ++i) {
      std::fprintf(stderr, "  %s: %ld launches\n", openaclnnGetOp(i)->api, per_op[i]);
    }
  }
} g_tally;

aclrtStream g_stream = nullptr;

aclnnStatus PhaseOne(const Problem& p, uint64_t* workspace_size, aclOpExecutor** executor) {
  std::vector<const aclTensor*> operands;
  for (size_t i = 0; i < p.op->operandCount; ++i) {
    const Described& t = p.t[p.op->operands[i].role];
    operands.push_back(t.present ? t.tensor : nullptr);
  }
  return p.op->getWorkspaceSize(operands.data(), p.reduction, nullptr, workspace_size, executor);
}

aclnnStatus PhaseTwo(const Problem& p, void* workspace, uint64_t size, aclOpExecutor* executor,
                     aclrtStream stream) {
  return p.op->launch(workspace, size, executor, stream);
}

void RequireFailed(aclnnStatus status, const char* what) {
  Require(status != ACLNN_SUCCESS, what, "was accepted");
  Require(std::strlen(aclGetRecentErrMsg()) > 0, what, "failed without a message");
}

enum class Misuse {
  kNone,
  kDestroyTensor,
  kDestroyExecutor,
  kDeadStream,
  kSmallWorkspace,
  kRepeat,
  kRelaunchOneShot,
  kForceDestroyStream,
  kCount
};

// Phase 2 as `misuse` says; true when the results must be the reference's.
bool Launch(FuzzedDataProvider& in, Problem& p, aclOpExecutor* executor, uint64_t workspace_size,
            Misuse misuse) {
  void* workspace = nullptr;
  if (workspace_size > 0) {
    if (workspace_size > (1u << 24)) {
      aclDestroyAclOpExecutor(executor);
      return false;
    }
    Require(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS,
            "workspace aclrtMalloc");
  }
  bool compare = false;
  switch (misuse) {
    case Misuse::kDestroyTensor: {
      Described& victim = p.t[in.ConsumeIntegralInRange(0, kRoles - 1)];
      if (victim.present && victim.tensor != nullptr) {
        aclDestroyTensor(victim.tensor);
        victim.destroyed = true;
        RequireFailed(PhaseTwo(p, workspace, workspace_size, executor, g_stream),
                      "phase 2 after aclDestroyTensor");
      } else {
        aclDestroyAclOpExecutor(executor);
      }
      break;
    }
    case Misuse::kDestroyExecutor:
      Require(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, "aclDestroyAclOpExecutor");
      RequireFailed(PhaseTwo(p, workspace, workspace_size, executor, g_stream),
                    "phase 2 of a destroyed executor");
      break;
    case Misuse::kDeadStream: {
      aclrtStream dead = nullptr;
      Require(aclrtCreateStream(&dead) == ACL_SUCCESS, "aclrtCreateStream");
      Require(aclrtDestroyStream(dead) == ACL_SUCCESS, "aclrtDestroyStream");
      RequireFailed(PhaseTwo(p, workspace, workspace_size, executor, dead),
                    "phase 2 on a destroyed stream");
      break;
    }
    case Misuse::kSmallWorkspace:
      if (workspace_size > 0) {
        RequireFailed(PhaseTwo(p, workspace, workspace_size - 1, executor, g_stream),
                      "phase 2 with a small workspace");
      } else {
        aclDestroyAclOpExecutor(executor);
      }
      break;
    case Misuse::kRepeat:
      Require(aclSetAclOpExecutorRepeatable(executor) == ACLNN_SUCCESS, "repeatable");
      for (int run = 0; run < 2; ++run) {
        compare = PhaseTwo(p, workspace, workspace_size, executor, g_stream) == ACLNN_SUCCESS;
      }
      Require(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, "destroy repeatable");
      break;
    case Misuse::kRelaunchOneShot:
      compare = PhaseTwo(p, workspace, workspace_size, executor, g_stream) == ACLNN_SUCCESS;
      RequireFailed(PhaseTwo(p, workspace, workspace_size, executor, g_stream),
                    "a one-shot executor launched twice");
      break;
    case Misuse::kForceDestroyStream: {
      aclrtStream doomed = nullptr;
      Require(aclrtCreateStream(&doomed) == ACL_SUCCESS, "aclrtCreateStream");
      PhaseTwo(p, workspace, workspace_size, executor, doomed);
      Require(aclrtDestroyStreamForce(doomed) == ACL_SUCCESS, "aclrtDestroyStreamForce");
      break;
    }
    default:
      compare = PhaseTwo(p, workspace, workspace_size, executor, g_stream) == ACLNN_SUCCESS;
  }
  Require(aclrtSynchronizeStream(g_stream) == ACL_SUCCESS, "aclrtSynchronizeStream");
  if (workspace != nullptr) aclrtFree(workspace);
  return compare;
}

void RunOne(FuzzedDataProvider& in) {
  Problem p;
  const size_t op_index = in.ConsumeIntegralInRange<size_t>(0, openaclnnOpCount() - 1);
  p.op = openaclnnGetOp(op_index);
  p.reduction = in.ConsumeIntegralInRange(0, 20) == 0 ? in.ConsumeIntegral<int64_t>()
                                                      : in.ConsumeIntegralInRange(0, 2);
  const int dtype = in.PickValueInArray({kFloat, kFloat, kFloat16, kBf16});
  p.t[kSelf].shape = PickShape(in);
  for (int r = 0; r < kRoles; ++r) {
    const openaclnnOperand* operand = OperandOf(*p.op, r);
    if (operand == nullptr) continue;
    Described& t = p.t[r];
    // Optional ones half the time; required ones now and then null.
    t.present = operand->optional ? in.ConsumeBool() : in.ConsumeIntegralInRange(0, 40) != 0;
    if (!t.present) continue;
    if (r != kSelf) {
      const bool one_element = operand->reduced && p.reduction != 0;
      t.shape = one_element ? (in.ConsumeBool() ? Shape{1} : Shape{})
                            : RelatedShape(in, p.t[kSelf].shape);
      if (operand->output || r == kTarget) {
        if (in.ConsumeIntegralInRange(0, 10) == 0) t.shape = PickShape(in);
      }
    }
    t.dtype = PickDtype(in, dtype);
    t.format = PickFormat(in);
    PickLayout(in, &t);
    Allocate(in, p.op->family, static_cast<Role>(r), operand->output != 0, &t);
    Create(&t);
  }
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const bool null_outputs = in.ConsumeIntegralInRange(0, 30) == 0;
  const aclnnStatus planned =
      null_outputs ? PhaseOne(p, nullptr, nullptr) : PhaseOne(p, &workspace_size, &executor);
  if (planned != ACLNN_SUCCESS) {
    Require(std::strlen(aclGetRecentErrMsg()) > 0, "phase 1 failed without a message");
  } else if (CountOf(p.t[kSelf].shape) > kMaxElements) {
    // Valid (zero strides let a small storage hold a huge view), but too long to run here.
    Require(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, "aclDestroyAclOpExecutor");
  } else {
    Require(!null_outputs && executor != nullptr, "phase 1 succeeded without an executor");
    const auto misuse = static_cast<Misuse>(
        in.ConsumeIntegralInRange(0, 3) != 0
            ? 0
            : in.ConsumeIntegralInRange(0, static_cast<int>(Misuse::kCount) - 1));
    const bool has_memory = [&] {
      for (const Described& t : p.t) {
        if (t.present && t.device == nullptr && CountOf(t.shape) != 0) return false;
      }
      return true;
    }();
    const bool ran = Launch(in, p, executor, workspace_size, misuse);
    if (ran) {
      Require(has_memory, "phase 2 accepted a tensor without an address");
      for (size_t i = 0; i < p.op->operandCount; ++i) {
        if (p.op->operands[i].output) CheckResult(p, p.op->operands[i].role);
      }
      ++g_tally.launches;
      g_tally.elements += CountOf(p.t[kSelf].shape);
      ++g_tally.per_op[op_index % std::size(g_tally.per_op)];
    }
  }
  for (Described& t : p.t) {
    if (t.tensor != nullptr && !t.destroyed) aclDestroyTensor(t.tensor);
    if (t.device != nullptr) aclrtFree(t.device);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("OPENACLNN_LOG_LEVEL", "null", 0);  // the messages are checked, not printed
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
      aclrtCreateStream(&g_stream) != ACL_SUCCESS) {
    Fail("runtime setup");
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  RunOne(in);
  aclGetRecentErrMsg();  // leave no message behind for the next input
  return 0;
}
