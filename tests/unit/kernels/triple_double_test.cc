// The triple-double logarithm (kernels/triple_double.h) against MPFR at 300 bits, an oracle far
// beyond binary128's 113: every positive finite fp16 and bf16 value, every power of two of fp32,
// the values beside 1, the hardest t of the KL divergence's search, and random fp32 values.
#include "kernels/triple_double.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

namespace openaclnn::math::exact {
namespace {

float FromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// MPFR numbers at 300 bits, freed with their owner.
class Mpfr {
 public:
  Mpfr() { mpfr_init2(value_, 300); }
  ~Mpfr() { mpfr_clear(value_); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
  mpfr_ptr get() { return value_; }

 private:
  mpfr_t value_;
};

// |LogTriple(t) - ln t| / |ln t| (0 where ln t = 0 and the parts are all 0), as a double.
double RelativeError(float t) {
  const TD log = LogTriple(t);
  Mpfr exact, sum, part;
  mpfr_set_flt(exact.get(), t, MPFR_RNDN);
  mpfr_log(exact.get(), exact.get(), MPFR_RNDN);
  mpfr_set_zero(sum.get(), 1);
  for (double d : log.part) {
    mpfr_set_d(part.get(), d, MPFR_RNDN);  // exact: 53 bits into 300
    mpfr_add(sum.get(), sum.get(), part.get(), MPFR_RNDN);
  }
  if (mpfr_zero_p(exact.get())) return mpfr_zero_p(sum.get()) ? 0.0 : 1.0;
  mpfr_sub(sum.get(), sum.get(), exact.get(), MPFR_RNDN);
  mpfr_div(sum.get(), sum.get(), exact.get(), MPFR_RNDN);
  return std::fabs(mpfr_get_d(sum.get(), MPFR_RNDN));
}

// The positive finite values of a 16-bit format as fp32: fp16 (5-bit exponent, 10-bit
// significand) or bf16 (the high half of an fp32).
std::vector<float> Positive16(bool bf16) {
  std::vector<float> values;
  for (uint32_t bits = 1; bits < (bf16 ? 0x7f80u : 0x7c00u); ++bits) {
    if (bf16) {
      values.push_back(FromBits(bits << 16));
    } else {
      const int exponent = static_cast<int>(bits >> 10), mantissa = static_cast<int>(bits & 0x3ff);
      values.push_back(exponent == 0
                           ? std::ldexp(static_cast<float>(mantissa), -24)
                           : std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25));
    }
  }
  return values;
}

TEST(TripleDoubleLog, IsWithinItsBoundOfMpfrsLogarithm) {
  std::vector<float> values = Positive16(false);
  const std::vector<float> bf16 = Positive16(true);
  values.insert(values.end(), bf16.begin(), bf16.end());
  for (int k = -149; k <= 127; ++k) values.push_back(std::ldexp(1.0f, k));
  for (int k = -64; k <= 64; ++k) values.push_back(1.0f + static_cast<float>(k) * 0x1p-24f);
  // The KL divergence search's hardest t (kl_div_error_budget.h), and the largest and smallest.
  for (float t : {0x1.108a5ap-66f, 0x1.2fe614p+117f, 0x1.78bc74p-2f, 0x1.fffffep+127f, 0x1p-149f}) {
    values.push_back(t);
  }
  std::mt19937 rng(2026);
  std::uniform_int_distribution<uint32_t> positive(1, 0x7f7fffffu);
  for (int i = 0; i < 50'000; ++i) values.push_back(FromBits(positive(rng)));
  double worst = 0.0;
  float worst_t = 0.0f;
  for (float t : values) {
    const double error = RelativeError(t);
    if (error > worst) worst = error, worst_t = t;
  }
  std::cout << values.size() << " t: worst 2^" << std::log2(worst) << " at t = " << std::hexfloat
            << worst_t << std::defaultfloat << "\n";
  EXPECT_LE(worst, 0x1p-147);
}

TEST(TripleDoubleLog, IsExactlyZeroAtOne) {
  const TD log = LogTriple(1.0f);
  for (double part : log.part) EXPECT_EQ(part, 0.0);
}

// The parts of a result do not overlap: each below an ulp of the one before it.
TEST(TripleDoubleLog, PartsAreOrderedAndDoNotOverlap) {
  for (float t : {0.5f, 3.0f, 1e-30f, 7e37f, 0.9999f}) {
    const TD log = LogTriple(t);
    EXPECT_LT(std::fabs(log.part[1]), std::ldexp(std::fabs(log.part[0]), -52)) << t;
    EXPECT_LT(std::fabs(log.part[2]), std::ldexp(std::fabs(log.part[1]), -52)) << t;
  }
}

}  // namespace
}  // namespace openaclnn::math::exact
