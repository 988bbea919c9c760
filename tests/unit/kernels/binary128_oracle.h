// The binary128 oracle of the rounding tests: each op's exact value, computed independently of the
// library in binary128 (__float128 with libquadmath on x86-64, long double where that is
// binary128) from cancellation-free forms, as a pair of binary128 numbers (an exact main part and
// the rest), so that a value that binary128 alone would put on a rounding boundary is still
// rounded the right way; and that value rounded once to an output type. A test that includes it
// links quadmath on x86-64.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/dtype.h"
#include "kernels/loss_problem.h"

#if defined(__x86_64__)
#if __has_include(<quadmath.h>)
#include <quadmath.h>
#else  // clang does not see GCC's private headers; libquadmath links all the same
extern "C" {
__float128 expq(__float128);
__float128 log1pq(__float128);
__float128 fabsq(__float128);
}
#endif
#endif

namespace openaclnn {

#if defined(__x86_64__)
using Quad = __float128;
inline Quad Exp(Quad v) { return expq(v); }
inline Quad Log1p(Quad v) { return log1pq(v); }
inline Quad Abs(Quad v) { return fabsq(v); }
#else
static_assert(sizeof(long double) == 16, "the reference needs binary128");
using Quad = long double;
inline Quad Exp(Quad v) { return expl(v); }
inline Quad Log1p(Quad v) { return log1pl(v); }
inline Quad Abs(Quad v) { return fabsl(v); }
#endif

struct Input {
  float x, t, w, p, g;
};

// log1p(exp(-|x|)), from which every op is a cancellation-free sum.
inline Quad SoftplusTail(float x) { return Log1p(Exp(-Abs(static_cast<Quad>(x)))); }

// An exact value as hi + lo, two binary128 numbers (lo below half an ulp of hi): main parts made
// of products of fp32 inputs are exact in binary128, and the transcendental rest is added by
// TwoSum, so its sign survives where hi alone would sit on a rounding boundary.
struct Exact {
  Quad hi = 0, lo = 0;
};

inline Exact TwoSum(Quad a, Quad b) {
  const Quad sum = a + b;
  const Quad b_part = sum - a;
  return {sum, (a - (sum - b_part)) + (b - b_part)};
}

inline Exact Plus(Exact a, Exact b) {
  const Exact high = TwoSum(a.hi, b.hi);
  return TwoSum(high.hi, high.lo + a.lo + b.lo);
}

inline Exact ExactLoss(const Input& in) {
  const Quad a = Abs(static_cast<Quad>(in.x));
  const Quad pos = static_cast<Quad>(in.p) * in.t, neg = 1 - static_cast<Quad>(in.t);
  const Quad linear = in.x < 0 ? pos : neg;
  const Quad w = in.w;
  return TwoSum(w * linear * a, w * (pos + neg) * SoftplusTail(in.x));
}

// g*w*numerator/(1+e) = g*w*(main + rest): for x < 0, -p*t + (1-t+p*t)*e/(1+e); for x >= 0,
// (1-t) - (1-t+p*t)*e/(1+e).
inline Exact ExactGradSelf(const Input& in) {
  const Quad e = Exp(-Abs(static_cast<Quad>(in.x)));
  const Quad pos = static_cast<Quad>(in.p) * in.t, neg = 1 - static_cast<Quad>(in.t);
  const Quad gw = static_cast<Quad>(in.g) * in.w;
  const Quad rest = (pos + neg) * e / (1 + e);
  return in.x < 0 ? TwoSum(-gw * pos, gw * rest) : TwoSum(gw * neg, -gw * rest);
}

inline Exact ExactGradTarget(const Input& in) {
  const Quad a = Abs(static_cast<Quad>(in.x));
  const Quad linear = in.x < 0 ? static_cast<Quad>(in.p) : Quad(-1);
  const Quad gw = static_cast<Quad>(in.g) * in.w;
  return TwoSum(gw * linear * a, gw * (static_cast<Quad>(in.p) - 1) * SoftplusTail(in.x));
}

// Distance from `got` to the exact value in ulps of the output type at the exact value.
inline double UlpError(double got, Exact exact, FloatType type) {
  const int mantissa = type == FloatType::kFloat32 ? 24 : type == FloatType::kFloat16 ? 11 : 8;
  const int min_exponent = type == FloatType::kFloat32   ? -126
                           : type == FloatType::kFloat16 ? -14
                                                         : -126;
  const double magnitude = std::fabs(static_cast<double>(exact.hi));
  int exponent = 0;
  std::frexp(magnitude > 0 ? magnitude : 1e-300, &exponent);
  exponent = std::max(exponent - 1, min_exponent);
  const double ulp = std::ldexp(1.0, exponent - (mantissa - 1));
  return static_cast<double>(Abs((static_cast<Quad>(got) - exact.hi) - exact.lo) / ulp);
}

// The exact value rounded once to `type`, widened back to double: to fp32 through double rounded
// to odd (the sign of what lies beyond decides), then to fp16/bf16 from fp32 rounded to odd.
inline double RoundedOnce(Exact exact, FloatType type) {
  const double wide = static_cast<double>(exact.hi);
  const Quad rest = (exact.hi - static_cast<Quad>(wide)) + exact.lo;
  const auto odd_toward = [](auto value, Quad beyond) {
    using T = decltype(value);
    const bool even =
        (BitCast<std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>>(value) & 1) == 0;
    return beyond != 0 && even ? std::nextafter(value, beyond > 0 ? T(INFINITY) : T(-INFINITY))
                               : value;
  };
  const float single = static_cast<float>(odd_toward(wide, rest));
  if (type == FloatType::kFloat32) return single;
  const Quad rest32 = (exact.hi - static_cast<Quad>(single)) + exact.lo;
  const float odd = odd_toward(single, rest32);
  return type == FloatType::kFloat16 ? Float16ToFloat(FloatToFloat16(odd))
                                     : BFloat16ToFloat(FloatToBFloat16(odd));
}

inline Exact ExactOf(LossKind kind, const Input& in) {
  switch (kind) {
    case LossKind::kLoss:
      return ExactLoss(in);
    case LossKind::kGradSelf:
      return ExactGradSelf(in);
    default:
      return ExactGradTarget(in);
  }
}

// `exact` divided by `divisor` (a mean's N): within 2^-112 of the quotient, its rest's sign kept.
inline Exact Divided(Exact exact, int64_t divisor) {
  if (divisor == 1) return exact;
  const Quad d = static_cast<Quad>(divisor);
  return TwoSum(exact.hi / d, exact.lo / d);
}

// The exact mean or sum of the losses (mean over a power-of-two count: the division is exact).
inline Exact ExactReduction(const std::vector<Input>& inputs, Reduction reduction) {
  Exact total;
  for (const Input& in : inputs) total = Plus(total, ExactLoss(in));
  if (reduction == Reduction::kSum) return total;
  const auto count = static_cast<Quad>(inputs.size());
  return {total.hi / count, total.lo / count};
}

}  // namespace openaclnn
