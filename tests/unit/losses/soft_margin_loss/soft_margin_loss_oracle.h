// The soft margin family's oracle and inputs, written independently of the library: each term's
// exact value as a binary128 pair (binary128_oracle.h's Exact), its rational part exact (z = x t
// and t g are exact in binary128) and its transcendental rest from expq and log1pq; the division
// by a divisor d exact but for the rest's own error (the remainder of a binary128 quotient is a
// binary128, fmaq); the value rounded once to a type (RoundedOnce). Plus the random input sets
// and the inputs built on and next to rounding boundaries that the tests share.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../../kernels/binary128_oracle.h"
#include "../../kernels/rational_oracle.h"
#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "kernels/loss_problem.h"

#if defined(__x86_64__) && !__has_include(<quadmath.h>)
extern "C" __float128 fmaq(__float128, __float128, __float128);
extern "C" __float128 expm1q(__float128);
#endif

namespace openaclnn::soft_margin_test {

#if defined(__x86_64__)
inline Quad FusedMulAdd(Quad a, Quad b, Quad c) { return fmaq(a, b, c); }
inline Quad ExpM1(Quad v) { return expm1q(v); }
#else
inline Quad FusedMulAdd(Quad a, Quad b, Quad c) { return fmal(a, b, c); }
inline Quad ExpM1(Quad v) { return expm1l(v); }
#endif

// 1, 2, 4096 (powers of two: an exact scale), 3, 5, 7, a prime, and 2^40 + 1 (whose reciprocal
// and products carry the most bits).
inline constexpr int64_t kDivisors[] = {1, 2, 4096, 3, 5, 7, 1000003, (int64_t{1} << 40) + 1};
inline constexpr FloatType kTypes[] = {FloatType::kFloat32, FloatType::kFloat16,
                                       FloatType::kBFloat16};
inline constexpr LossKind kKinds[] = {LossKind::kLoss, LossKind::kGradSelf};

inline const char* KindName(LossKind kind) { return kind == LossKind::kLoss ? "loss" : "grad"; }
inline const char* TypeName(FloatType type) {
  return type == FloatType::kFloat32 ? "fp32" : type == FloatType::kFloat16 ? "fp16" : "bf16";
}

// Samples per test: a tenth under the sanitizers and off x86-64 (binary128 in software long
// double, the suite emulated under qemu), as the kernels' rounding tests do.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__x86_64__)
inline constexpr int64_t kSampleScale = 10;
#else
inline constexpr int64_t kSampleScale = 1;
#endif

// Beyond this |z| the transcendental rest lies below binary128's normal range (e^-11355); it is
// then taken as 2^-16000 with its sign. Any positive rest that small changes only which side of a
// boundary a rational part exactly on one rounds to: every rational part here is a multiple of
// 2^-300 / d, so it lies on a boundary or at least 2^-363 from one.
inline constexpr double kRestBeyond = 10000.0;
inline const Quad kTinyRest = static_cast<Quad>(0x1p-1000) * 0x1p-1000 * 0x1p-1000 * 0x1p-1000 *
                              0x1p-1000 * 0x1p-1000 * 0x1p-1000 * 0x1p-1000 * 0x1p-1000 *
                              0x1p-1000 * 0x1p-1000 * 0x1p-1000 * 0x1p-1000 * 0x1p-1000 *
                              0x1p-1000 * 0x1p-1000;  // 2^-16000

// Both terms of one input, from one exponential and one log1p, each as an exact main part and a
// transcendental rest:
//   loss      max(-z, 0) (exact) + log1p(e), e = exp(-|z|);
//   gradient  -t g sigmoid(-z), a zero (t g = 0) with the sign of -(t g). For |z| <= 1,
//             -(t g)/2 (exact) + (t g) m / (2 (2 + m)), m = expm1(z): sigmoid(-z) - 1/2 keeps its
//             relative precision however small z is (exp(-|z|) itself rounds to 1 for
//             |z| < 2^-113, which would make a value beside -(t g)/(2 d) look like a tie), and e
//             is 1 + m or 1/(1 + m). Beyond, -(t g) s for z > 1 and -(t g) + (t g) s for z < -1,
//             s = e/(1 + e).
struct OracleTerms {
  Exact loss, grad;
};
inline OracleTerms Oracle(const ElementInputs& in) {
  const Quad z = static_cast<Quad>(in.x) * in.t, tg = static_cast<Quad>(in.t) * in.g;
  const Quad a = Abs(z), linear = z < 0 ? -z : Quad(0);
  OracleTerms terms;
  if (a <= 1) {
    const Quad m = ExpM1(z);
    terms.loss = TwoSum(linear, Log1p(z <= 0 ? 1 + m : 1 / (1 + m)));
    terms.grad = TwoSum(-tg / 2, tg * m / (2 * (2 + m)));
  } else {
    const bool tiny = a > Quad(kRestBeyond);
    const Quad e = tiny ? kTinyRest : Exp(-a), s = e / (1 + e);
    terms.loss = TwoSum(linear, tiny ? kTinyRest : Log1p(e));
    terms.grad = z > 0 ? Exact{-tg * s, 0} : TwoSum(-tg, tg * s);
  }
  if (tg == 0) terms.grad = {-tg, 0};
  return terms;
}

inline Exact OracleOf(LossKind kind, const ElementInputs& in) {
  const OracleTerms terms = Oracle(in);
  return kind == LossKind::kLoss ? terms.loss : terms.grad;
}

// v / d: the quotient q of the main part, its exact remainder (a binary128 where q is the
// correctly rounded quotient), and the rest's share. Named apart from binary128_oracle.h's
// Divided, which keeps no exact remainder.
inline Exact QuotientWithRemainder(Exact v, int64_t d) {
  const Quad divisor = static_cast<Quad>(d);
  const Quad q = v.hi / divisor;
  const Quad remainder = FusedMulAdd(-q, divisor, v.hi);
  return {q, (remainder + v.lo) / divisor};
}

// The term divided by d, rounded once to `type`; a zero keeps its sign.
inline double Want(Exact term, int64_t d, FloatType type) {
  if (term.hi == 0 && term.lo == 0) {
    return static_cast<double>(term.hi);  // the signed zero itself
  }
  return RoundedOnce(QuotientWithRemainder(term, d), type);
}

inline float InType(float v, FloatType type) {
  if (type == FloatType::kFloat32) return v;
  return type == FloatType::kFloat16 ? Float16ToFloat(FloatToFloat16(v))
                                     : BFloat16ToFloat(FloatToBFloat16(v));
}

// ---- Random inputs.

// A magnitude log-uniform over [2^low, 2^high], either sign.
inline float LogUniform(std::mt19937& rng, double low, double high) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto v = static_cast<float>(std::exp2(low + (high - low) * unit(rng)));
  return unit(rng) < 0.5 ? -v : v;
}

