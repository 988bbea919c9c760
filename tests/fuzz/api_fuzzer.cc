// libFuzzer target over the public C API of every op of the library's op table
// (openaclnn/op_table.h), every loss family, as a careless or hostile caller uses it: the input
// bytes decode into an op and its tensors (shapes that broadcast or not, strides, offsets,
// storage shapes, dtypes mixed, integer or invalid, formats, nulls), a reduction, the op's
// scalar attributes (valid or not), and what phase 2 does (a normal launch, or a destroyed
// tensor, executor or stream, a small workspace, a relaunch, a forced stream destruction).
// Whatever the library accepts and runs is compared with a long double reference computed here
// from the textbook formula of the op's family (kFamilies, the one table keyed by element-wise
// family) over the broadcast shape, reduced or summed back into the output by the operand rows'
// rules; whatever it rejects must come with a message. The class-axis ops (NLL, cross entropy)
// draw mostly valid calls of their own shapes, their phase 1 status is predicted from their
// checks, a target out of range must fail the stream, and their results are compared with their
// own long double reference. The sanitizers (address, undefined, leak) watch everything else.
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
constexpr int kFloat = 0, kFloat16 = 1, kInt8 = 2, kInt32 = 3, kUint8 = 4, kInt16 = 6, kInt64 = 9,
              kDouble = 11, kBool = 12, kBf16 = 27;

[[noreturn]] void Fail(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "FUZZ FAILURE: %s %s\n", what, detail.c_str());
  std::abort();
}

void Require(bool condition, const char* what, const std::string& detail = "") {
  if (!condition) Fail(what, detail);
}

size_t ElementBytes(int dtype) {
  switch (dtype) {
    case kInt8:
    case kUint8:
    case kBool:
      return 1;
    case kFloat16:
    case kBf16:
    case kInt16:
      return 2;
    case kFloat:
    case kInt32:
      return 4;
    default:
      return 8;
  }
}

bool IsInteger(int dtype) {
  return dtype == kInt8 || dtype == kInt16 || dtype == kInt32 || dtype == kInt64 ||
         dtype == kUint8 || dtype == kBool;
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

// An integer element (bool as 0 or 1, as the library reads it).
int64_t DecodeInteger(int dtype, const uint8_t* element) {
  switch (dtype) {
    case kInt8:
      return static_cast<int8_t>(element[0]);
    case kUint8:
      return element[0];
    case kBool:
      return element[0] != 0;
    case kInt16: {
      int16_t value;
      std::memcpy(&value, element, 2);
      return value;
    }
    case kInt32: {
      int32_t value;
      std::memcpy(&value, element, 4);
      return value;
    }
    default: {
      int64_t value;
      std::memcpy(&value, element, 8);
      return value;
    }
  }
}

// Any element the reference reads; a dtype it cannot read, accepted by the library, is a failure
// in itself: the reference has no value for it.
Real Decode(int dtype, const uint8_t* element) {
  uint16_t half;
  float single;
  double wide;
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
    case kDouble:
      std::memcpy(&wide, element, 8);
      return wide;
    default:
      if (IsInteger(dtype)) return static_cast<Real>(DecodeInteger(dtype, element));
      Fail("the library accepted a dtype the reference cannot read", std::to_string(dtype));
  }
}

// A finite value of `dtype`, its magnitude below 2^max_exponent (an integer dtype: a small
// integer, or now and then its extremes, where an integer loss wraps), written at `element`.
void EncodeRandom(FuzzedDataProvider& in, int dtype, int max_exponent, bool non_negative,
                  uint8_t* element) {
  if (IsInteger(dtype)) {
    int64_t value = in.ConsumeIntegralInRange<int64_t>(non_negative ? 0 : -8, 8);
    if (dtype == kBool) value = value & 1;
    if (dtype == kInt64 && in.ConsumeIntegralInRange(0, 15) == 0) {
      value = in.ConsumeBool() ? std::numeric_limits<int64_t>::min() : kInt64Max;
    }
    std::memcpy(element, &value, ElementBytes(dtype));  // little-endian: the low bytes
    return;
  }
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
    case kFloat:
    case kDouble: {
      const double value =
          std::ldexp(1.0 + (mantissa & 0x7fffff) * 0x1p-23, exponent) * (negative ? -1 : 1);
      if (dtype == kDouble) {
        std::memcpy(element, &value, 8);
      } else {
        const auto single = static_cast<float>(value);
        std::memcpy(element, &single, 4);
      }
      break;
    }
    default:
      break;
  }
}

// A value in [0, 1]: k/256 is exact in every floating type here (0 or 1 for an integer dtype).
void EncodeProbability(FuzzedDataProvider& in, int dtype, uint8_t* element) {
  const int k = in.ConsumeIntegralInRange(0, 256);
  if (IsInteger(dtype)) {
    const int64_t value = k >= 128;
    std::memcpy(element, &value, ElementBytes(dtype));
    return;
  }
  const double value = k / 256.0;
  if (dtype == kFloat) {
    const float single = static_cast<float>(value);
    std::memcpy(element, &single, 4);
  } else if (dtype == kDouble) {
    std::memcpy(element, &value, 8);
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
  kTotalWeight = OPENACLNN_ROLE_TOTAL_WEIGHT,
  kTotalWeightOut = OPENACLNN_ROLE_TOTAL_WEIGHT_OUT,
  kLogProbOut = OPENACLNN_ROLE_LOG_PROB_OUT,
  kZlossOut = OPENACLNN_ROLE_ZLOSS_OUT,
  kLseForZlossOut = OPENACLNN_ROLE_LSE_FOR_ZLOSS_OUT,
  kGradZloss = OPENACLNN_ROLE_GRAD_ZLOSS,
  kLseForZloss = OPENACLNN_ROLE_LSE_FOR_ZLOSS,
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

// A shape for an input: mostly the problem's base shape, or one that broadcasts into it (leading
// dimensions dropped, some set to 1: so that self may be the smaller one and target the larger),
// or anything.
Shape RelatedShape(FuzzedDataProvider& in, const Shape& base) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:
      return PickShape(in);
    case 1:
    case 2: {
      Shape shape(base.begin() + in.ConsumeIntegralInRange<size_t>(0, base.size()), base.end());
      for (int64_t& dim : shape) {
        if (in.ConsumeBool()) dim = 1;
      }
      return shape;
    }
    default:
      return base;
  }
}

