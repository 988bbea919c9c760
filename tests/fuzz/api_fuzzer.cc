// libFuzzer target over the public C API of every op of the library's op table
// (openaclnn/op_table.h), every loss family, as a careless or hostile caller uses it: the input
// bytes decode into an op and its tensors (shapes that broadcast or not, strides, offsets,
// storage shapes, dtypes mixed, integer or invalid, formats, nulls), a reduction, the op's
// scalar attributes (valid or not), and what phase 2 does (a normal launch, or a destroyed
// tensor, executor or stream, a small workspace, a relaunch, a forced stream destruction).
// Whatever the library accepts and runs is compared with a long double reference computed here
// from the textbook formula of the op's family (kFamilies, the one table keyed by family) over
// the broadcast shape, reduced or summed back into the output by the operand rows' rules;
// whatever it rejects must come with a message. The sanitizers (address, undefined, leak) watch
// everything else.
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

// The formula table: one row per openaclnnOpFamily, in its order.
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
static_assert(std::size(kFamilies) == OPENACLNN_FAMILY_KL_DIV + 1, "a row per family");

const FamilyRow& FamilyOf(const openaclnnOpDescriptor& op) {
  if (static_cast<size_t>(op.family) >= std::size(kFamilies)) {
    Fail("an op of a family the reference has no formula for", op.api);
  }
  return kFamilies[op.family];
}

// Storage the fuzzer can back with memory gets it, filled with values; larger storage gets a
// null address (phase 1 may still accept it; phase 2 must then refuse). A family's self and
// target are drawn as its row says (probabilities for the binary cross entropy's targets, KL
// divergence's mostly), the rest as finite values.
void Allocate(FuzzedDataProvider& in, const FamilyRow& family, Role role, bool output,
              Described* t) {
  const int64_t count = CountOf(t->storage);
  const size_t element = ElementBytes(t->dtype);
  if (count < 0 || static_cast<uint64_t>(count) > kMaxBytes / element) return;
  const size_t bytes = static_cast<size_t>(count) * element;
  t->host.assign(bytes, kSentinelByte);
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

// The op a seed selects: the 16-bit key it starts with (its last two bytes) falls between two
// points of a ring of name hashes, 32 per op, and the point above it names the op. Adding an op
// takes over only the keys just below its own points, so the seed corpus keeps fuzzing the ops it
// was made for; 32 points each share the keys about evenly. Returns the op's index in the table.
size_t PickOp(FuzzedDataProvider& in) {
  static const std::vector<std::pair<uint16_t, size_t>> ring = [] {
    std::vector<std::pair<uint16_t, size_t>> points;
    for (size_t i = 0; i < openaclnnOpCount(); ++i) {
      // The class-axis ops' shapes and references are not the element-wise ones this fuzzer
      // draws and checks: they are left out until it has them (issue 39 asks for them).
      if (openaclnnGetOp(i)->layout != OPENACLNN_LAYOUT_ELEMENTWISE) continue;
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

void RunOne(FuzzedDataProvider& in) {
  Problem p;
  const size_t op_index = PickOp(in);
  p.op = openaclnnGetOp(op_index);
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
    const bool ran = Launch(in, p, executor, workspace_size, misuse);
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