// The distributions: "typical" (x in [-10, 10], t in [-5, 5] as CANN's ATK draws it, a third of
// them hard labels +-1, g in [-2, 2]); "wide" (x, t, g log-uniform over fp32's whole range);
// "logits" (|x| log-uniform over [1e-6, 120] with hard labels, the family's use); "near zero"
// (|z| about 2^-6..2^-5, where exp's reduction first rounds, and |x| tiny); "thresholds"
// (|z| near 16, 88.7 where CANN's exp overflows, 104, 386, 416, 700 and 745, the floors and
// clamps); "16-bit" (typical and logits narrowed to fp16 or bf16).
enum class Distribution { kTypical, kWide, kLogits, kNearZero, kThresholds, kHalf, kBHalf };
inline constexpr Distribution kDistributions[] = {
    Distribution::kTypical,    Distribution::kWide, Distribution::kLogits, Distribution::kNearZero,
    Distribution::kThresholds, Distribution::kHalf, Distribution::kBHalf};
inline const char* DistributionName(Distribution d) {
  switch (d) {
    case Distribution::kTypical:
      return "typical";
    case Distribution::kWide:
      return "wide";
    case Distribution::kLogits:
      return "logits";
    case Distribution::kNearZero:
      return "near zero";
    case Distribution::kThresholds:
      return "thresholds";
    case Distribution::kHalf:
      return "fp16 inputs";
    default:
      return "bf16 inputs";
  }
}

inline ElementInputs RandomInput(std::mt19937& rng, Distribution distribution) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto uniform = [&](double low, double high) {
    return static_cast<float>(low + (high - low) * unit(rng));
  };
  const auto label = [&] { return unit(rng) < 0.5 ? -1.0f : 1.0f; };
  ElementInputs in;
  switch (distribution) {
    case Distribution::kWide:
      in.x = LogUniform(rng, -149, 127.9);
      in.t = LogUniform(rng, -149, 127.9);
      in.g = LogUniform(rng, -149, 127.9);
      return in;
    case Distribution::kLogits:
      in.x = LogUniform(rng, std::log2(1e-6), std::log2(120.0));
      in.t = label();
      in.g = unit(rng) < 0.5 ? 1.0f : uniform(-2, 2);
      return in;
    case Distribution::kNearZero: {
      // z = x t with |z| in [2^-7, 2^-4] (t of any size), or |x| log-uniform below 2^-20.
      in.t = unit(rng) < 0.5 ? label() : uniform(-5, 5);
      const double z = std::exp2(-7 + 3 * unit(rng)) * (unit(rng) < 0.5 ? -1 : 1);
      in.x = unit(rng) < 0.75 ? static_cast<float>(z / in.t) : LogUniform(rng, -149, -20);
      in.g = uniform(-2, 2);
      return in;
    }
    case Distribution::kThresholds: {
      const double centres[] = {16.0, 88.72, 103.97, 386.0, 415.9, 700.0, 745.13};
      const double centre = centres[rng() % std::size(centres)];
      in.t = unit(rng) < 0.5 ? label() : LogUniform(rng, -8, 8);
      const double z = centre * (1 + (unit(rng) - 0.5) * 1e-3) * (unit(rng) < 0.5 ? -1 : 1);
      in.x = static_cast<float>(z / in.t);
      in.g = uniform(-2, 2);
      return in;
    }
    default: {
      in.x = uniform(-10, 10);
      in.t = unit(rng) < 1.0 / 3 ? label() : uniform(-5, 5);
      in.g = uniform(-2, 2);
      if (distribution == Distribution::kTypical) return in;
      const FloatType type =
          distribution == Distribution::kHalf ? FloatType::kFloat16 : FloatType::kBFloat16;
      if (unit(rng) < 0.5) in.x = LogUniform(rng, std::log2(1e-3), std::log2(120.0));
      return {InType(in.x, type), InType(in.t, type), 1.0f, 1.0f, InType(in.g, type)};
    }
  }
}

