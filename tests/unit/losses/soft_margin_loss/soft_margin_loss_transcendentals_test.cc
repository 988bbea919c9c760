// The fp64 and double-double transcendentals at the soft margin's argument a = |z| = |x t| (up to
// 48 significant bits, where their bounds were first derived for fp32 arguments), against
// binary128: ExpNeg64's reduction step exact for every such a (and for any double up to 700, as
// the error budget derives), and exp(-a), log1p(exp(-a)), 1/(1 + e) and the sigmoid within their
// bounds, at the edges of the reduction (a about 2^-6, where n first leaves 0; a on and next to
// the half-sixteenths of ln 2, where n rounds either way; a near 700 and near powers of two) and
// on random products.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include "kernels/double_double.h"
#include "kernels/math.h"
#include "losses/soft_margin_loss/soft_margin_loss_error_budget.h"
#include "soft_margin_loss_oracle.h"

namespace openaclnn::soft_margin_test {
namespace {

using O64 = math::ScalarOps64;

// v rounded to `bits` significant bits (v > 0).
double RoundToBits(double v, int bits) {
  const int exponent = std::ilogb(v);
  return std::ldexp(std::nearbyint(std::ldexp(v, bits - 1 - exponent)), exponent - (bits - 1));
}

// The arguments: the reduction's edges with 48-bit significands (and with 53-bit ones), then
// |x t| <= 700 for random fp32 x and t.
std::vector<double> Arguments(int64_t random_count) {
  std::mt19937 rng(37);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> as;
  for (int64_t i = 0; i < 20000 / kSampleScale; ++i) {
    // About 2^-6 and the first n = 1 (a log2e = 1/32: a = 0.02166).
    as.push_back(RoundToBits(std::exp2(-7 + 2.5 * unit(rng)), 48));
    // On and next to a = (n + 1/2) ln2/16, where RN(a log2e) on sixteenths goes either way.
    const double n = std::floor(unit(rng) * 16157);
    const double tie = RoundToBits((n + 0.5) * 0.6931471805599453 / 16, 48);
    as.push_back(tie + std::ldexp(static_cast<double>(static_cast<int>(rng() % 9) - 4),
                                  std::ilogb(tie) - 47));
    // Near 700, and one 48-bit unit around each power of two from 2^-20 to 2^9.
    as.push_back(RoundToBits(700.0 - unit(rng), 48));
    const double power = std::exp2(static_cast<double>(static_cast<int>(rng() % 30) - 20));
    as.push_back(power * (1 + (static_cast<double>(rng() % 3) - 1) * 0x1p-47));
    // Any double: 53-bit significands over the same ranges.
    as.push_back(std::exp2(-7 + 16.4 * unit(rng)));
  }
  while (static_cast<int64_t>(as.size()) < random_count) {
    const double a = std::fabs(static_cast<double>(LogUniform(rng, -20, 10)) *
                               static_cast<double>(LogUniform(rng, -10, 10)));
    if (a <= 700) as.push_back(a);
  }
  return as;
}

double Relative(Quad got, Quad exact) { return static_cast<double>(Abs((got - exact) / exact)); }

// ExpNeg64's first fused step, s = -a - k ln2hi, equals its exact value (binary128 holds it: at
// most 67 bits from 2^10 down to 2^-58) for every argument: the error budget's claim.
TEST(SoftMarginTranscendentals, TheReductionStepIsExact) {
  const std::vector<double> as = Arguments(300000 / kSampleScale);
  int64_t nonzero_n = 0;
  for (const double a : as) {
    const double rounded = std::fma(a, math::kLog2E64, math::kSixteenthsMagic64);
    const double k = math::kSixteenthsMagic64 - rounded;
    const double s = std::fma(-k, math::kLn2Hi64, -a);
    const Quad exact = -static_cast<Quad>(a) - static_cast<Quad>(k) * math::kLn2Hi64;
    ASSERT_EQ(static_cast<Quad>(s), exact) << std::hexfloat << a;
    ASSERT_LT(std::fabs(s), std::exp2(-5.5)) << std::hexfloat << a;
    if (k != 0) ++nonzero_n;
  }
  std::cout << as.size() << " arguments, " << nonzero_n << " with n != 0: every step exact\n";
  EXPECT_GT(nonzero_n, static_cast<int64_t>(as.size()) / 2);
}

// exp(-a) within kExpNegError64, log1p(exp(-a)) within kLog1pExpNegError64, 1/(1 + e) of the
// computed e within kReciprocal1pError64, and the sigmoid's two forms (e r below z > 0, r above)
// within what the gradient's bound takes of them; the double-double ExpNeg, log1p and sigmoid
// (every fourth argument) within 2^-95 of themselves up to a = 600 (beyond, e^-a's low part lies
// in fp64's subnormal range: 2^-1074 absolute).
TEST(SoftMarginTranscendentals, EveryFunctionIsWithinItsBound) {
  const std::vector<double> as = Arguments(200000 / kSampleScale);
  double worst_exp = 0, worst_log = 0, worst_reciprocal = 0, worst_upper = 0, worst_lower = 0;
  double worst_dd = 0;
  int64_t index = 0;
  for (const double a : as) {
    const Quad exact_e = Exp(-static_cast<Quad>(a));
    const double e = math::ExpNeg64<O64>(a);
    const auto split = math::SplitUnit<O64>(e);
    const double r = math::Reciprocal1pSplit<O64>(split);
    worst_exp = std::max(worst_exp, Relative(e, exact_e));
    worst_log = std::max(worst_log, Relative(math::Log1pSplit<O64>(split), Log1p(exact_e)));
    worst_reciprocal = std::max(worst_reciprocal, Relative(r, 1 / (1 + static_cast<Quad>(e))));
    worst_upper = std::max(worst_upper, Relative(e * r, exact_e / (1 + exact_e)));
    worst_lower = std::max(worst_lower, Relative(r, 1 / (1 + exact_e)));
    if (index++ % 4 != 0 || a > 600) continue;
    const math::exact::DD dd_e = math::exact::ExpNeg(a);
    const math::exact::DD dd_log = math::exact::Log1p(dd_e);
    const math::exact::DD dd_sigmoid =
        math::exact::Div(dd_e, math::exact::Add(math::exact::DD{1.0, 0.0}, dd_e));
    const auto pair = [](math::exact::DD v) { return static_cast<Quad>(v.hi) + v.lo; };
    worst_dd =
        std::max({worst_dd, Relative(pair(dd_e), exact_e), Relative(pair(dd_log), Log1p(exact_e)),
                  Relative(pair(dd_sigmoid), exact_e / (1 + exact_e))});
  }
  std::cout << as.size() << " arguments: worst relative errors exp 2^" << std::log2(worst_exp)
            << ", log1p(exp) 2^" << std::log2(worst_log) << ", 1/(1+e) 2^"
            << std::log2(worst_reciprocal) << ", sigmoid(-a) 2^" << std::log2(worst_upper)
            << ", sigmoid(a) 2^" << std::log2(worst_lower) << ", double-double 2^"
            << std::log2(worst_dd) << "\n";
  EXPECT_LT(worst_exp, math::kExpNegError64);
  EXPECT_LT(worst_log, math::kLog1pExpNegError64);
  EXPECT_LT(worst_reciprocal, math::kReciprocal1pError64);
  EXPECT_LT(worst_upper, math::kExpNegError64 + math::kReciprocal1pError64 + 0x1p-53);
  EXPECT_LT(worst_lower, math::kExpNegError64 / 2 + math::kReciprocal1pError64);
  EXPECT_LT(worst_dd, 0x1p-95);
}

}  // namespace
}  // namespace openaclnn::soft_margin_test
