// What the L1 family's tests share: the exact oracle (GMP rationals, rational_oracle.h; exact
// integers for the bound checks), the output types and divisors every test covers, random inputs
// of several spreads, and the tally of results compared with the oracle.
#pragma once

#include <gmpxx.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>

#include "../../kernels/rational_oracle.h"
#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "kernels/loss_problem.h"
#include "losses/l1_loss/l1_loss_family.h"

namespace openaclnn::l1_loss_test {

// Under the sanitizers and off x86-64 (the suite runs aarch64 under qemu) the tests run 5-20 times
// slower: a tenth of the samples there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__x86_64__)
inline constexpr int kSampleScale = 10;
#else
inline constexpr int kSampleScale = 1;
#endif

inline constexpr FloatType kTypes[] = {FloatType::kFloat32, FloatType::kFloat16,
                                       FloatType::kBFloat16};
inline constexpr LossKind kKinds[] = {LossKind::kLoss, LossKind::kGradSelf};
// 1 (none, sum), powers of two (an exact scale), small odd N (ties of g / N in 16-bit types), a
// large prime and 2^40 + 1 (scale's rounding, a divisor of more than 32 bits).
inline constexpr int64_t kDivisors[] = {1, 2, 4096, 3, 5, 7, 1000003, (int64_t{1} << 40) + 1};

inline const char* TypeName(FloatType type) {
  return type == FloatType::kFloat32 ? "fp32" : type == FloatType::kFloat16 ? "fp16" : "bf16";
}
inline const char* KindName(LossKind kind) { return kind == LossKind::kLoss ? "loss" : "grad"; }
inline uint32_t Bits(float v) { return BitCast<uint32_t>(v); }

// v as a value of `type` holds it: rounded once to it and widened back (beyond fp16's range, its
// largest value, so that random inputs stay finite).
inline float Narrow(float v, FloatType type) {
  if (type == FloatType::kFloat32) return v;
  if (type == FloatType::kFloat16) {
    return Float16ToFloat(FloatToFloat16(std::fmax(std::fmin(v, 65504.0f), -65504.0f)));
  }
  return BFloat16ToFloat(FloatToBFloat16(v));
}

// ---- The oracle.

// The exact term of `kind` for finite inputs: |x - t|, or g sign(x - t) with sign(0) = 0.
inline mpq_class ExactTerm(LossKind kind, const ElementInputs& in) {
  const mpq_class d = Rational(in.x) - Rational(in.t);
  if (kind == LossKind::kLoss) return abs(d);
  return Rational(in.g) * sgn(d);
}

// The sign of a zero result: +0 for the loss; for the gradient the sign IEEE gives g * sign(d),
// sign(d) = +0 where x = t: g's sign, flipped where x < t.
inline bool NegativeZero(LossKind kind, const ElementInputs& in) {
  return kind == LossKind::kGradSelf && std::signbit(in.g) != (in.x < in.t);
}

// The correctly rounded element: the exact term / D rounded once to `type`.
inline float Expected(LossKind kind, const ElementInputs& in, int64_t divisor, FloatType type) {
  const mpq_class value = ExactTerm(kind, in) / mpq_class(static_cast<long>(divisor));
  return static_cast<float>(RoundRational(value, type, NegativeZero(kind, in)));
}

// A finite double's exact value times 2^1130 as an integer (v = s 2^e with |s| in [1/2, 1) and
// e >= -1073, so s 2^53 is an integer and the shift, e - 53 + 1130, is positive): the bound checks'
// exact arithmetic, integers only, without rationals' gcds.
inline mpz_class Scaled(double v) {
  int exponent = 0;
  const double significand = std::frexp(v, &exponent);
  mpz_class result(static_cast<long>(std::ldexp(significand, 53)));
  mpz_mul_2exp(result.get_mpz_t(), result.get_mpz_t(), static_cast<mp_bitcnt_t>(exponent + 1077));
  return result;
}

// Whether |value - term / D| <= bound exactly, the term that of `kind` at `in` (finite inputs):
// |value D - term| <= bound D, every quantity an integer times 2^-1130.
inline bool WithinBound(LossKind kind, const ElementInputs& in, int64_t divisor, double value,
                        double bound) {
  mpz_class term = Scaled(in.x) - Scaled(in.t);
  if (kind == LossKind::kLoss) {
    term = abs(term);
  } else {
    term = sgn(term) * Scaled(in.g);
  }
  const mpz_class d(static_cast<long>(divisor));
  return abs(Scaled(value) * d - term) <= Scaled(bound) * d;
}

// ---- Inputs.

inline double Uniform(std::mt19937& rng, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(rng);
}
inline int UniformInt(std::mt19937& rng, int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(rng);
}
// +-2^e, e uniform in [low, high], with a random fp32 significand (rounded to fp32).
inline float LogUniform(std::mt19937& rng, double low, double high) {
  const double magnitude = std::exp2(Uniform(rng, low, high));
  return static_cast<float>(Uniform(rng, 0, 1) < 0.5 ? -magnitude : magnitude);
}

// The random inputs' spreads.
enum class Spread {
  kTypical,     // x, t in [-10, 10], g in [-2, 2]
  kWide,        // every input of any magnitude from 2^-149 to 2^127, either sign
  kSixteenBit,  // typical or wide values of the output type (of fp16 or bf16 for fp32 results)
  kHardLabels,  // t in {0, 1, -1}, x near it, now and then on it; g +-1 or typical
  kCancelling,  // t within a few units of x, or far below it (d inexact in fp64)
  kIntegers,    // integers as a promoted int32 input holds them: rounded once to the type
};
inline constexpr Spread kSpreads[] = {Spread::kTypical,    Spread::kWide,       Spread::kSixteenBit,
                                      Spread::kHardLabels, Spread::kCancelling, Spread::kIntegers};
inline const char* SpreadName(Spread spread) {
  const char* names[] = {"typical", "wide", "16-bit", "hard labels", "cancelling", "integers"};
  return names[static_cast<int>(spread)];
}

inline ElementInputs RandomInputs(std::mt19937& rng, Spread spread, FloatType type) {
  ElementInputs in;
  in.g = static_cast<float>(Uniform(rng, -2, 2));
  switch (spread) {
    case Spread::kTypical:
      in.x = static_cast<float>(Uniform(rng, -10, 10));
      in.t = static_cast<float>(Uniform(rng, -10, 10));
      break;
    case Spread::kWide:
      in.x = LogUniform(rng, -149, 127.99);
      in.t = LogUniform(rng, -149, 127.99);
      in.g = LogUniform(rng, -149, 127.99);
      break;
    case Spread::kSixteenBit: {
      in = RandomInputs(rng, UniformInt(rng, 0, 1) == 0 ? Spread::kTypical : Spread::kWide, type);
      const FloatType grid = type != FloatType::kFloat32  ? type
                             : UniformInt(rng, 0, 1) == 0 ? FloatType::kFloat16
                                                          : FloatType::kBFloat16;
      in = {Narrow(in.x, grid), Narrow(in.t, grid), 1.0f, 1.0f, Narrow(in.g, grid)};
      break;
    }
    case Spread::kHardLabels:
      in.t = static_cast<float>(UniformInt(rng, -1, 1));
      in.x = UniformInt(rng, 0, 7) == 0 ? in.t : static_cast<float>(Uniform(rng, -2, 3));
      if (UniformInt(rng, 0, 1) == 0) in.g = UniformInt(rng, 0, 1) == 0 ? 1.0f : -1.0f;
      break;
    case Spread::kCancelling: {
      in.x = LogUniform(rng, -140, 120);
      if (UniformInt(rng, 0, 1) == 0) {
        const int units = UniformInt(rng, -4, 4);  // t a few fp32 units from x
        in.t = BitCast<float>(static_cast<uint32_t>(static_cast<int64_t>(Bits(in.x)) + units));
      } else {
        in.t = in.x * std::ldexp(static_cast<float>(Uniform(rng, -1, 1)), -UniformInt(rng, 20, 70));
      }
      break;
    }
    case Spread::kIntegers:
      in.x = Narrow(static_cast<float>(UniformInt(rng, -(1 << 30), 1 << 30)), type);
      in.t = Narrow(
          static_cast<float>(UniformInt(rng, -(1 << 30), 1 << 30) / (1 << UniformInt(rng, 0, 30))),
          type);
      in.g = static_cast<float>(UniformInt(rng, -3, 3));
      break;
  }
  return in;
}

// ---- Results compared with the oracle.

// Whether Element takes the exact path (L1QuotientExact) at these inputs: the shortcuts of
// l1_loss_math.h do not apply and the estimate does not settle.
inline bool TakesExactPath(LossKind kind, const ElementParameters& p, const ElementInputs& in,
                           FloatType type) {
  if (!std::isfinite(in.x) || !std::isfinite(in.t) || !std::isfinite(in.g)) return false;
  if (ScaleIsExact(p)) return false;
  if (kind == LossKind::kGradSelf && p.divisor <= QuotientDivisorLimit(type)) return false;
  const ElementEstimate estimate =
      kind == LossKind::kLoss ? L1LossEstimate(in, p.scale) : L1GradientEstimate(in, p.scale);
  if (estimate.value == 0) return false;
  double settled = 0.0;
  return !SettledIn(estimate, type, &settled);
}

inline std::string Describe(LossKind kind, const ElementInputs& in, int64_t divisor,
                            FloatType type) {
  char text[200];
  std::snprintf(text, sizeof text, "%s %s x=%a t=%a g=%a D=%lld", KindName(kind), TypeName(type),
                in.x, in.t, in.g, static_cast<long long>(divisor));
  return text;
}

struct Tally {
  int64_t count = 0, exact = 0, wrong = 0;
  std::string first_wrong;
};

inline void Check(Tally& tally, LossKind kind, int64_t divisor, const ElementInputs& in,
                  FloatType type) {
  const ElementParameters p = DividedBy(divisor);
  const float got = L1LossFamily::Element(kind, p, in, type);
  const float expected = Expected(kind, in, divisor, type);
  ++tally.count;
  if (TakesExactPath(kind, p, in, type)) ++tally.exact;
  if (Bits(got) != Bits(expected) && tally.wrong++ == 0) {
    char text[100];
    std::snprintf(text, sizeof text, ": got %a (%08x), expected %a (%08x)", got, Bits(got),
                  expected, Bits(expected));
    tally.first_wrong = Describe(kind, in, divisor, type) + text;
  }
}

inline void ExpectEveryResultRounded(const Tally& tally, const std::string& what) {
  std::cout << what << ": " << tally.count << " results, " << tally.exact << " on the exact path, "
            << tally.wrong << " wrong\n";
  EXPECT_EQ(tally.wrong, 0) << what << ": first " << tally.first_wrong;
}

}  // namespace openaclnn::l1_loss_test