// ---- Products on and next to a midpoint (a type's grid: rational_oracle.h's FormatOf).

// Integers a, b < 2^24 with a b = m D 2^s + r, m odd in [m_low, m_high) (a midpoint's odd
// significand), D the odd part of a divisor; r = 0 (a b on the boundary), -1 or +1 (one unit of
// the product below or above it).
struct Product {
  uint64_t a = 0, b = 0, m = 0;
  int s = 0;
  bool found = false;
};

// x^-1 modulo `modulus` (below 2^24, coprime to x), by the extended Euclidean algorithm.
inline uint64_t InverseModulo(uint64_t x, uint64_t modulus) {
  auto r0 = static_cast<int64_t>(modulus), r1 = static_cast<int64_t>(x % modulus);
  int64_t s0 = 0, s1 = 1;
  while (r1 != 0) {
    const int64_t q = r0 / r1;
    const int64_t r2 = r0 - q * r1, s2 = s0 - q * s1;
    r0 = r1, r1 = r2, s0 = s1, s1 = s2;
  }
  const auto m = static_cast<int64_t>(modulus);
  return static_cast<uint64_t>(((s0 % m) + m) % m);
}

inline uint64_t Gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    const uint64_t r = a % b;
    a = b, b = r;
  }
  return a;
}

inline Product ProductNearMidpoint(std::mt19937_64& rng, uint64_t odd_divisor, int r,
                                   uint64_t m_low, uint64_t m_high) {
  Product p;
  const auto random_odd = [&](uint64_t low, uint64_t high) {  // odd in [low, high), low < high
    return (low + rng() % (high - low)) | 1u;
  };
  if (r == 0) {
    // m = u v, a = u, b = v D: v odd, small enough that v D < 2^24.
    const uint64_t v_high = std::min<uint64_t>((uint64_t{1} << 24) / odd_divisor, 1024);
    if (v_high < 4) return p;
    for (int attempt = 0; attempt < 1000 && !p.found; ++attempt) {
      const uint64_t v = random_odd(3, v_high);
      const uint64_t u_low = (m_low + v - 1) / v, u_high = (m_high - 1) / v + 1;
      if (u_low + 1 >= u_high) continue;
      const uint64_t u = random_odd(u_low, u_high);
      if (u * v < m_low || u * v >= m_high || u >= (uint64_t{1} << 24)) continue;
      p = {u, v * odd_divisor, u * v, 0, true};
    }
    return p;
  }
  // r = -+1: the modulus M = D 2^s (the largest below 2^23), b = r a^-1 mod M (plus multiples of
  // M while below 2^24), a drawn so that a b / M has about m's bits.
  uint64_t modulus = odd_divisor;
  int s = 0;
  while (modulus <= (uint64_t{1} << 22)) modulus <<= 1, ++s;
  if (modulus >= (uint64_t{1} << 24)) return p;
  const double a_centre = static_cast<double>(m_low) * static_cast<double>(modulus) / 0x1p23;
  const uint64_t a_low = std::max<uint64_t>(3, static_cast<uint64_t>(a_centre / 4));
  const uint64_t a_high =
      std::min<uint64_t>(uint64_t{1} << 24, static_cast<uint64_t>(a_centre * 8) + 8);
  for (int attempt = 0; attempt < 200000 && !p.found && a_low + 1 < a_high; ++attempt) {
    const uint64_t a = random_odd(a_low, a_high);
    if (Gcd(a, odd_divisor) != 1) continue;
    const uint64_t inverse = InverseModulo(a, modulus);
    uint64_t b = r > 0 ? inverse : (modulus - inverse) % modulus;
    const uint64_t steps = ((uint64_t{1} << 24) - b + modulus - 1) / modulus;  // b + j M < 2^24
    b += modulus * (rng() % steps);
    if (b == 0) continue;
    const uint64_t product = a * b;
    const uint64_t m = (product - static_cast<uint64_t>(static_cast<int64_t>(r))) / modulus;
    if ((m & 1) == 0 || m < m_low || m >= m_high) continue;
    p = {a, b, m, s, true};
  }
  return p;
}

// The odd part of d and its power of two.
inline uint64_t OddPart(int64_t d) {
  auto v = static_cast<uint64_t>(d);
  while ((v & 1) == 0) v >>= 1;
  return v;
}
inline int TwoPower(int64_t d) {
  int k = 0;
  while ((d & 1) == 0) d >>= 1, ++k;
  return k;
}

}  // namespace openaclnn::soft_margin_test
