// What the smooth L1 family's tests share: the exact formulas as GMP rationals (independent of the
// library: the branch decided on the exact d, every operation exact), the classes and zero signs
// the contract gives, the expected result of every kind rounded once (rational_oracle.h), the
// problems tested (variants, parameters, divisors, types) and their inputs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>
#include <string>

#include "../../kernels/rational_oracle.h"
#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "kernels/loss_problem.h"
#include "losses/smooth_l1_loss/smooth_l1_loss_family.h"

namespace openaclnn {

// Samples as the kernels' rounding tests size them: a tenth under the sanitizers and off x86-64
// (qemu), which run the suite 10-20 times slower.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__x86_64__)
inline constexpr int64_t kScale = 10;
#else
inline constexpr int64_t kScale = 1;
#endif

inline constexpr FloatType kTypes[] = {FloatType::kFloat32, FloatType::kFloat16,
                                       FloatType::kBFloat16};
inline constexpr LossKind kKinds[] = {LossKind::kLoss, LossKind::kGradSelf, LossKind::kGradTarget};
// The divisors of the brief: none/sum (1), powers of two, small odd counts, a large prime, and a
// count above 2^40 (its fl64 reciprocal rounded).
inline constexpr int64_t kDivisors[] = {1, 2, 4096, 3, 5, 7, 1000003, (int64_t{1} << 40) + 1};

inline const char* Name(FloatType type) {
  return type == FloatType::kFloat32 ? "fp32" : type == FloatType::kFloat16 ? "fp16" : "bf16";
}
inline const char* Name(LossKind kind) {
  return kind == LossKind::kLoss       ? "loss"
         : kind == LossKind::kGradSelf ? "grad_self"
                                       : "grad_target";
}

// A problem's attribute: smooth L1's beta (fp32 values: 0 is L1, +inf every d quadratic) and
// Huber's delta (any positive double: the regular range, its edge at 2^-450, the tiny range, huge
// deltas and +inf).
struct Attribute {
  int variant;
  double parameter;
};
inline constexpr Attribute kAttributes[] = {
    {kSmoothL1Variant, 1.0},
    {kSmoothL1Variant, 0.5},
    {kSmoothL1Variant, 3.0},
    {kSmoothL1Variant, static_cast<double>(0.1f)},
    {kSmoothL1Variant, 0.0},
    {kSmoothL1Variant, 0x1p-149},
    {kSmoothL1Variant, static_cast<double>(1e20f)},
    {kSmoothL1Variant, HUGE_VAL},
    {kHuberVariant, 1.0},
    {kHuberVariant, 0.5},
    {kHuberVariant, 1.5},
    {kHuberVariant, 0.1},
    {kHuberVariant, 1e-3},
    {kHuberVariant, 1e10},
    {kHuberVariant, 1e300},
    {kHuberVariant, HUGE_VAL},
    {kHuberVariant, 0x1p-450},
    {kHuberVariant, 0x1.fffffffffffffp-451},
    {kHuberVariant, 1e-200},
    {kHuberVariant, 0x1p-1074},
};

inline std::string Describe(const Attribute& a) {
  char text[80];
  std::snprintf(text, sizeof text, "%s %a", a.variant == kHuberVariant ? "huber" : "smooth_l1",
                a.parameter);
  return text;
}
inline std::string Describe(const ElementInputs& in) {
  char text[120];
  std::snprintf(text, sizeof text, "x=%a t=%a g=%a", in.x, in.t, in.g);
  return text;
}

// The gradOutput a kind multiplies: -g for the target's.
inline float KindG(LossKind kind, float g) { return kind == LossKind::kGradTarget ? -g : g; }

// The exact term (not divided) of finite inputs: the loss or, with gradOutput g, the gradient.
inline mpq_class ExactTerm(LossKind kind, const Attribute& a, float x, float t, float g) {
  const mpq_class d = Rational(x) - Rational(t), magnitude = abs(d);
  const mpq_class sign = sgn(d), gradient_out = Rational(KindG(kind, g));
  const bool huber = a.variant == kHuberVariant;
  if (std::isinf(a.parameter)) {  // every finite d on the quadratic branch
    if (!huber) return 0;
    return kind == LossKind::kLoss ? mpq_class(d * d / 2) : mpq_class(gradient_out * d);
  }
  const mpq_class b = Rational(a.parameter);
  const bool quadratic = magnitude < b;
  if (kind == LossKind::kLoss) {
    if (huber) return quadratic ? mpq_class(d * d / 2) : mpq_class(b * (magnitude - b / 2));
    return quadratic ? mpq_class(d * d / (2 * b)) : mpq_class(magnitude - b / 2);
  }
  if (huber) return quadratic ? mpq_class(gradient_out * d) : mpq_class(gradient_out * b * sign);
  return quadratic ? mpq_class(gradient_out * d / b) : mpq_class(gradient_out * sign);
}

// The sign of an exact zero: a loss's is +; a gradient's that of g times d (d = x - t is -0 only
// for (-0) - (+0)), g the kind's.
inline bool NegativeZero(LossKind kind, float x, float t, float g) {
  if (kind == LossKind::kLoss) return false;
  const bool d_negative = x < t || (x == t && std::signbit(x) && !std::signbit(t));
  return std::signbit(KindG(kind, g)) != d_negative;
}

// The class of a result where an input is not finite, or 0 where it is a finite number: torch's
// and CANN's formulas as the contract states them (NaN for a NaN input or d = inf - inf; a loss of
// infinite d +inf, but NaN where its linear branch subtracts an infinite parameter; a gradient
// of infinite d its linear branch g sign(d) (Huber g delta sign(d)), finite for finite g and
// delta; an infinite g times a d / beta that is 0 or NaN (beta = +inf) gives NaN).
inline double NonFiniteClass(LossKind kind, const Attribute& a, float x, float t, float g) {
  const double nan = std::nan(""), inf = HUGE_VAL;
  const bool huber = a.variant == kHuberVariant;
  const double d = static_cast<double>(x) - t, b = a.parameter;
  const float kind_g = KindG(kind, g);
  if (std::isnan(d)) return nan;
  if (kind == LossKind::kLoss) {
    if (!std::isinf(d)) return 0;
    return std::isinf(b) ? nan : inf;
  }
  if (std::isnan(kind_g)) return nan;
  const double sign = d < 0 ? -1 : 1;
  if (std::isinf(d)) {
    if (huber && std::isinf(b)) return kind_g == 0 ? nan : std::copysign(inf, kind_g * sign);
    return std::isinf(kind_g) ? std::copysign(inf, kind_g * sign) : 0;
  }
  if (!std::isinf(kind_g)) return 0;
  const bool quadratic = std::fabs(d) < b;
  if (d == 0 || (quadratic && !huber && std::isinf(b))) return nan;
  return std::copysign(inf, kind_g * sign);
}

// The expected element: the exact term divided by p.divisor rounded once to `type`, or the class.
inline float Expected(LossKind kind, const ElementParameters& p, const ElementInputs& in,
                      FloatType type) {
  const Attribute a{p.variant, p.parameter};
  const double special = NonFiniteClass(kind, a, in.x, in.t, in.g);
  if (special != 0) return RoundedTo(special, type);
  const double d = static_cast<double>(in.x) - in.t;
  // A finite gradient of infinite d: its linear branch.
  const mpq_class term = std::isinf(d)
                             ? mpq_class(Rational(KindG(kind, in.g)) * (d < 0 ? -1 : 1) *
                                         (a.variant == kHuberVariant ? Rational(a.parameter) : 1))
                             : ExactTerm(kind, a, in.x, in.t, in.g);
  return static_cast<float>(RoundRational(term / mpq_class(static_cast<double>(p.divisor)), type,
                                          NegativeZero(kind, in.x, in.t, in.g)));
}

inline uint32_t Bits(float v) { return BitCast<uint32_t>(v); }

// Results compared with the oracle: how many, how many the estimate left open, how many of those
// an exact numerator decided (the estimate itself exact, or the exact quotient), how many took the
// exact path, how many were wrong (and the first).
struct Tally {
  int64_t count = 0, open = 0, exact_estimate = 0, quotient = 0, exact_path = 0, wrong = 0;
  std::string first_wrong;
  void Add(const Tally& other) {
    count += other.count, open += other.open, exact_estimate += other.exact_estimate;
    quotient += other.quotient, exact_path += other.exact_path, wrong += other.wrong;
    if (first_wrong.empty()) first_wrong = other.first_wrong;
  }
};

// The path the scalar definition takes for a finite-input element (outside Huber's tiny range):
// 0 settled, 1 the estimate exact, 2 the exact quotient of its numerator, 3 the exact path.
inline int PathOf(LossKind kind, const ElementParameters& p, const ElementInputs& in,
                  FloatType type) {
  using O64 = math::ScalarOps64;
  const math::SmoothL1Constants k = SmoothL1ElementConstants(p);
  const float g = KindG(kind, in.g);
  const bool loss = kind == LossKind::kLoss;
  const ElementEstimate estimate = loss ? math::SmoothL1Loss64<O64>(in.x, in.t, k)
                                        : math::SmoothL1Gradient64<O64>(in.x, in.t, g, k);
  double settled = 0.0;
  if (SettledIn(estimate, type, &settled)) return 0;
  const double rest = loss ? math::SmoothL1LossRest64<O64>(in.x, in.t, k)
                           : math::SmoothL1GradientRest64<O64>(in.x, in.t, g, k);
  const bool quadratic = std::fabs(static_cast<double>(in.x) - in.t) < k.threshold;
  if (rest == 0.0 && (quadratic ? k.quadratic_exact : k.linear_exact)) return 1;
  return rest == 0.0 && k.divisors_exact ? 2 : 3;
}

inline void Check(Tally& tally, LossKind kind, const ElementParameters& p, const ElementInputs& in,
                  FloatType type) {
  const float got = SmoothL1LossFamily::Element(kind, p, in, type);
  const float expected = Expected(kind, p, in, type);
  ++tally.count;
  const bool finite = std::isfinite(in.x) && std::isfinite(in.t) && std::isfinite(in.g);
  if (finite && !InHuberTinyRange(p)) {
    const int path = PathOf(kind, p, in, type);
    tally.open += path > 0 ? 1 : 0;
    tally.exact_estimate += path == 1 ? 1 : 0;
    tally.quotient += path == 2 ? 1 : 0;
    tally.exact_path += path == 3 ? 1 : 0;
  }
  if (Bits(got) != Bits(expected) && tally.wrong++ == 0) {
    char text[160];
    std::snprintf(text, sizeof text, " N=%lld %s %s: got %a (%08x), expected %a (%08x)",
                  static_cast<long long>(p.divisor), Name(kind), Name(type), got, Bits(got),
                  expected, Bits(expected));
    tally.first_wrong = Describe(Attribute{p.variant, p.parameter}) + " " + Describe(in) + text;
  }
}

inline void ExpectEveryResultRounded(const Tally& tally, const std::string& what) {
  std::cout << what << ": " << tally.count << " results, " << tally.open << " open ("
            << tally.exact_estimate << " exact estimates, " << tally.quotient
            << " exact quotients, " << tally.exact_path << " on the exact path), " << tally.wrong
            << " wrong\n";
  EXPECT_EQ(tally.wrong, 0) << what << ": first " << tally.first_wrong;
}

inline double Uniform(std::mt19937& rng, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(rng);
}
inline int Integer(std::mt19937& rng, int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(rng);
}
// +-2^e, e uniform in [low, high], with a random significand, rounded to fp32.
inline float LogUniform(std::mt19937& rng, double low, double high) {
  const double magnitude = std::exp2(Uniform(rng, low, high));
  return static_cast<float>(Uniform(rng, 0, 1) < 0.5 ? -magnitude : magnitude);
}

// v as a tensor of `type` holds it (16-bit types: rounded, and clamped to fp16's range).
inline float Narrow(float v, FloatType type) {
  if (type == FloatType::kFloat32) return v;
  if (type == FloatType::kFloat16) {
    return Float16ToFloat(FloatToFloat16(std::fmax(std::fmin(v, 65504.0f), -65504.0f)));
  }
  return BFloat16ToFloat(FloatToBFloat16(v));
}

// Random inputs of one problem, from five distributions (`which` picks, mod 5): typical |x|, |t|
// <= 10; d near the parameter (|d| within a few percent of it, where finite and positive); wide
// exponents (2^-149 to 2^127, either sign); 16-bit values (narrowed to `type`, fp16 for fp32); hard
// labels (t in {0, 1, -1}). g mostly in [-2, 2], one in 8 of any exponent; one in 32 inputs a
// special value (+-0, a subnormal, the largest fp32).
inline ElementInputs RandomInputs(std::mt19937& rng, const Attribute& a, FloatType type,
                                  int which) {
  ElementInputs in;
  in.g = Uniform(rng, 0, 1) < 0.125 ? LogUniform(rng, -149, 127)
                                    : static_cast<float>(Uniform(rng, -2, 2));
  switch (which % 5) {
    case 0:
      in.x = static_cast<float>(Uniform(rng, -10, 10));
      in.t = static_cast<float>(Uniform(rng, -10, 10));
      break;
    case 1: {
      const double b = a.parameter > 0 && a.parameter < 1e30 ? a.parameter : 1.0;
      in.t = static_cast<float>(Uniform(rng, -2 * b, 2 * b));
      const double d = b * Uniform(rng, 0.97, 1.03) * (Uniform(rng, 0, 1) < 0.5 ? -1 : 1);
      in.x = static_cast<float>(in.t + d);
      break;
    }
    case 2:
      in.x = LogUniform(rng, -149, 127);
      in.t = LogUniform(rng, -149, 127);
      in.g = LogUniform(rng, -149, 127);
      break;
    case 3: {
      const FloatType narrow = type == FloatType::kFloat32 ? FloatType::kFloat16 : type;
      in.x = Narrow(static_cast<float>(Uniform(rng, -8, 8)), narrow);
      in.t = Narrow(static_cast<float>(Uniform(rng, -8, 8)), narrow);
      in.g = Narrow(in.g, narrow);
      break;
    }
    default: {
      const float labels[] = {0.0f, 1.0f, -1.0f};
      in.t = labels[Integer(rng, 0, 2)];
      in.x = static_cast<float>(Uniform(rng, -3, 3));
      break;
    }
  }
  if (Integer(rng, 0, 31) == 0) {
    const float special[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-140f, 0x1.fffffep127f, -0x1.fffffep127f};
    (Integer(rng, 0, 1) == 0 ? in.x : in.t) = special[Integer(rng, 0, 5)];
  }
  return in;
}

// A random midpoint of `type` in its binade [2^e, 2^(e+1)), e at least its least normal exponent:
// an odd multiple of half its spacing there.
inline double Midpoint(std::mt19937& rng, FloatType type, int e) {
  const Format f = FormatOf(type);
  const int64_t odd = (int64_t{1} << f.precision) +
                      2 * static_cast<int64_t>(Integer(rng, 0, (1 << (f.precision - 1)) - 1)) + 1;
  return std::ldexp(static_cast<double>(odd), e - f.precision);
}

// Whether v is a midpoint of `type`'s grid: v / 2^(E - precision) an odd integer, E the exponent of
// v's binade (fp16's and bf16's subnormals: their least normal one), within the type's range.
inline bool IsMidpoint(const mpq_class& v, FloatType type) {
  if (v <= 0) return false;
  const Format f = FormatOf(type);
  const long e = std::max<long>(FloorLog2(v), f.min_exponent);
  if (e > f.max_exponent) return false;
  const mpq_class units = TimesPow2(v, f.precision - e);
  return units.get_den() == 1 && mpz_odd_p(units.get_num_mpz_t());
}

// x and t with x - t == d exactly (x the nearest fp32 to d, t the rest), where d splits so.
inline std::optional<ElementInputs> Split(const mpq_class& d, float g) {
  const double value = d.get_d();
  if (!(std::fabs(value) < 0x1p127) || mpq_class(Rational(value)) != d) return std::nullopt;
  const float x = static_cast<float>(value);
  const double rest = static_cast<double>(x) - value;
  const float t = static_cast<float>(rest);
  if (static_cast<double>(t) != rest || Rational(x) - Rational(t) != d) return std::nullopt;
  return ElementInputs{x, t, 1.0f, 1.0f, g};
}

// The odd part of a positive integer-valued or fp32 double's significand.
inline int64_t OddPart(double v) {
  int exponent = 0;
  auto significand = static_cast<int64_t>(std::ldexp(std::frexp(v, &exponent), 53));
  while (significand % 2 == 0) significand /= 2;
  return significand;
}

inline int BitLength(const mpz_class& v) {
  return static_cast<int>(mpz_sizeinbase(v.get_mpz_t(), 2));
}

// Inputs whose result (the kind's term over N) is exactly a midpoint of `type`, built by solving
// the branch's formula for one input: the linear loss for d (|d| = mN + beta/2, or mN/delta +
// delta/2 with delta a power of two), the quadratic loss by d = 2^j r with r = beta's and N's odd
// parts times an odd s whose square makes the value's odd part exactly precision + 1 bits, the
// quadratic gradient for d (g a power of two), the linear gradient for g (g = mN, or mN/delta).
// nullopt where the attribute, divisor and type admit no such input (a divisor of more bits than
// the type's midpoints, a delta that is not a power of two).
inline std::optional<ElementInputs> OnMidpoint(std::mt19937& rng, LossKind kind, const Attribute& a,
                                               int64_t divisor, FloatType type) {
  const bool huber = a.variant == kHuberVariant, loss = kind == LossKind::kLoss;
  const double b = a.parameter;
  const mpq_class n(static_cast<double>(divisor));
  const bool finite_positive = b > 0 && !std::isinf(b);
  const bool power_of_two = finite_positive && OddPart(b) == 1;
  // A branch that exists for this attribute; where both do, either.
  bool quadratic = Integer(rng, 0, 1) == 0;
  if (!huber && b == 0) quadratic = false;  // L1: quadratic only at d = 0
  if (std::isinf(b)) quadratic = true;
  if (!huber && std::isinf(b)) return std::nullopt;  // every finite result 0
  if (finite_positive && (b < 0x1p-100 || b > 0x1p100)) quadratic = b > 1;
  const Format f = FormatOf(type);
  // The midpoint's binade: near b where b matters, else near 1; within the type's normal range.
  const double anchor = finite_positive ? b : 1.0;
  const int e =
      std::clamp(std::ilogb(anchor) + Integer(rng, -6, 6), f.min_exponent, f.max_exponent - 1);
  const double m = Midpoint(rng, type, e);
  const float g =
      static_cast<float>(std::ldexp(Integer(rng, 0, 1) ? 1.0 : -1.0, Integer(rng, -3, 3)));
  if (loss && !quadratic) {
    if (huber && !power_of_two) return std::nullopt;
    const mpq_class rb = Rational(b);
    const mpq_class d =
        huber ? mpq_class(Rational(m) * n / rb + rb / 2) : mpq_class(Rational(m) * n + rb / 2);
    if (d < rb) return std::nullopt;
    auto in = Split(Integer(rng, 0, 1) ? d : mpq_class(-d), 1.0f);
    return in;
  }
  if (loss) {
    // value = d^2 / (2 beta N) (beta = 1 for Huber): d = 2^j r, r = odd(beta) odd(N) s.
    const mpz_class base =
        mpz_class(OddPart(huber ? 1.0 : b)) * mpz_class(OddPart(static_cast<double>(divisor)));
    const int want = f.precision + 1 - BitLength(base);
    if (want < 1) return std::nullopt;
    for (int attempt = 0; attempt < 64; ++attempt) {
      const int bits = std::max(1, (want + Integer(rng, 0, 1)) / 2);
      const mpz_class s = 2 * mpz_class(Integer(rng, 0, (1 << (bits - 1)) - 1)) + 1 +
                          (bits > 1 ? mpz_class(1) << (bits - 1) : mpz_class(0));
      if (BitLength(base * s * s) != f.precision + 1) continue;
      const mpz_class r = base * s;
      // |d| in [b/8, b) (Huber's +inf: near 1), its value then a midpoint where in range.
      const double limit = finite_positive ? b : 1.0;
      const int j = std::ilogb(limit) - BitLength(r) - Integer(rng, 1, 3);
      const mpq_class d = TimesPow2(mpq_class(r), j);
      const mpq_class value =
          huber ? mpq_class(d * d / (2 * n)) : mpq_class(d * d / (2 * Rational(b) * n));
      if (!IsMidpoint(value, type)) continue;
      if (auto in = Split(Integer(rng, 0, 1) ? d : mpq_class(-d), 1.0f)) return in;
    }
    return std::nullopt;
  }
  if (quadratic) {
    // g d / (beta N) = m: d = m beta N / g (Huber: m N / g), |d| below the threshold.
    const mpq_class d = Rational(m) * n * (huber ? mpq_class(1) : Rational(b)) / Rational(g);
    if (finite_positive && abs(d) >= Rational(b)) return std::nullopt;
    return Split(d, g);
  }
  // Linear: g sign(d) / N = m (Huber: g delta sign(d) / N = m), d well past the threshold.
  if (huber && !power_of_two) return std::nullopt;
  const mpq_class gradient = Rational(m) * n / (huber ? Rational(b) : mpq_class(1));
  const double value = gradient.get_d();
  if (!(std::fabs(value) < 0x1p127) || mpq_class(Rational(value)) != gradient ||
      static_cast<double>(static_cast<float>(value)) != value) {
    return std::nullopt;
  }
  const double past = finite_positive ? 2 * b : 3.0;
  if (!(past < 0x1p127)) return std::nullopt;
  ElementInputs in{static_cast<float>(past), 0.0f, 1.0f, 1.0f, static_cast<float>(value)};
  if (static_cast<double>(in.x) < past * 0.99 || (finite_positive && in.x < b)) return std::nullopt;
  if (Integer(rng, 0, 1)) in.x = -in.x, in.g = -in.g;
  if (kind == LossKind::kGradTarget) in.g = -in.g;
  return in;
}

// The same, one unit of an input beside: t (or, for a linear gradient, g) moved to a neighbouring
// fp32 value, or a zero t to +-2^-149, so that the result lies just off the midpoint.
inline ElementInputs Beside(std::mt19937& rng, LossKind kind, ElementInputs in) {
  const float toward = Integer(rng, 0, 1) ? HUGE_VALF : -HUGE_VALF;
  const bool linear_gradient = kind != LossKind::kLoss && in.t == 0.0f && std::fabs(in.x) >= 2.0f;
  if (linear_gradient && Integer(rng, 0, 1)) {
    in.g = std::nextafter(in.g, toward);
  } else {
    in.t = std::nextafter(in.t, toward);
  }
  return in;
}

}  // namespace openaclnn
