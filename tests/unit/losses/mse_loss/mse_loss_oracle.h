// What the MSE family's tests share: the exact values (GMP rationals, rational_oracle.h), which
// never use the library's arithmetic; the inputs (random, by distribution); the tally of results
// against the oracle, with the path each element took (exact at once, settled, exact path).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>

#include "../../kernels/rational_oracle.h"
#include "../../kernels/rounding_harness.h"
#include "base/dtype.h"
#include "losses/mse_loss/mse_loss_family.h"

namespace openaclnn::mse_test {

constexpr FloatType kTypes[] = {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16};
constexpr LossKind kKinds[] = {LossKind::kLoss, LossKind::kGradSelf};
// 1 (none, sum), powers of two, small odd ones (ties are common), a large prime, 2^40 + 1.
constexpr int64_t kDivisors[] = {1, 2, 4096, 3, 5, 7, 1000003, (int64_t{1} << 40) + 1};

inline const char* KindName(LossKind kind) { return kind == LossKind::kLoss ? "loss" : "grad"; }

// The term's exact value: (x - t)^2, or 2 g (x - t).
inline mpq_class ExactTerm(LossKind kind, const ElementInputs& in) {
  const mpq_class d = Rational(in.x) - Rational(in.t);
  return kind == LossKind::kLoss ? mpq_class(d * d) : mpq_class(2 * Rational(in.g) * d);
}
inline mpq_class ExactElement(LossKind kind, const ElementInputs& in, int64_t divisor) {
  return ExactTerm(kind, in) / mpq_class(static_cast<long>(divisor));
}

// The sign IEEE arithmetic gives an exact zero: +0 for the loss; for the gradient the product of
// g's and d's signs, d = x - t being -0 only for (-0) - (+0).
inline bool NegativeZero(LossKind kind, const ElementInputs& in) {
  if (kind == LossKind::kLoss) return false;
  const bool d_negative =
      in.x < in.t || (in.x == in.t && std::signbit(in.x) && !std::signbit(in.t));
  return std::signbit(in.g) != d_negative;
}

// The correctly rounded element of finite inputs, as fp32 holds it.
inline float Expected(LossKind kind, const ElementInputs& in, int64_t divisor, FloatType type) {
  return static_cast<float>(
      RoundRational(ExactElement(kind, in, divisor), type, NegativeZero(kind, in)));
}

inline uint32_t Bits(float v) { return BitCast<uint32_t>(v); }

inline std::string Describe(LossKind kind, const ElementInputs& in, int64_t divisor,
                            FloatType type) {
  char text[200];
  std::snprintf(text, sizeof text, "%s %s x=%a t=%a g=%a D=%lld", KindName(kind), TypeName(type),
                in.x, in.t, in.g, static_cast<long long>(divisor));
  return text;
}

// Which way Element decides: at once (a power-of-two divisor, an exact difference), by the
// estimate's rounding test, or by the exact path.
enum class Path { kAtOnce, kSettled, kExact };
inline Path PathOf(LossKind kind, const ElementParameters& p, const ElementInputs& in,
                   FloatType type) {
  const bool power_of_two = (p.divisor & (p.divisor - 1)) == 0;
  if (power_of_two && math::MseDifferenceExact(in.x, in.t, static_cast<double>(in.x) - in.t)) {
    return Path::kAtOnce;
  }
  double settled = 0.0;
  return SettledIn(MseLossFamily::Estimate(kind, p, in), type, &settled) ? Path::kSettled
                                                                         : Path::kExact;
}

// Results against the oracle, and the paths they took.
struct Tally {
  int64_t count = 0, at_once = 0, exact = 0, wrong = 0;
  std::string first_wrong;
};

inline void Check(Tally& tally, LossKind kind, const ElementInputs& in, int64_t divisor,
                  FloatType type) {
  const ElementParameters p = DividedBy(divisor);
  const float got = MseLossFamily::Element(kind, p, in, type);
  const float expected = Expected(kind, in, divisor, type);
  ++tally.count;
  const Path path = PathOf(kind, p, in, type);
  tally.at_once += path == Path::kAtOnce ? 1 : 0;
  tally.exact += path == Path::kExact ? 1 : 0;
  if (Bits(got) != Bits(expected) && tally.wrong++ == 0) {
    char text[120];
    std::snprintf(text, sizeof text, ": got %a, expected %a", static_cast<double>(got),
                  static_cast<double>(expected));
    tally.first_wrong = Describe(kind, in, divisor, type) + text;
  }
}

inline void Report(const Tally& tally, const std::string& what) {
  std::cout << what << ": " << tally.count << " results, " << tally.at_once << " exact at once, "
            << tally.exact << " on the exact path, " << tally.wrong << " wrong\n";
  EXPECT_EQ(tally.wrong, 0) << what << ": first " << tally.first_wrong;
}

inline double Uniform(std::mt19937_64& rng, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(rng);
}
inline bool Coin(std::mt19937_64& rng) { return (rng() & 1) != 0; }
// +-2^e, e uniform in [low, high], with a random fp32 significand (fp32's subnormals included).
inline float LogUniform(std::mt19937_64& rng, double low, double high) {
  const auto magnitude = static_cast<float>(std::exp2(Uniform(rng, low, high)));
  return Coin(rng) ? -magnitude : magnitude;
}
// v rounded to `type` as a tensor of it holds it (beyond fp16's range its largest value).
inline float Narrow(float v, FloatType type) {
  if (type == FloatType::kFloat32) return v;
  if (type == FloatType::kFloat16) {
    return Float16ToFloat(FloatToFloat16(std::fmax(std::fmin(v, 65504.0f), -65504.0f)));
  }
  return BFloat16ToFloat(FloatToBFloat16(v));
}

// The random sets: typical values (|v| <= 10), every exponent (2^-149 to 2^127: gaps above 28,
// overflowing and underflowing results), inputs of a 16-bit type, hard labels (t in {0, 1, -1},
// x at or near them too), and close pairs (x within a few units of t: the Sterbenz region). One
// operand in 32 is a special finite value: a signed zero, the least subnormal, the least normal,
// the largest finite value, +-1.
enum class Distribution { kTypical, kWide, kSixteenBit, kHardLabels, kClose };
constexpr Distribution kDistributions[] = {Distribution::kTypical, Distribution::kWide,
                                           Distribution::kSixteenBit, Distribution::kHardLabels,
                                           Distribution::kClose};
inline const char* DistributionName(Distribution d) {
  const char* names[] = {"typical", "wide", "16-bit", "hard labels", "close"};
  return names[static_cast<int>(d)];
}

inline float Special(std::mt19937_64& rng) {
  const float specials[] = {0.0f, 0x1p-149f, 0x1p-126f, 0x1.fffffep127f, 1.0f};
  const float v = specials[rng() % std::size(specials)];
  return Coin(rng) ? -v : v;
}

// `sixteen`: the 16-bit type whose values the kSixteenBit set takes.
inline ElementInputs RandomInputs(std::mt19937_64& rng, Distribution distribution,
                                  FloatType sixteen) {
  ElementInputs in;
  switch (distribution) {
    case Distribution::kTypical:
      in.x = static_cast<float>(Uniform(rng, -10, 10));
      in.t = static_cast<float>(Uniform(rng, -10, 10));
      in.g = static_cast<float>(Uniform(rng, -4, 4));
      break;
    case Distribution::kWide:
      in.x = LogUniform(rng, -149, 127.99);
      in.t = LogUniform(rng, -149, 127.99);
      in.g = LogUniform(rng, -149, 127.99);
      break;
    case Distribution::kSixteenBit: {
      const bool wide = rng() % 4 == 0;
      const double high = sixteen == FloatType::kFloat16 ? 15.99 : 127.99;
      in.x = Narrow(wide ? LogUniform(rng, -24, high) : static_cast<float>(Uniform(rng, -1, 1)),
                    sixteen);
      in.t = Narrow(wide ? LogUniform(rng, -24, high) : static_cast<float>(Uniform(rng, -1, 1)),
                    sixteen);
      in.g = Narrow(static_cast<float>(Uniform(rng, -4, 4)), sixteen);
      break;
    }
    case Distribution::kHardLabels: {
      const float labels[] = {0.0f, 1.0f, -1.0f};
      in.t = labels[rng() % 3];
      in.x = rng() % 4 == 0 ? labels[rng() % 3]
             : Coin(rng)    ? in.t + LogUniform(rng, -40, 0)
                            : static_cast<float>(Uniform(rng, -2, 2));
      in.g = static_cast<float>(Uniform(rng, -2, 2));
      break;
    }
    case Distribution::kClose: {
      in.t = Coin(rng) ? static_cast<float>(Uniform(rng, -10, 10)) : LogUniform(rng, -140, 120);
      const int units = static_cast<int>(rng() % 9) - 4;
      in.x = Coin(rng) ? std::nextafter(in.t, units < 0 ? -HUGE_VALF : HUGE_VALF)
                       : static_cast<float>(in.t * (1 + units * Uniform(rng, 0, 0x1p-10)));
      in.g = LogUniform(rng, -20, 20);
      break;
    }
  }
  if (rng() % 32 == 0) in.x = Special(rng);
  if (rng() % 32 == 0) in.t = Special(rng);
  if (rng() % 32 == 0) in.g = Special(rng);
  return in;
}

}  // namespace openaclnn::mse_test