// Mostly the call's usual dtype; now and then another float, an integer (the L1 loss takes
// integers, with a float partner or all int64), or any int.
int PickDtype(FuzzedDataProvider& in, int usual) {
  switch (in.ConsumeIntegralInRange(0, 19)) {
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
    case 6:
    case 7:
      return kInt64;
    case 8:
      return in.PickValueInArray({kInt8, kUint8, kInt16, kBool});
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

// `sound`: only views that fit their storage (no arbitrary strides, no offset out of range, no
// storage too short or arbitrary), for the class-axis ops, whose many tensors would otherwise
// almost never all pass phase 1. The bytes are consumed alike either way.
void PickLayout(FuzzedDataProvider& in, Described* t, bool sound = false) {
  const size_t rank = t->shape.size();
  Shape contiguous(rank, 1);
  for (size_t i = rank; i-- > 1;) {
    __int128 next = static_cast<__int128>(contiguous[i]) * std::max<int64_t>(t->shape[i], 1);
    contiguous[i - 1] = next > kInt64Max ? kInt64Max : static_cast<int64_t>(next);
  }
  t->strides = contiguous;
  const int strides = in.ConsumeIntegralInRange(0, 9);
  switch (sound && strides == 6 ? 7 : strides) {
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
  const int offset = in.ConsumeIntegralInRange(0, 9);
  switch (sound && offset == 1 ? 2 : offset) {
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
  const int storage = in.ConsumeIntegralInRange(0, 9);
  switch (sound && storage < 2 ? 3 : storage) {
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

// --- The reference: one formula per family ---

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

// The operands at one element of the broadcast shape; g already divided by the reduction's
// divisor (1 where the op has no gradOutput).
struct Point {
  Real x, t, w, pw, g;
  bool integral;  // x and t integers, so their promoted type is: the L1 loss then wraps, in int64
  int64_t xi, ti;
};

// The op's scalar attributes, as it reads them (a float narrowed, a bool nonzero).
struct Attributes {
  Real beta = 1;            // smooth L1 (float)
  Real delta = 1;           // Huber (double)
  bool huber = false;       // the smooth L1 family's op takes delta, not beta
  bool log_target = false;  // KL divergence
};

struct Expected {
  Real value;
  Real scale;  // magnitude of the terms, for cancellation-aware tolerances
  bool integral = false;
  int64_t integer = 0;  // an integral value, wrapped as int64 arithmetic wraps
};

Real Softplus(Real y) { return y > 0 ? y + std::log1p(std::exp(-y)) : std::log1p(std::exp(y)); }

// 1 / (1 + e^z) without overflow.
Real SigmoidOfMinus(Real z) {
  if (z <= 0) return 1 / (1 + std::exp(z));
  const Real e = std::exp(-z);
  return e / (1 + e);
}

// sign(d), NaN for NaN (the contract hides no NaN input behind a zero).
Real Sign(Real d) { return std::isnan(d) ? d : d > 0 ? 1 : d < 0 ? -1 : 0; }

Expected Of(Real value) { return {value, std::fabs(value)}; }

// The with-logits family's loss or gradient at one element.
Expected WithLogits(Result result, const Point& p, const Attributes&) {
  const Real x = p.x, t = p.t, w = p.w, pw = p.pw, g = p.g;
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
// Outside [0, 1] the loss is NaN, which the library gives too.
Expected Probabilities(Result result, const Point& p, const Attributes&) {
  const Real x = p.x, t = p.t, w = p.w, g = p.g;
  if (result == Result::kLoss) {
    const Real a = t * std::max(std::log(x), Real{-100});
    const Real b = (1 - t) * std::max(std::log1p(-x), Real{-100});
    return {-w * (a + b), std::fabs(w) * (std::fabs(a) + std::fabs(b))};
  }
  const Real denominator = std::max(x * (1 - x), static_cast<Real>(1e-12f));
  return {g * w * (x - t) / denominator,
          std::fabs(g * w) * (std::fabs(x) + std::fabs(t)) / denominator};
}

// d^2 and 2 g d (the target's gradient the negative).
Expected Mse(Result result, const Point& p, const Attributes&) {
  const Real d = p.x - p.t;
  if (result == Result::kLoss) return Of(d * d);
  return Of((result == Result::kGradSelf ? 2 : -2) * p.g * d);
}

// |d| (integers: wrapped, |INT64_MIN| = INT64_MIN, as CANN and PyTorch) and g sign(d).
Expected L1(Result result, const Point& p, const Attributes&) {
  if (result == Result::kLoss && p.integral) {
    const uint64_t d = static_cast<uint64_t>(p.xi) - static_cast<uint64_t>(p.ti);
    const uint64_t magnitude = static_cast<int64_t>(d) < 0 ? 0 - d : d;
    const auto integer = static_cast<int64_t>(magnitude);
    return {static_cast<Real>(integer), std::fabs(static_cast<Real>(integer)), true, integer};
  }
  const Real d = p.x - p.t;
  if (result == Result::kLoss) return Of(std::fabs(d));
  return Of((result == Result::kGradSelf ? 1 : -1) * p.g * Sign(d));
}

// Smooth L1 (beta: |d| < beta ? d^2 / (2 beta) : |d| - beta / 2) and Huber (delta: |d| < delta ?
// d^2 / 2 : delta (|d| - delta / 2)); the gradients g d / beta or g sign(d), g d or g delta
// sign(d); beta = 0 is the L1 loss, with sign(0) = 0.
Expected SmoothL1(Result result, const Point& p, const Attributes& a) {
  const Real d = p.x - p.t, size = std::fabs(d);
  const Real limit = a.huber ? a.delta : a.beta;
  const bool inside = size < limit;
  if (result == Result::kLoss) {
    if (inside) return Of(a.huber ? d * d / 2 : d * d / (2 * a.beta));
    const Real scale = a.huber ? a.delta : 1;
    return {scale * (size - limit / 2), std::fabs(scale) * (size + limit / 2)};
  }
  const Real g = result == Result::kGradSelf ? p.g : -p.g;
  if (inside) return Of(a.huber ? g * d : g * d / a.beta);
  return Of(a.huber ? g * a.delta * Sign(d) : g * Sign(d));
}

// log(1 + e^-z), z = x t, and -t g sigmoid(-z) (the target's: -x g sigmoid(-z)).
Expected SoftMargin(Result result, const Point& p, const Attributes&) {
  const Real z = p.x * p.t;
  if (result == Result::kLoss) return Of(Softplus(-z));
  const Real factor = result == Result::kGradSelf ? p.t : p.x;
  return Of(-factor * p.g * SigmoidOfMinus(z));
}

// t (ln t - x) with ln 0 taken as 0 (NaN for t < 0), or e^t (t - x) for log targets; -g t or
// -g e^t; the target's g (ln t - x + 1) (NaN at t <= 0) or g e^t (t - x + 1).
Expected KlDiv(Result result, const Point& p, const Attributes& a) {
  const Real x = p.x, t = p.t, g = p.g;
  if (a.log_target) {
    const Real e = std::exp(t);
    if (result == Result::kLoss) return {e * (t - x), e * (std::fabs(t) + std::fabs(x))};
    if (result == Result::kGradSelf) return Of(-g * e);
    return {g * e * (t - x + 1), std::fabs(g) * e * (std::fabs(t) + std::fabs(x) + 1)};
  }
  if (result == Result::kGradSelf) return Of(-g * t);
  if (t < 0 || std::isnan(t) || (t == 0 && result == Result::kGradTarget)) return {NAN, 0};
  const Real l = t == 0 ? 0 : std::log(t);
  if (result == Result::kLoss) return {t * (l - x), std::fabs(t) * (std::fabs(l) + std::fabs(x))};
  return {g * (l - x + 1), std::fabs(g) * (std::fabs(l) + std::fabs(x) + 1)};
}

// How the fuzzer draws a family's self and target.
enum class Draw { kAny, kProbability, kMostlyProbability };

// The formula table: one row per element-wise openaclnnOpFamily, in its order.
struct FamilyRow {
  Expected (*formula)(Result, const Point&, const Attributes&);
  Draw self, target;
};
constexpr FamilyRow kFamilies[] = {
    {WithLogits, Draw::kAny, Draw::kProbability},                   // BCE with logits
    {Probabilities, Draw::kMostlyProbability, Draw::kProbability},  // binary cross entropy
    {Mse, Draw::kAny, Draw::kAny},                                  // MSE
    {L1, Draw::kAny, Draw::kAny},                                   // L1
    {SmoothL1, Draw::kAny, Draw::kAny},                             // smooth L1, Huber
    {SoftMargin, Draw::kAny, Draw::kAny},                           // soft margin
    {KlDiv, Draw::kAny, Draw::kMostlyProbability},                  // KL divergence
};
// The class-axis families, after these, have their own reference (CheckNll, CheckCrossEntropy).
static_assert(std::size(kFamilies) == OPENACLNN_FAMILY_KL_DIV + 1, "a row per element-wise family");

const FamilyRow& FamilyOf(const openaclnnOpDescriptor& op) {
  if (static_cast<size_t>(op.family) >= std::size(kFamilies)) {
    Fail("an op of a family the reference has no formula for", op.api);
  }
  return kFamilies[op.family];
}

// Storage the fuzzer can back with memory gets it (`host` its bytes, all the sentinel until
// filled); larger storage gets a null address (phase 1 may still accept it; phase 2 must then
// refuse). False for the latter.
bool Reserve(Described* t) {
  const int64_t count = CountOf(t->storage);
  const size_t element = ElementBytes(t->dtype);
  if (count < 0 || static_cast<uint64_t>(count) > kMaxBytes / element) return false;
  t->host.assign(static_cast<size_t>(count) * element, kSentinelByte);
  return true;
}

// Copies `host` into device memory.
void Upload(Described* t) {
  const size_t bytes = t->host.size();
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

// An element-wise op's storage, filled with values: a family's self and target as its row says
// (probabilities for the binary cross entropy's targets, KL divergence's mostly), the rest
// finite values.
void Allocate(FuzzedDataProvider& in, const FamilyRow& family, Role role, bool output,
              Described* t) {
  if (!Reserve(t)) return;
  const size_t element = ElementBytes(t->dtype);
  const auto count = static_cast<int64_t>(t->host.size() / element);
  const Draw draw = role == kSelf ? family.self : role == kTarget ? family.target : Draw::kAny;
  for (int64_t i = 0; i < count && !output; ++i) {
    uint8_t* at = t->host.data() + i * element;
    if (draw == Draw::kProbability ||
        (draw == Draw::kMostlyProbability && in.ConsumeIntegralInRange(0, 7) != 0)) {
      EncodeProbability(in, t->dtype, at);
    } else {
      EncodeRandom(in, t->dtype,
                   role == kSelf ? (in.ConsumeIntegralInRange(0, 15) == 0 ? 15 : 5) : 2, false, at);
    }
  }
  Upload(t);
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

struct Problem {
  const openaclnnOpDescriptor* op = nullptr;
  const FamilyRow* family = nullptr;
  int64_t reduction = 0;
  bool default_attributes = false;  // phase 1 gets nullptr: PyTorch's defaults
  std::vector<double> attributes;   // one per op attribute, as passed
  Described t[kRoles];
  Shape broadcast;  // of every input present: where the element-wise values live
  // CANN's binary cross entropies compare no other shape with an empty self (differences D3,
  // checks-and-codes §3 and §11): anything passes, and the result is that of no elements.
  bool shapes_unchecked = false;
};

// The op's operand of `role`, or nullptr when it has none.
const openaclnnOperand* OperandOf(const openaclnnOpDescriptor& op, int role) {
  for (size_t i = 0; i < op.operandCount; ++i) {
    if (op.operands[i].role == role) return &op.operands[i];
  }
  return nullptr;
}

// The broadcast shape of `shapes` (numpy's rules); false when they do not broadcast.
bool Broadcast(const std::vector<const Shape*>& shapes, Shape* out) {
  size_t rank = 0;
  for (const Shape* shape : shapes) rank = std::max(rank, shape->size());
  out->assign(rank, 1);
  for (const Shape* shape : shapes) {
    for (size_t i = 0; i < shape->size(); ++i) {
      int64_t& dim = (*out)[rank - shape->size() + i];
      if ((*shape)[i] == dim || (*shape)[i] == 1) continue;
      if (dim != 1) return false;
      dim = (*shape)[i];
    }
  }
  return true;
}

// The broadcast shape of the problem's inputs (those present and not outputs).
bool InputsBroadcast(const Problem& p, Shape* out) {
  std::vector<const Shape*> shapes;
  for (int r = 0; r < kRoles; ++r) {
    const openaclnnOperand* operand = OperandOf(*p.op, r);
    if (operand != nullptr && !operand->output && p.t[r].present) shapes.push_back(&p.t[r].shape);
  }
  return Broadcast(shapes, out);
}

// The most elements a launch of `p` visits: the broadcast shape's, or an output's (a sum of nothing
// fills all of an output, which zero strides let a small storage hold).
int64_t LongestRun(const Problem& p) {
  int64_t longest = CountOf(p.broadcast);
  for (size_t i = 0; i < p.op->operandCount; ++i) {
    const Described& t = p.t[p.op->operands[i].role];
    if (p.op->operands[i].output && t.present) longest = std::max(longest, CountOf(t.shape));
  }
  return longest;
}

// The shape an output's operand row gives it (a one-element reduced loss as [], which any
// one-element shape may stand for).
Shape RuleShape(const Problem& p, const openaclnnOperand& operand, const Shape& fallback) {
  Shape shape = fallback;
  if (operand.shapeOf == OPENACLNN_SHAPE_OF_INPUTS) {
    if (!InputsBroadcast(p, &shape)) shape = fallback;
  } else if (p.t[operand.shapeOf].present) {
    shape = p.t[operand.shapeOf].shape;
  }
  if (p.reduction != 0 && operand.reduced == OPENACLNN_REDUCED_TO_ONE) shape.clear();
  if (p.reduction != 0 && operand.reduced == OPENACLNN_REDUCED_FIRST_DIM && !shape.empty()) {
    shape.erase(shape.begin());
  }
  return shape;
}

Attributes AttributesOf(const Problem& p) {
  Attributes a;
  for (size_t k = 0; k < p.op->attributeCount; ++k) {
    const openaclnnAttribute& attribute = p.op->attributes[k];
    double value = p.default_attributes ? attribute.defaultValue : p.attributes[k];
    if (attribute.type == OPENACLNN_ATTRIBUTE_FLOAT) value = static_cast<float>(value);
    const std::string name = attribute.name;
    if (name == "beta") {
      a.beta = value;
    } else if (name == "delta") {
      a.delta = value;
      a.huber = true;
    } else if (name == "logTarget") {
      a.log_target = value != 0;
    } else {
      Fail("an attribute the reference does not know", name);
    }
  }
  return a;
}

// A gradient's divisor, the forward's: N = numel(broadcast(self, target)) for mean,
// self.size(0) (1 for a 0-D self) for batchmean, else 1.
Real Divisor(const Problem& p) {
  const Shape& self = p.t[kSelf].shape;
  if (p.reduction == 3) return self.empty() ? 1 : static_cast<Real>(self[0]);
  if (p.reduction != 1) return 1;
  Shape pair;
  Broadcast({&self, &p.t[kTarget].shape}, &pair);
  return static_cast<Real>(CountOf(pair));
}

// Element of `t` at the broadcast shape's multi-index `index` (right-aligned); an absent operand
// is 1 (no weight, gradOutput all ones).
Real ValueAt(const Described& t, const Shape& broadcast, const Shape& index,
             int64_t* integer = nullptr) {
  if (!t.present) return 1;
  int64_t element = t.offset;
  const size_t lead = broadcast.size() - t.shape.size();
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] != 1) element += index[lead + i] * t.strides[i];
  }
  const uint8_t* at = t.host.data() + element * ElementBytes(t.dtype);
  if (integer != nullptr && IsInteger(t.dtype)) *integer = DecodeInteger(t.dtype, at);
  return Decode(t.dtype, at);
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
    case kDouble:
      return {0x1p-50L, 0x1p-1074L, 0x1.fffffffffffffp1023L};
    default:
      return {0x1p-21L, 0x1p-149L, 0x1.fffffep127L};
  }
}

// `v` rounded once to nearest (ties to even) onto a floating dtype's grid: as the ops read an
// integer input beside floating ones (CANN's Cast to the promoted dtype).
Real RoundedTo(int dtype, Real v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const int precision = dtype == kFloat16 ? 11 : dtype == kBf16 ? 8 : 24;
  const int min_exponent = dtype == kFloat16 ? -14 : -126;
  int exponent = 0;
  std::frexp(v, &exponent);  // |v| in [2^(exponent-1), 2^exponent)
  const Real unit = std::ldexp(Real{1}, std::max(exponent, min_exponent + 1) - precision);
  const Real rounded = std::nearbyint(v / unit) * unit;
  return std::fabs(rounded) > LimitsOf(dtype).max ? std::copysign(INFINITY, v) : rounded;
}

// The floating dtype integer inputs promote to: that of the floating inputs among self, target
// and gradOutput (fp16 with bf16 is fp32); -1 where none is floating.
int PromotedFloating(const Problem& p) {
  int promoted = -1;
  for (int role : {kSelf, kTarget, kGradOutput}) {
    const Described& t = p.t[role];
    if (!t.present || IsInteger(t.dtype) || OperandOf(*p.op, role) == nullptr) continue;
    promoted = promoted == -1 || promoted == t.dtype ? t.dtype : kFloat;
  }
  return promoted;
}

Expected Reference(const Problem& p, const Attributes& a, Result result, const Shape& index,
                   Real divisor) {
  const Shape& b = p.broadcast;
  const int promoted = PromotedFloating(p);
  const auto read = [&](int role, int64_t* integer = nullptr) {
    const Real value = ValueAt(p.t[role], b, index, integer);
    const bool cast = p.t[role].present && IsInteger(p.t[role].dtype) && promoted != -1;
    return cast ? RoundedTo(promoted, value) : value;
  };
  Point in{};
  in.x = read(kSelf, &in.xi);
  in.t = read(kTarget, &in.ti);
  in.integral = IsInteger(p.t[kSelf].dtype) && IsInteger(p.t[kTarget].dtype);
  in.w = ValueAt(p.t[kWeight], b, index);
  in.pw = ValueAt(p.t[kPosWeight], b, index);
  in.g = result == Result::kLoss ? 1 : read(kGradOutput) / divisor;
  return p.family->formula(result, in, a);
}

void Compare(Real got, Real exact, Real scale, int dtype, const char* what) {
  if (std::isnan(exact)) {  // outside the formula's domain (a probability outside [0, 1], ...)
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

// The flat index in `out` (row-major) of the broadcast shape's `index`, right-aligned, a
// dimension of 1 taking every index: where a gradient of a smaller operand, or a loss reduced
// over dimension 0, sums it.
int64_t FlatIn(const Shape& out, const Shape& index) {
  int64_t flat = 0;
  const size_t lead = index.size() - out.size();
  for (size_t i = 0; i < out.size(); ++i)
    flat = flat * out[i] + (out[i] == 1 ? 0 : index[lead + i]);
  return flat;
}

int64_t OutElement(const Described& out, const Shape& index) {
  int64_t element = out.offset;
  for (size_t i = 0; i < index.size(); ++i) element += index[i] * out.strides[i];
  return element;
}

// Reads output `operand` back and checks every element of its view against the reference, and
// every other byte of its storage for the sentinel. Every element of the broadcast shape adds
// into the output element it maps to: itself; for a reduced loss the one element, or (reduced
// over dimension 0) that of the rest; for a gradient of a smaller operand (KL divergence's) the
// one it broadcast from. Means divide the totals.
void CheckResult(Problem& p, const openaclnnOperand& operand) {
  const Described& out = p.t[operand.role];
  const Result result = ResultOf(p.op->kind, operand.role);
  const bool reduced =
      result == Result::kLoss && p.reduction != 0 && operand.reduced != OPENACLNN_REDUCED_NEVER;
  const bool to_one = reduced && operand.reduced == OPENACLNN_REDUCED_TO_ONE;
  const Shape rule = RuleShape(p, operand, p.broadcast);
  if (p.shapes_unchecked && !to_one) {  // nothing to write, whatever out's shape
    std::vector<uint8_t> got(out.host.size());
    if (!got.empty()) {
      Require(aclrtMemcpy(got.data(), got.size(), out.device, got.size(),
                          ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
              "aclrtMemcpy from device failed");
    }
    for (uint8_t byte : got) Require(byte == kSentinelByte, "an empty self's result was written");
    return;
  }
  Require(to_one ? CountOf(out.shape) == 1 : out.shape == rule,
          "phase 1 accepted an output of another shape than its operand row's", p.op->api);
  std::vector<uint8_t> got(out.host.size());
  if (!got.empty()) {
    Require(aclrtMemcpy(got.data(), got.size(), out.device, got.size(),
                        ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
            "aclrtMemcpy from device failed");
  }
  const Attributes attributes = AttributesOf(p);
  const Real divisor = Divisor(p);
  const Shape sums = to_one ? Shape{} : out.shape;
  const auto count = static_cast<size_t>(CountOf(sums));
  std::vector<Real> value(count), scale(count);
  std::vector<uint64_t> integer(count);  // wraps as int64 sums do
  bool integral = false;
  ForEachIndex(p.broadcast, [&](const Shape& index) {
    const Expected e = Reference(p, attributes, result, index, divisor);
    const int64_t flat = FlatIn(sums, index);
    value[flat] += e.value;
    scale[flat] += e.scale;
    integer[flat] += static_cast<uint64_t>(e.integer);
    integral = e.integral;
  });
  // A reduced loss's divisor: mean N (over dimension 0, its size), batchmean self.size(0). An
  // empty mean is 0 / 0, NaN.
  Real reduced_by = 1;
  if (reduced && p.reduction == 1) {
    reduced_by = to_one                ? static_cast<Real>(CountOf(p.broadcast))
                 : p.broadcast.empty() ? 1
                                       : static_cast<Real>(p.broadcast[0]);
  } else if (reduced && p.reduction == 3) {
    reduced_by = divisor;
  }
  const size_t element_bytes = ElementBytes(out.dtype);
  std::set<int64_t> written;
  bool overlapping = false;  // output elements sharing storage (a zero stride) have no one value
  ForEachIndex(out.shape, [&](const Shape& index) {
    overlapping |= !written.insert(OutElement(out, index)).second;
  });
  if (!overlapping) {
    ForEachIndex(out.shape, [&](const Shape& index) {
      const int64_t flat = to_one ? 0 : FlatIn(sums, index);
      const uint8_t* at = got.data() + OutElement(out, index) * element_bytes;
      const char* what = reduced ? "reduced loss" : "element";
      if (integral) {
        const auto total = static_cast<int64_t>(integer[flat]);
        if (IsInteger(out.dtype)) {
          Require(DecodeInteger(out.dtype, at) == total, what, "integer result differs");
          return;
        }
        value[flat] = static_cast<Real>(total);
        scale[flat] = std::fabs(value[flat]);
      }
      Compare(Decode(out.dtype, at), value[flat] / reduced_by, scale[flat] / reduced_by, out.dtype,
              what);
    });
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
  long per_op[64] = {};  // by table index: an op never compared is an op not fuzzed
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
  const double* attributes =
      p.default_attributes || p.attributes.empty() ? nullptr : p.attributes.data();
  return p.op->getWorkspaceSize(operands.data(), p.reduction, attributes, workspace_size, executor);
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

// Phase 2 as `misuse` says; true when the results must be the reference's. `fault`: where a
// class-axis op's target holds a class index out of range, the words (naming the first such
// position and its value) the stream's synchronization must fail with once the work ran
// (runtime.md R7); else empty.
bool Launch(FuzzedDataProvider& in, Problem& p, aclOpExecutor* executor, uint64_t workspace_size,
            Misuse misuse, const std::string& fault) {
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
  const aclError synchronized = aclrtSynchronizeStream(g_stream);
  if (compare && !fault.empty()) {
    Require(
        synchronized == ACL_ERROR_RT_AICORE_EXCEPTION, "a target out of range",
        "did not fail the stream's synchronization with 507015: " + std::to_string(synchronized));
    const std::string message = aclGetRecentErrMsg();
    Require(message.find(fault) != std::string::npos, "the fault's message",
            "does not name \"" + fault + "\": " + message);
  } else {
    Require(synchronized == ACL_SUCCESS, "aclrtSynchronizeStream");
  }
  if (workspace != nullptr) aclrtFree(workspace);
  return compare;
}

// The op a seed selects: the 16-bit key it starts with (its last two bytes) falls between two
// points of a ring of name hashes, 32 per op, and the point above it names the op. Adding an op
// takes over only the keys just below its own points, so the seed corpus keeps fuzzing the ops it
// was made for; 32 points each share the keys about evenly. Returns the op's index in the table.
size_t PickOp(FuzzedDataProvider& in) {
  static const std::vector<std::pair<uint16_t, size_t>> ring = [] {
    std::vector<std::pair<uint16_t, size_t>> points;
    for (size_t i = 0; i < openaclnnOpCount(); ++i) {
      for (uint32_t point = 0; point < 32; ++point) {
        uint32_t hash = 2166136261u;  // FNV-1a of the API name, then of the point's number
        for (const char* c = openaclnnGetOp(i)->api; *c != '\0'; ++c) {
          hash = (hash ^ static_cast<uint8_t>(*c)) * 16777619u;
        }
        hash = (hash ^ point) * 16777619u;
        points.emplace_back(static_cast<uint16_t>(hash ^ (hash >> 16)), i);
      }
    }
    std::sort(points.begin(), points.end());
    return points;
  }();
  const auto key = in.ConsumeIntegral<uint16_t>();
  const auto owner = std::lower_bound(ring.begin(), ring.end(), std::make_pair(key, size_t{0}));
  return owner == ring.end() ? ring.front().second : owner->second;
}

// The op's scalar attributes: mostly valid (beta >= 0, delta > 0, logTarget 0 or 1), now and then
// what the op must refuse (beta < 0 or NaN, delta <= 0 or NaN) or take as it is (+inf, tiny, a
// bool other than 0 or 1: nonzero is true); one call in eight passes nullptr (the defaults).
void PickAttributes(FuzzedDataProvider& in, Problem* p) {
  p->default_attributes = in.ConsumeIntegralInRange(0, 7) == 0;
  for (size_t k = 0; k < p->op->attributeCount; ++k) {
    const openaclnnAttributeType type = p->op->attributes[k].type;
    const int pick = in.ConsumeIntegralInRange(0, 15);
    const double usual =
        in.ConsumeIntegralInRange(type == OPENACLNN_ATTRIBUTE_DOUBLE ? 1 : 0, 64) / 16.0;
    double value = usual;
    if (type == OPENACLNN_ATTRIBUTE_BOOL) {
      value = pick == 0 ? in.PickValueInArray({2.0, -1.0}) : pick % 2;
    } else if (pick == 0) {
      value = 0;  // smooth L1's beta = 0 is the L1 loss; Huber's delta = 0 is refused
    } else if (pick == 1) {
      value = -usual - 1;
    } else if (pick == 2) {
      value = NAN;
    } else if (pick == 3) {
      value = INFINITY;
    } else if (pick == 4) {
      value = std::ldexp(
          1.0, -in.ConsumeIntegralInRange(1, type == OPENACLNN_ATTRIBUTE_DOUBLE ? 1074 : 40));
    } else if (pick == 5 && type == OPENACLNN_ATTRIBUTE_DOUBLE) {
      value = std::ldexp(1.0, in.ConsumeIntegralInRange(1, 1023));
    }
    p->attributes.push_back(value);
  }
}

// An output's shape: mostly the one its operand row gives (a one-element loss as [] or [1]), now
// and then one the op must refuse.
Shape OutputShape(FuzzedDataProvider& in, const Problem& p, const openaclnnOperand& operand,
                  const Shape& base) {
  switch (in.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return PickShape(in);
    case 1:
      return RelatedShape(in, base);
    default: {
      Shape shape = RuleShape(p, operand, base);
      if (shape.empty() && p.reduction != 0 && in.ConsumeBool()) shape = {1};
      return shape;
    }
  }
}

// --- The class-axis ops: NLL and cross entropy ---
//
// self holds C classes along dimension 1 (dimension 0 of a 1-D self) at each position, target
// one class index per position. They get shapes, dtypes and values of their own (mostly what the
// op takes, so that their many tensors often all pass phase 1), phase 1's status predicted from
// their checks (checks-and-codes.md §26-§31), and a reference in long double.

// What a class-axis op is, from its row and name.
struct ClassAxisOp {
  bool cross_entropy;  // else the NLL
  bool gradient;
  bool two_d;  // the NLL's 2d ops: self (N, C, H, W)
};

ClassAxisOp ClassAxisOpOf(const openaclnnOpDescriptor& op) {
  if (op.family != OPENACLNN_FAMILY_NLL_LOSS && op.family != OPENACLNN_FAMILY_CROSS_ENTROPY) {
    Fail("a class-axis family the reference does not know", op.api);
  }
  return {op.family == OPENACLNN_FAMILY_CROSS_ENTROPY, op.kind == OPENACLNN_OP_GRAD_SELF,
          std::strstr(op.api, "2d") != nullptr};
}

int ClassDimension(const Shape& self) { return self.size() == 1 ? 0 : 1; }
int64_t ClassesOf(const Shape& self) { return self.empty() ? 0 : self[ClassDimension(self)]; }

// self's shape without its class dimension: the positions.
Shape PositionsOf(const Shape& self) {
  Shape positions = self;
  if (!positions.empty()) positions.erase(positions.begin() + ClassDimension(self));
  return positions;
}

// One element: [] or [1], now and then [1, 1] (a rank some checks refuse).
Shape OneElement(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return {1, 1};
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
      return {1};
    default:
      return {};
  }
}

// Mostly `usual`; now and then anything, or `usual` with a dimension added, dropped or changed.
Shape Mostly(FuzzedDataProvider& in, const Shape& usual) {
  Shape shape = usual;
  switch (in.ConsumeIntegralInRange(0, 31)) {
    case 0:
      return PickShape(in);
    case 1:
      shape.push_back(1);
      return shape;
    case 2:
      if (!shape.empty()) shape.erase(shape.begin());
      return shape;
    case 3:
      if (!shape.empty()) {
        int64_t& dim = shape[in.ConsumeIntegralInRange<size_t>(0, shape.size() - 1)];
        dim = dim == 1 ? 2 : 1;
      }
      return shape;
    default:
      return shape;
  }
}

// self: mostly the op's ((C) or (N, C); (N, C, H, W) for the 2d ops), C mostly 1-12, now and then
// 0 or up to 3000 (long rows, few of them), N mostly 1-8, now and then 0 or up to what fits
// (many short rows); now and then another rank, or anything.
Shape ClassAxisSelfShape(FuzzedDataProvider& in, const ClassAxisOp& op) {
  const int arrangement = in.ConsumeIntegralInRange(0, 31);
  if (arrangement == 0) return PickShape(in);
  const int classes_kind = in.ConsumeIntegralInRange(0, 15);
  const int64_t classes = classes_kind == 0   ? 0
                          : classes_kind == 1 ? in.ConsumeIntegralInRange<int64_t>(13, 3000)
                                              : in.ConsumeIntegralInRange<int64_t>(1, 12);
  Shape pixels;
  if (op.two_d) {
    pixels = {in.ConsumeIntegralInRange<int64_t>(0, 4), in.ConsumeIntegralInRange<int64_t>(1, 4)};
  }
  const int64_t most = std::max<int64_t>(
      1, kMaxElements / std::max<int64_t>(1, classes * std::max<int64_t>(1, CountOf(pixels))));
  const int rows_kind = in.ConsumeIntegralInRange(0, 15);
  const int64_t rows = rows_kind == 0 ? 0
                       : rows_kind == 1
                           ? in.ConsumeIntegralInRange<int64_t>(1, most)
                           : in.ConsumeIntegralInRange<int64_t>(1, std::min<int64_t>(8, most));
  Shape self = {rows, classes};
  if (op.two_d) self.insert(self.end(), pixels.begin(), pixels.end());
  if (!op.two_d && !op.cross_entropy && in.ConsumeIntegralInRange(0, 3) == 0) self = {classes};
  if (arrangement == 1) {  // another rank: (C), (N, C), (N, C, d1), (N, C, H, W), (N, C, 1, 1, 1)
    self.resize(in.ConsumeIntegralInRange<size_t>(1, 5), 1);
    if (self.size() == 1) self[0] = classes;
  }
  return self;
}

// The op's attributes by name: ignoreIndex mostly -100, now and then a class, any small integer,
// or what the op table refuses (not whole, beyond 2^53); labelSmoothing mostly 0, else in [0, 1]
// or, refused, below 0, above 1 or NaN; the zloss ones (accepted, ignored) anything. One call in
// eight passes nullptr (the defaults).
void PickClassAxisAttributes(FuzzedDataProvider& in, int64_t classes, Problem* p) {
  p->default_attributes = in.ConsumeIntegralInRange(0, 7) == 0;
  for (size_t k = 0; k < p->op->attributeCount; ++k) {
    const std::string name = p->op->attributes[k].name;
    const int pick = in.ConsumeIntegralInRange(0, 15);
    double value = 0;
    if (name == "ignoreIndex") {
      value = pick < 9     ? -100
              : pick < 12  ? static_cast<double>(in.ConsumeIntegralInRange<int64_t>(
                                0, std::max<int64_t>(classes - 1, 0)))
              : pick < 14  ? static_cast<double>(in.ConsumeIntegralInRange<int64_t>(-3, 300))
              : pick == 14 ? 0.5
                           : 0x1p60;
    } else if (name == "labelSmoothing") {
      value = pick < 8     ? 0
              : pick < 11  ? in.ConsumeIntegralInRange(1, 16) / 16.0
              : pick == 11 ? 0.1
              : pick == 12 ? -std::ldexp(1.0, -in.ConsumeIntegralInRange(0, 1074))
              : pick == 13 ? 1 + std::ldexp(1.0, -in.ConsumeIntegralInRange(0, 52))
              : pick == 14 ? NAN
                           : in.PickValueInArray({INFINITY, -INFINITY});
    } else if (name == "lseSquareScaleForZloss") {
      value = pick < 12 ? 0 : pick < 15 ? in.ConsumeFloatingPoint<double>() : NAN;
    } else if (name == "returnZloss") {
      value = pick == 0 ? 2 : pick % 2;
    } else {
      Fail("an attribute the reference does not know", name);
    }
    p->attributes.push_back(value);
  }
}

// The attribute `name` as phase 1 reads it (the default where nullptr was passed).
double AttributeOf(const Problem& p, const char* name) {
  for (size_t k = 0; k < p.op->attributeCount; ++k) {
    if (std::strcmp(p.op->attributes[k].name, name) == 0) {
      return p.default_attributes ? p.op->attributes[k].defaultValue : p.attributes[k];
    }
  }
  return 0;  // an op without it: labelSmoothing 0
}

// A float element of a special value (the NLL and cross entropy define their results for
// them); integer dtypes keep what they hold.
void EncodeSpecial(int dtype, double value, uint8_t* element) {
  if (dtype == kFloat) {
    const auto single = static_cast<float>(value);
    std::memcpy(element, &single, 4);
  } else if (dtype == kDouble) {
    std::memcpy(element, &value, 8);
  } else if (dtype == kFloat16 || dtype == kBf16) {
    const bool half = dtype == kFloat16;
    uint16_t bits = std::signbit(value) ? 0x8000 : 0;
    if (std::isnan(value)) bits = half ? 0x7e00 : 0x7fc0;
    if (std::isinf(value)) bits |= half ? 0x7c00 : 0x7f80;
    std::memcpy(element, &bits, 2);
  }
}

// A class index: mostly in [0, C) or ignoreIndex; where `faulty`, one in four out of range
// (the target's dtype keeps the value's low bytes: a uint8 -1 is 255).
void EncodeTarget(FuzzedDataProvider& in, int dtype, int64_t classes, double ignore, bool faulty,
                  uint8_t* element) {
  int64_t value = in.ConsumeIntegralInRange<int64_t>(0, std::max<int64_t>(classes - 1, 0));
  if (faulty && in.ConsumeIntegralInRange(0, 3) == 0) {
    value = in.PickValueInArray<int64_t>(
        {-1, -100, -101, 255, 256, std::numeric_limits<int64_t>::min(), kInt64Max});
    if (in.ConsumeBool() && classes >= 0 && classes < kInt64Max - 2) {
      value = classes + in.ConsumeIntegralInRange<int64_t>(0, 2);
    }
  } else if (in.ConsumeIntegralInRange(0, 5) == 0 && std::fabs(ignore) <= 0x1p53) {
    value = static_cast<int64_t>(ignore);
  }
  std::memcpy(element, &value, ElementBytes(dtype));  // little-endian: the low bytes
}

// A class-axis operand's values: log-probabilities (NLL's self, the gradient's logProb) mostly
// at most 0, logits any sign, now and then 0, +-inf or NaN (+inf no log-probability: its
// gradient's IEEE class depends on how the formula is grouped); weights any sign, now and then 0;
// gradients and the total weight finite, now and then 0; targets as EncodeTarget draws them.
void FillClassAxis(FuzzedDataProvider& in, const ClassAxisOp& op, Role role, int64_t classes,
                   double ignore, bool faulty, Described* t) {
  if (!Reserve(t)) return;
  const size_t element = ElementBytes(t->dtype);
  const auto count = static_cast<int64_t>(t->host.size() / element);
  const bool output = role == kOut || role == kTotalWeightOut || role == kLogProbOut ||
                      role == kZlossOut || role == kLseForZlossOut;
  for (int64_t i = 0; i < count && !output; ++i) {
    uint8_t* at = t->host.data() + i * element;
    if (role == kTarget && IsInteger(t->dtype)) {
      EncodeTarget(in, t->dtype, classes, ignore, faulty, at);
      continue;
    }
    const int pick = in.ConsumeIntegralInRange(0, 31);
    const bool logits = role == kSelf && op.cross_entropy && !op.gradient;
    if (role == kSelf && pick == 0) {
      EncodeSpecial(t->dtype,
                    logits ? in.PickValueInArray<double>({INFINITY, -INFINITY, NAN, 0.0})
                           : in.PickValueInArray<double>({-INFINITY, NAN, 0.0, -0.0}),
                    at);
    } else if (role != kSelf && pick < 3) {
      EncodeSpecial(t->dtype, 0.0, at);
    } else {
      const int exponent = role != kSelf ? 2 : logits && pick == 1 ? 15 : 5;
      const bool non_positive = role == kSelf && !logits && pick > 4;
      EncodeRandom(in, t->dtype, exponent, non_positive, at);
      if (non_positive && !IsInteger(t->dtype)) at[element - 1] |= 0x80;  // the sign bit
    }
  }
  Upload(t);
}

// Mostly `usual`; now and then any dtype PickDtype draws.
int MostlyDtype(FuzzedDataProvider& in, int usual) {
  return in.ConsumeIntegralInRange(0, 15) == 0 ? PickDtype(in, usual) : usual;
}

// The shapes the contract gives a class-axis op's operands (for drawing them, and for checking
// what phase 1 accepts): a loss per position for reduction none (a 1-D self's one position
// aside), else one element; gradOutput likewise; outputs self-shaped or one element.
struct ClassAxisShapes {
  Shape self, positions;
  int64_t classes;
  bool per_position;  // a none loss, or its gradient, with a position dimension
};

ClassAxisShapes ShapesOf(const Problem& p, const Shape& self) {
  return {self, PositionsOf(self), ClassesOf(self), p.reduction == 0 && self.size() > 1};
}

// A shape whose contiguous strides, or storage, may not fit in int64 (PickShape's 2^32, INT64_MAX
// or -1): a sound layout of it may still be refused.
bool Huge(const Shape& shape) {
  return std::any_of(shape.begin(), shape.end(), [](int64_t dim) { return dim < 0 || dim > 4097; });
}

// Checks phase 1's status against the op's checks: an attribute the op table refuses (161002)
// first; then a null (161001); then any other broken rule (161002). A view or format that may be
// invalid (the hostile layouts) leaves 0 or 161002 open; else the call must pass.
void CheckClassAxisStatus(const Problem& p, const ClassAxisOp& op, bool null_outputs,
                          const std::vector<bool>& unsure_layout, aclnnStatus status) {
  const std::string message = aclGetRecentErrMsg();
  const auto fail = [&](const char* why) {
    Fail(why, std::string(p.op->api) + " returned " + std::to_string(status) + ": " + message);
  };
  if (status != ACLNN_SUCCESS && message.empty()) fail("phase 1 failed without a message");
  const double ignore = AttributeOf(p, "ignoreIndex");
  if (!(std::fabs(ignore) <= 0x1p53 && ignore == std::trunc(ignore))) {
    if (status != ACLNN_ERR_PARAM_INVALID) fail("an ignoreIndex that is not a whole number");
    return;
  }
  bool null = null_outputs;
  for (size_t i = 0; i < p.op->operandCount; ++i) {
    null |= !p.op->operands[i].optional && !p.t[p.op->operands[i].role].present;
  }
  if (null) {
    if (status != ACLNN_ERR_PARAM_NULLPTR) fail("a null argument not refused with 161001");
    return;
  }
  const auto& t = p.t;
  const Shape& self = t[kSelf].shape;
  const ClassAxisShapes s = ShapesOf(p, self);
  const auto is_float = [](int dtype) {
    return dtype == kFloat || dtype == kFloat16 || dtype == kBf16;
  };
  const auto one_element = [](const Shape& shape, bool rank_checked) {
    return CountOf(shape) == 1 && (!rank_checked || shape.size() <= 1);
  };
  const int dtype = t[kSelf].dtype;
  bool broken = !is_float(dtype) || (p.reduction < 0 || p.reduction > 2);
  bool unsure = false;
  for (size_t i = 0; i < p.op->operandCount; ++i) {
    const int role = p.op->operands[i].role;
    const bool zloss =
        role == kZlossOut || role == kLseForZlossOut || role == kGradZloss || role == kLseForZloss;
    if (!t[role].present) continue;
    if (role == kTarget) {
      broken |= !(t[role].dtype == kInt64 || t[role].dtype == kInt32 ||
                  (!op.cross_entropy && t[role].dtype == kUint8));
    } else if (role == kWeight && op.cross_entropy) {
      broken |= t[role].dtype != kFloat;
    } else if (!op.cross_entropy && !(op.two_d && op.gradient) &&
               (role == kOut || role == kTotalWeightOut)) {
      broken |= !is_float(t[role].dtype);  // the NLL's results: any float type self casts to
    } else if (role != kSelf) {
      broken |= t[role].dtype != dtype;
    }
    if (zloss) continue;  // checked for null and dtype only
    broken |= t[role].shape.size() > 8;
    unsure |=
        unsure_layout[role] || (t[role].format != 2 && t[role].format != 0) || Huge(t[role].shape);
  }
  if (op.cross_entropy) {
    const double smoothing = AttributeOf(p, "labelSmoothing");
    broken |= !(smoothing >= 0 && smoothing <= 1);
    broken |= self.size() != 2 || t[kTarget].shape != s.positions ||
              (t[kWeight].present && t[kWeight].shape != Shape{s.classes});
    const Shape& per_row = op.gradient ? t[kGradOutput].shape : t[kOut].shape;
    broken |= p.reduction == 0 ? per_row != s.positions : !one_element(per_row, true);
    broken |= (op.gradient ? t[kOut].shape : t[kLogProbOut].shape) != self;
  } else if (op.two_d) {
    broken |= self.size() != 4 || t[kTarget].shape != s.positions;
    const Shape& weight = t[kWeight].shape;
    if (op.gradient) {
      int long_dimensions = 0;
      for (int64_t dim : weight) long_dimensions += dim != 1;
      broken |= CountOf(weight) != s.classes || long_dimensions > 1;
      broken |= p.reduction == 0 ? t[kGradOutput].shape != s.positions
                                 : !one_element(t[kGradOutput].shape, true);
      broken |= t[kOut].shape != self || !one_element(t[kTotalWeight].shape, false);
    } else {
      broken |= weight.empty() || weight[0] != s.classes;
      broken |=
          p.reduction == 0 ? t[kOut].shape != s.positions : !one_element(t[kOut].shape, false);
      broken |= !one_element(t[kTotalWeightOut].shape, false);
    }
  } else {
    broken |= (self.size() != 1 && self.size() != 2) ||
              t[kTarget].shape != (self.size() == 1 ? Shape{} : s.positions);
    broken |= t[kWeight].shape != Shape{s.classes};
    if (op.gradient) {
      broken |= s.per_position ? t[kGradOutput].shape != s.positions
                               : !one_element(t[kGradOutput].shape, true);
      broken |= t[kOut].shape != self || !one_element(t[kTotalWeight].shape, false);
    } else {
      broken |= s.per_position ? t[kOut].shape != s.positions : !one_element(t[kOut].shape, true);
      broken |= !one_element(t[kTotalWeightOut].shape, false);
    }
  }
  // C = 0 only without positions.
  broken |= s.classes == 0 && CountOf(t[kTarget].shape) != 0;
  if (broken && status != ACLNN_ERR_PARAM_INVALID) fail("a broken rule not refused with 161002");
  if (!broken && !unsure && status != ACLNN_SUCCESS) fail("a valid call refused");
  if (!broken && unsure && status != ACLNN_SUCCESS && status != ACLNN_ERR_PARAM_INVALID) {
    fail("a call refused with another status than 161002");
  }
}

// Element `index` (of t's view) of an input, decoded.
Real ElementAt(const Described& t, const Shape& index) {
  return Decode(t.dtype, t.host.data() + OutElement(t, index) * ElementBytes(t.dtype));
}

// A one-element input's value.
Real OnlyElement(const Described& t) { return ElementAt(t, Shape(t.shape.size(), 0)); }

// Class c's weight (1 without weights): along dimension 0 where it holds C, else along the one
// dimension that is not 1 (the 2d Backward's "C values along one dimension").
Real WeightOf(const Described& w, int64_t classes, int64_t c) {
  if (!w.present) return 1;
  Shape index(w.shape.size(), 0);
  if (!w.shape.empty() && w.shape[0] == classes) {
    index[0] = c;
  } else {
    for (size_t d = 0; d < w.shape.size(); ++d) {
      if (w.shape[d] != 1) {
        index[d] = c;
        break;
      }
    }
  }
  return ElementAt(w, index);
}

// The index into self's view of a position's multi-index and a class.
Shape SelfIndex(const Shape& self, const Shape& position, int64_t c) {
  Shape index = position;
  index.insert(index.begin() + ClassDimension(self), c);
  return index;
}

constexpr Real kUlp = 0x1p-63L;  // long double's unit roundoff, twice over

// A reference value in long double and its own error: the library's result, the exact value
// rounded once, must be a rounding of a point within `error` of `value` (exactly its rounding
// where the error is 0); NaN must be NaN and an infinity the same infinity. `open`: a mean over
// W = 0 of a sum the reference cannot tell from 0, NaN (0 / 0) or an infinity.
struct Known {
  Real value, error;
  bool open = false;
};

// A sum's mean over the total weight W.
Known Mean(Real sum, Real sum_error, Real total_weight) {
  const Real mean = sum / total_weight;
  return {mean, sum_error / std::fabs(total_weight) + std::fabs(mean) * kUlp,
          total_weight == 0 && std::fabs(sum) <= sum_error};
}

void CompareRounded(Real got, const Known& expected, int dtype, const char* what, int64_t at) {
  const Real value = expected.value;
  bool ok;
  if (expected.open) {
    ok = std::isnan(got) || std::isinf(got);
  } else if (std::isnan(value)) {
    ok = std::isnan(got);
  } else if (std::isinf(value)) {
    ok = got == value;
  } else {
    ok = got >= RoundedTo(dtype, value - expected.error) &&
         got <= RoundedTo(dtype, value + expected.error);
  }
  if (!ok) {
    char text[200];
    std::snprintf(text, sizeof text, "element %lld: got %.9Lg, expected %.12Lg +- %.3Lg (dtype %d)",
                  static_cast<long long>(at), got, value, expected.error, dtype);
    Fail(what, text);
  }
}

// An output's storage as the library left it (nothing for an absent one).
std::vector<uint8_t> ReadBack(const Described& out) {
  std::vector<uint8_t> got(out.present ? out.host.size() : 0);
  if (!got.empty()) {
    Require(aclrtMemcpy(got.data(), got.size(), out.device, got.size(),
                        ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
            "aclrtMemcpy from device failed");
  }
  return got;
}

// Reads output `role` back: every element of its view against `expected(index)` (unless elements
// share storage: a zero stride leaves them no one value), and every other byte of its storage
// against the sentinel.
template <class Expected>
void CheckOutput(const Problem& p, int role, const char* what, Expected&& expected) {
  const Described& out = p.t[role];
  const std::vector<uint8_t> got = ReadBack(out);
  std::set<int64_t> view;
  bool overlapping = false;
  ForEachIndex(out.shape, [&](const Shape& index) {
    overlapping |= !view.insert(OutElement(out, index)).second;
  });
  const size_t element_bytes = ElementBytes(out.dtype);
  if (!got.empty() && !overlapping) {
    int64_t flat = 0;
    ForEachIndex(out.shape, [&](const Shape& index) {
      const uint8_t* at = got.data() + OutElement(out, index) * element_bytes;
      CompareRounded(Decode(out.dtype, at), expected(index), out.dtype, what, flat++);
    });
  }
  for (size_t byte = 0; byte < got.size(); ++byte) {
    if (view.count(static_cast<int64_t>(byte / element_bytes)) == 0) {
      Require(got[byte] == kSentinelByte, what, "a byte outside the view was written");
    }
  }
}

// How a position's target reads: counted, ignored, or out of range (a fault).
enum class TargetIs { kCounted, kIgnored, kOutOfRange };

struct PositionTarget {
  TargetIs is;
  int64_t target;
};

// CANN's zloss outputs: never written.
void CheckUnwritten(const Problem& p, int role, const char* what) {
  for (uint8_t byte : ReadBack(p.t[role])) Require(byte == kSentinelByte, what, "was written");
}

// Each position's target, and the words of the first fault (or "").
std::vector<PositionTarget> ReadTargets(const Problem& p, const ClassAxisShapes& s,
                                        std::string* fault) {
  const auto ignore = static_cast<int64_t>(AttributeOf(p, "ignoreIndex"));
  const Described& target = p.t[kTarget];
  std::vector<PositionTarget> targets;
  ForEachIndex(target.shape, [&](const Shape& index) {
    const int64_t value = DecodeInteger(
        target.dtype, target.host.data() + OutElement(target, index) * ElementBytes(target.dtype));
    const TargetIs is = value == ignore                   ? TargetIs::kIgnored
                        : value >= 0 && value < s.classes ? TargetIs::kCounted
                                                          : TargetIs::kOutOfRange;
    if (is == TargetIs::kOutOfRange && fault->empty()) {
      *fault = "target " + std::to_string(value) + " of position " +
               std::to_string(targets.size()) + " ";
    }
    targets.push_back({is, value});
  });
  return targets;
}

// The NLL's results (numerics-nll-loss.md §1): -w_t x_t per counted position (0 ignored, NaN out
// of range), their sum or their mean over W (the counted positions' weights); the gradient -g w_t
// (divided by the totalWeight given, for a mean) at the target class, 0 elsewhere;
// totalWeightOut W (0 for reduction none).
void CheckNll(const Problem& p, const ClassAxisOp& op, const ClassAxisShapes& s,
              const std::vector<PositionTarget>& targets) {
  const Described& self = p.t[kSelf];
  const Described& weight = p.t[kWeight];
  std::vector<Shape> positions;
  ForEachIndex(s.positions, [&](const Shape& index) { positions.push_back(index); });
  if (op.gradient) {
    const Described& grad = p.t[kGradOutput];
    const Real divisor = p.reduction == 1 ? OnlyElement(p.t[kTotalWeight]) : 1;
    CheckOutput(p, kOut, "NLL gradient", [&](const Shape& index) -> Known {
      Shape position = index;
      position.erase(position.begin() + ClassDimension(s.self));
      const int64_t n = FlatIn(s.positions, position);
      const int64_t c = index[ClassDimension(s.self)];
      if (targets[n].is == TargetIs::kOutOfRange) return {NAN, 0};
      if (targets[n].is == TargetIs::kIgnored || targets[n].target != c) return {0, 0};
      const Real g = s.per_position ? ElementAt(grad, position) : OnlyElement(grad);
      const Real value = -g * WeightOf(weight, s.classes, c) / divisor;  // exact but a mean's
      return {value, p.reduction == 1 ? std::fabs(value) * kUlp : 0};
    });
    return;
  }
  Real sum = 0, magnitude = 0, total_weight = 0, weight_magnitude = 0;
  std::vector<Real> terms;
  for (size_t n = 0; n < positions.size(); ++n) {
    Real term = 0;
    if (targets[n].is == TargetIs::kOutOfRange) term = NAN;
    if (targets[n].is == TargetIs::kCounted) {
      const Real w = WeightOf(weight, s.classes, targets[n].target);
      term = -w * ElementAt(self, SelfIndex(s.self, positions[n], targets[n].target));  // exact
      total_weight += w;
      weight_magnitude += std::fabs(w);
    }
    terms.push_back(term);
    sum += term;
    magnitude += std::fabs(term);
  }
  const auto count = static_cast<Real>(positions.size() + 1);
  // 0 for reduction none, as PyTorch's (D63).
  CheckOutput(p, kTotalWeightOut, "NLL total weight", [&](const Shape&) -> Known {
    if (p.reduction == 0) return {0, 0};
    return {total_weight, weight_magnitude * count * kUlp};
  });
  CheckOutput(p, kOut, "NLL loss", [&](const Shape& index) -> Known {
    if (p.reduction == 0) return {terms[s.per_position ? FlatIn(s.positions, index) : 0], 0};
    if (p.reduction == 2) return {sum, magnitude * count * kUlp};
    return Mean(sum, magnitude * count * kUlp, total_weight);
  });
}

// The cross entropy's results (numerics-cross-entropy.md §1): per row m, a_c = m - x_c, L =
// log1p(sum over c != top of e^-a_c), lp_c = -(a_c + L); the loss (1 - eps) w_t (a_t + L) +
// eps/C sum_c w_c (a_c + L) (the second part only where eps != 0); a row with a NaN or +inf, or
// all -inf, NaN. The gradient from logProb: (a (E - [c = t]) + b (Omega E - w_c)) / D, E = e^lp,
// a = s (1 - eps) w_t, b = s eps / C (where eps != 0), D the counted rows' W for a mean. Each
// value within a few long double roundings per term of its terms' magnitudes.
void CheckCrossEntropy(const Problem& p, const ClassAxisOp& op, const ClassAxisShapes& s,
                       const std::vector<PositionTarget>& targets) {
  const Described& self = p.t[kSelf];
  const Described& weight = p.t[kWeight];
  const Real eps = AttributeOf(p, "labelSmoothing");
  const int64_t rows = s.self[0], classes = s.classes;
  const auto x = [&](int64_t n, int64_t c) { return ElementAt(self, {n, c}); };
  const auto w = [&](int64_t c) { return WeightOf(weight, classes, c); };
  Real total_weight = 0;
  for (int64_t n = 0; n < rows; ++n) {
    if (targets[n].is == TargetIs::kCounted) total_weight += w(targets[n].target);
  }
  const Real per_class = classes > 0 ? eps / static_cast<Real>(classes) : 0;  // no rows at C = 0
  const Real rounding = static_cast<Real>(classes + rows + 8) * 4 * kUlp;
  if (op.gradient) {
    Real omega = 0;
    for (int64_t c = 0; c < classes; ++c) omega += w(c);
    const Real divisor = p.reduction == 1 ? total_weight : 1;
    CheckOutput(p, kOut, "cross entropy gradient", [&](const Shape& index) -> Known {
      const int64_t n = index[0], c = index[1];
      if (targets[n].is == TargetIs::kOutOfRange) return {NAN, 0};
      if (targets[n].is == TargetIs::kIgnored) return {0, 0};
      const Real g =
          p.reduction == 0 ? ElementAt(p.t[kGradOutput], {n}) : OnlyElement(p.t[kGradOutput]);
      const Real lp = x(n, c), e = std::exp(lp);
      const Real a = g * (1 - eps) * w(targets[n].target), b = g * per_class;
      const Real shifted = c == targets[n].target ? std::expm1(lp) : e;
      Real value = a * shifted, scale = std::fabs(value);
      if (eps != 0) {
        value += b * (omega * e - w(c));
        scale += std::fabs(b) * (std::fabs(omega) * e + std::fabs(w(c)));
      }
      const Real quotient = value / divisor;
      return {quotient, scale * rounding / std::fabs(divisor) + std::fabs(quotient) * kUlp};
    });
    return;
  }
  std::vector<Real> lp(static_cast<size_t>(rows * classes)), lp_error(lp.size());
  std::vector<Real> loss(rows), loss_error(rows);
  Real sum = 0, sum_error = 0;
  for (int64_t n = 0; n < rows; ++n) {
    Real m = -INFINITY;
    int64_t top = -1;
    bool special = false;
    for (int64_t c = 0; c < classes; ++c) {
      special |= !(x(n, c) < INFINITY);
      if (x(n, c) > m) m = x(n, c), top = c;
    }
    special |= top < 0;
    Real rest = 0;
    for (int64_t c = 0; c < classes && !special; ++c) {
      if (c != top) rest += std::exp(x(n, c) - m);
    }
    const Real l = std::log1p(rest);
    for (int64_t c = 0; c < classes; ++c) {
      const Real a = m - x(n, c);
      lp[n * classes + c] = special ? NAN : -(a + l);
      lp_error[n * classes + c] = (a + l) * rounding;
    }
    const PositionTarget& t = targets[n];
    if (t.is != TargetIs::kCounted) {
      loss[n] = t.is == TargetIs::kIgnored ? 0 : NAN;
    } else if (special) {
      loss[n] = NAN;
    } else {
      const Real first = -w(t.target) * lp[n * classes + t.target];
      loss[n] = first;
      Real scale = std::fabs(first);
      if (eps != 0) {
        Real smooth = 0, smooth_scale = 0;
        for (int64_t c = 0; c < classes; ++c) {
          const Real term = -w(c) * lp[n * classes + c];
          smooth += term;
          smooth_scale += std::fabs(term);
        }
        loss[n] = (1 - eps) * first + per_class * smooth;
        scale = std::fabs((1 - eps) * first) + std::fabs(per_class) * smooth_scale;
      }
      loss_error[n] = scale * rounding;
    }
    if (t.is != TargetIs::kIgnored) {
      sum += loss[n];
      sum_error += loss_error[n];
    }
  }
  CheckOutput(p, kLogProbOut, "cross entropy log-probability", [&](const Shape& index) {
    return Known{lp[index[0] * classes + index[1]], lp_error[index[0] * classes + index[1]]};
  });
  CheckOutput(p, kOut, "cross entropy loss", [&](const Shape& index) -> Known {
    if (p.reduction == 0) return {loss[index[0]], loss_error[index[0]]};
    if (p.reduction == 2) return {sum, sum_error};
    return Mean(sum, sum_error, total_weight);
  });
  CheckUnwritten(p, kZlossOut, "zlossOut");
  CheckUnwritten(p, kLseForZlossOut, "lseForZlossOut");
}

// Destroys a call's tensors and frees their memory.
void Release(Problem& p) {
  for (Described& t : p.t) {
    if (t.tensor != nullptr && !t.destroyed) aclDestroyTensor(t.tensor);
    if (t.device != nullptr) aclrtFree(t.device);
  }
}

// One call of a class-axis op: draws it, checks phase 1's status, and checks what it ran (its
// results, and the fault a target out of range must raise) against the reference.
void RunClassAxis(FuzzedDataProvider& in, size_t op_index, Problem& p) {
  const ClassAxisOp op = ClassAxisOpOf(*p.op);
  p.reduction = in.ConsumeIntegralInRange(0, 20) == 0 ? in.ConsumeIntegral<int64_t>()
                                                      : in.ConsumeIntegralInRange(0, 2);
  const int dtype = in.PickValueInArray({kFloat, kFloat, kFloat16, kBf16});
  const Shape base = ClassAxisSelfShape(in, op);
  const ClassAxisShapes s = ShapesOf(p, base);
  PickClassAxisAttributes(in, s.classes, &p);
  const double ignore = AttributeOf(p, "ignoreIndex");
  const bool faulty = in.ConsumeIntegralInRange(0, 7) == 0;
  std::vector<bool> unsure_layout(kRoles, false);
  for (size_t i = 0; i < p.op->operandCount; ++i) {  // inputs, then outputs
    const openaclnnOperand& operand = p.op->operands[i];
    const auto role = static_cast<Role>(operand.role);
    Described& t = p.t[role];
    // Optional ones half the time (the zloss inputs one in four); required ones now and then null.
    t.present = !operand.optional                            ? in.ConsumeIntegralInRange(0, 40) != 0
                : role == kGradZloss || role == kLseForZloss ? in.ConsumeIntegralInRange(0, 3) == 0
                                                             : in.ConsumeBool();
    if (!t.present) continue;
    Shape usual = base;
    int usual_dtype = dtype;
    switch (role) {
      case kSelf:
        break;
      case kTarget: {
        usual = s.positions;
        const int pick = in.ConsumeIntegralInRange(0, 7);
        usual_dtype = pick == 0 ? kInt32 : pick == 1 && !op.cross_entropy ? kUint8 : kInt64;
        break;
      }
      case kLseForZlossOut:
      case kLseForZloss:
        usual = s.positions;
        break;
      case kWeight:
        usual = {s.classes};
        if (op.cross_entropy) usual_dtype = kFloat;
        break;
      case kOut:
      case kGradOutput:
        if (!op.gradient || role == kGradOutput)
          usual = s.per_position ? s.positions : OneElement(in);
        break;
      case kLogProbOut:
        break;
      default:  // the totals and the zloss result: one element
        usual = OneElement(in);
    }
    const bool nll_result = !op.cross_entropy && (role == kOut || role == kTotalWeightOut) &&
                            !(op.two_d && op.gradient);
    if (nll_result && in.ConsumeIntegralInRange(0, 7) == 0) {  // any float type self casts to
      usual_dtype = in.PickValueInArray({kFloat, kFloat16, kBf16});
    }
    t.shape = role == kSelf ? base : Mostly(in, usual);
    t.dtype = MostlyDtype(in, usual_dtype);
    t.format = in.ConsumeIntegralInRange(0, 3) == 0 ? PickFormat(in) : 2;
    const bool hostile = in.ConsumeIntegralInRange(0, 7) == 0;
    unsure_layout[role] = hostile;
    PickLayout(in, &t, !hostile);
    FillClassAxis(in, op, role, s.classes, ignore, faulty, &t);
    Create(&t);
  }
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const bool null_outputs = in.ConsumeIntegralInRange(0, 30) == 0;
  const aclnnStatus planned =
      null_outputs ? PhaseOne(p, nullptr, nullptr) : PhaseOne(p, &workspace_size, &executor);
  CheckClassAxisStatus(p, op, null_outputs, unsure_layout, planned);
  if (planned != ACLNN_SUCCESS) {
    Release(p);
    return;
  }
  Require(executor != nullptr, "phase 1 succeeded without an executor");
  Require(workspace_size == 0, "a class-axis op asked for a workspace");
  const int64_t elements = CountOf(p.t[kSelf].shape);
  if (elements > kMaxElements || elements < 0) {
    Require(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, "aclDestroyAclOpExecutor");
    Release(p);
    return;
  }
  const auto misuse =
      static_cast<Misuse>(in.ConsumeIntegralInRange(0, 3) != 0
                              ? 0
                              : in.ConsumeIntegralInRange(0, static_cast<int>(Misuse::kCount) - 1));
  bool has_memory = true;
  for (const Described& t : p.t) {
    has_memory &= !t.present || t.device != nullptr || CountOf(t.shape) == 0;
  }
  std::string fault;
  const std::vector<PositionTarget> targets =
      has_memory ? ReadTargets(p, s, &fault) : std::vector<PositionTarget>{};
  if (Launch(in, p, executor, workspace_size, misuse, fault)) {
    Require(has_memory, "phase 2 accepted a tensor without an address");
    if (op.cross_entropy) {
      CheckCrossEntropy(p, op, s, targets);
    } else {
      CheckNll(p, op, s, targets);
    }
    ++g_tally.launches;
    g_tally.elements += elements;
    ++g_tally.per_op[op_index % std::size(g_tally.per_op)];
  }
  Release(p);
}

void RunOne(FuzzedDataProvider& in) {
  Problem p;
  const size_t op_index = PickOp(in);
  p.op = openaclnnGetOp(op_index);
  if (p.op->layout == OPENACLNN_LAYOUT_CLASS_AXIS) {
    RunClassAxis(in, op_index, p);
    return;
  }
  p.family = &FamilyOf(*p.op);
  p.reduction = in.ConsumeIntegralInRange(0, 20) == 0 ? in.ConsumeIntegral<int64_t>()
                                                      : in.ConsumeIntegralInRange(0, 3);
  PickAttributes(in, &p);
  const int dtype = in.PickValueInArray({kFloat, kFloat, kFloat16, kBf16, kInt64});
  const Shape base = PickShape(in);
  for (int r = 0; r < kRoles; ++r) {
    const openaclnnOperand* operand = OperandOf(*p.op, r);
    if (operand == nullptr) continue;
    Described& t = p.t[r];
    // Optional ones half the time; required ones now and then null.
    t.present = operand->optional ? in.ConsumeBool() : in.ConsumeIntegralInRange(0, 40) != 0;
    if (!t.present) continue;
    if (operand->output) {  // outputs follow inputs in the roles' order
      t.shape = OutputShape(in, p, *operand, base);
    } else if (operand->reduced && p.reduction != 0) {
      t.shape = in.ConsumeBool() ? Shape{1} : Shape{};
    } else {
      t.shape = r == kSelf && in.ConsumeIntegralInRange(0, 3) != 0 ? base : RelatedShape(in, base);
    }
    t.dtype = PickDtype(in, dtype);
    t.format = PickFormat(in);
    PickLayout(in, &t);
    Allocate(in, *p.family, static_cast<Role>(r), operand->output != 0, &t);
    Create(&t);
  }
  const bool broadcastable = InputsBroadcast(p, &p.broadcast);
  p.shapes_unchecked = p.op->family <= OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY &&
                       p.t[kSelf].present && CountOf(p.t[kSelf].shape) == 0;
  if (p.shapes_unchecked) p.broadcast = p.t[kSelf].shape;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const bool null_outputs = in.ConsumeIntegralInRange(0, 30) == 0;
  const aclnnStatus planned =
      null_outputs ? PhaseOne(p, nullptr, nullptr) : PhaseOne(p, &workspace_size, &executor);
  if (planned != ACLNN_SUCCESS) {
    Require(std::strlen(aclGetRecentErrMsg()) > 0, "phase 1 failed without a message");
  } else if (LongestRun(p) > kMaxElements || LongestRun(p) < 0) {
    // Valid (zero strides let a small storage hold a huge view), but too long to run here.
    Require(broadcastable || p.shapes_unchecked,
            "phase 1 accepted inputs whose shapes do not broadcast", p.op->api);
    Require(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, "aclDestroyAclOpExecutor");
  } else {
    Require(!null_outputs && executor != nullptr, "phase 1 succeeded without an executor");
    Require(broadcastable || p.shapes_unchecked,
            "phase 1 accepted inputs whose shapes do not broadcast", p.op->api);
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
    const bool ran = Launch(in, p, executor, workspace_size, misuse, "");
    if (ran) {
      Require(has_memory, "phase 2 accepted a tensor without an address");
      for (size_t i = 0; i < p.op->operandCount; ++i) {
        if (p.op->operands[i].output) CheckResult(p, p.op->operands[i]);
      }
      ++g_tally.launches;
      g_tally.elements += CountOf(p.broadcast);
      ++g_tally.per_op[op_index % std::size(g_tally.per_op)];
    }
  }
  Release(p);
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
