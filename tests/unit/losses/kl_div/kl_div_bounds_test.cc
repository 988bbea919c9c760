// The KL divergence family's error budget (kl_div_error_budget.h) against binary128: ln t and e^t
// (fp64 and double-double) within their bounds, every estimate within its bound on a million
// samples per kind (half a million per variant) (and each mean's or sum's term, whose bound is also
// at least kKlDivTermError of it), and the one rounding test the estimates take settling only where
// the bound decides.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <utility>
#include <vector>

#include "kernels/double_double.h"
#include "kernels/math.h"
#include "kl_div_oracle.h"
#include "kl_div_samples.h"
#include "losses/kl_div/kl_div_error_budget.h"
#include "losses/kl_div/kl_div_math.h"

namespace openaclnn {
namespace {

using O64 = math::ScalarOps64;

double Relative(Quad got, Quad want) { return static_cast<double>(Abs((got - want) / want)); }

// Log64 and the double-double Log over every positive fp16 and bf16 value and 200,000 fp32 values
// (log-uniform over the whole range, and next to 1 and to 1/e), against binary128.
TEST(KlDivTranscendentals, LogarithmsAreWithinTheirBounds) {
  std::vector<float> ts;
  for (uint32_t bits = 1; bits < 0x7c00u; ++bits) ts.push_back(Float16ToFloat(bits));
  for (uint32_t bits = 1; bits < 0x7f80u; ++bits) ts.push_back(BFloat16ToFloat(bits));
  Sampler sampler(101);
  for (int i = 0; i < 200000; ++i) {
    const double near = std::ldexp(sampler.Uniform(-1, 1), -sampler.Int(1, 30));
    ts.push_back(i % 3 == 0   ? sampler.Pow2(-149, 128)
                 : i % 3 == 1 ? static_cast<float>(1 + near)
                              : static_cast<float>(std::exp(-1.0) * (1 + near)));
  }
  double worst = 0, worst_exact = 0;
  for (const float t : ts) {
    if (t == 1.0f || !(t > 0)) continue;
    const Quad log = LogQ(t);
    worst = std::max(worst, Relative(math::Log64<O64>(t), log));
    const math::exact::DD dd = math::exact::Log(t);
    worst_exact = std::max(worst_exact, Relative(Quad(dd.hi) + Quad(dd.lo), log));
  }
  std::cout << "ln t: worst 2^" << std::log2(worst) << " (bound 2^" << std::log2(math::kLogError64)
            << "), double-double 2^" << std::log2(worst_exact) << " (" << ts.size() << " t)\n";
  EXPECT_LT(worst, math::kLogError64);
  EXPECT_LT(worst_exact, math::kKlDivLogDoubleDoubleError);
  EXPECT_EQ(math::Log64<O64>(1.0), 0.0);
  const math::exact::DD one = math::exact::Log(1.0);
  EXPECT_EQ(one.hi, 0.0);
  EXPECT_EQ(one.lo, 0.0);
}

// e^t as the estimates form it (KlDivExpOfTarget64: ExpNeg64 of -t, negative arguments included)
// and in double-double (ExpNeg(-t)) over [kKlDivExpTargetMin, kKlDivExpTargetMax]: every fp16 and
// bf16 value there and 200,000 fp32 values; the clamps beyond. (Below -671 the double-double's low
// part is subnormal; every result there is below 2^-800 and rounds to its sign's zero.)
TEST(KlDivTranscendentals, ExponentialsAreWithinTheirBounds) {
  std::vector<float> ts;
  for (uint32_t bits = 0; bits < 0x10000u; ++bits) {
    ts.push_back(Float16ToFloat(bits));
    ts.push_back(BFloat16ToFloat(bits));
  }
  Sampler sampler(103);
  for (int i = 0; i < 200000; ++i) {
    ts.push_back(i % 2 ? static_cast<float>(sampler.Uniform(-700, 700))
                       : sampler.Signed(sampler.Pow2(-149, 9.5)));
  }
  double worst = 0, worst_exact = 0, worst_exact_low = 0;
  int64_t count = 0;
  for (const float t : ts) {
    if (!(t >= math::kKlDivExpTargetMin && t <= math::kKlDivExpTargetMax)) continue;
    const Quad exp = Exp(t);
    const math::exact::DD dd = math::exact::ExpNeg(-static_cast<double>(t));
    worst_exact = std::max(worst_exact, Relative(Quad(dd.hi) + Quad(dd.lo), exp));
    if (t <= 150)
      worst_exact_low = std::max(worst_exact_low, Relative(Quad(dd.hi) + Quad(dd.lo), exp));
    worst = std::max(worst, Relative(math::KlDivExpOfTarget64<O64>(t), exp));
    ++count;
  }
  std::cout << "e^t: worst 2^" << std::log2(worst) << " (bound 2^"
            << std::log2(math::kKlDivExpError64) << ", " << count << " t), double-double 2^"
            << std::log2(worst_exact) << " (t <= 150: 2^" << std::log2(worst_exact_low) << ")\n";
  EXPECT_LT(worst, math::kKlDivExpError64);
  EXPECT_LT(worst_exact, math::kKlDivExpDoubleDoubleError);
  EXPECT_EQ(math::KlDivExpOfTarget64<O64>(0.0), 1.0);
  EXPECT_EQ(math::KlDivExpOfTarget64<O64>(1e30), math::KlDivExpOfTarget64<O64>(700.0));
  EXPECT_EQ(math::KlDivExpOfTarget64<O64>(-1e30), math::KlDivExpOfTarget64<O64>(-500.0));
  EXPECT_GT(math::KlDivExpOfTarget64<O64>(700.0), 0x1p1009);
  const math::exact::DD one = math::exact::ExpNeg(-0.0);
  EXPECT_EQ(one.hi, 1.0);
  EXPECT_EQ(one.lo, 0.0);
}

struct Worst {
  double error = 0;  // |estimate - exact| / bound, at most 1
  int64_t count = 0;
};

// |estimate - exact| <= bound for every kind of one variant on `samples` inputs (every
// distribution, a divisor of the list each), one binary128 ln t or e^t per input; and each term
// (scale 1) within its bound, which is at least kKlDivTermError of it. Log targets below
// kKlDivExpTargetMin, whose estimate takes e^-500, instead give a value and an exact result of one
// sign, both below 2^-400 (so every rounding of either is the same zero).
void CheckBounds(int variant, int samples, Worst (&worst)[3]) {
  Sampler sampler(200 + variant);
  for (int i = 0; i < samples; ++i) {
    const ElementInputs in = sampler.Draw(variant, kDistributions[i % 5]);
    const int64_t divisor = kDivisors[i % 8];
    const ElementParameters p = DividedBy(divisor, 0.0, variant);
    Transcendentals pieces(in.t);
    for (int k = 0; k < 3; ++k) {
      const LossKind kind = kKinds[k];
      if (!KlDivInDomain(kind, variant, in)) continue;
      const Numerator n = ExactNumerator(kind, variant, in, false, &pieces);
      const Quad exact = Quad(n.pair.hi) + Quad(n.pair.lo);
      const bool exact_scale = (divisor & (divisor - 1)) == 0;
      const ElementEstimate estimate = KlDivEstimate(kind, variant, in, p.scale, exact_scale);
      const Quad quotient = exact / static_cast<Quad>(divisor);
      if (variant == kKlDivLogTarget && in.t < math::kKlDivExpTargetMin) {
        ASSERT_LT(std::fabs(estimate.value), 0x1p-400);
        ASSERT_LT(Abs(quotient), Quad(0x1p-400));
        ASSERT_TRUE(estimate.value == 0 || quotient == 0 || (estimate.value < 0) == (quotient < 0));
        continue;
      }
      if (std::fabs(estimate.value) > math::kKlDivBeyondRange) {  // beyond every type's range
        ASSERT_GT(static_cast<double>(quotient) * (estimate.value > 0 ? 1 : -1), 0x1p198);
        continue;
      }
      if (std::isnan(estimate.value)) {  // g e^t overflowed beside an exact zero
        ASSERT_EQ(quotient, 0);
        continue;
      }
      const double error = static_cast<double>(Abs(Quad(estimate.value) - quotient));
      ASSERT_LE(error, estimate.bound)
          << KindName(kind) << " variant " << variant << std::hexfloat << " x=" << in.x
          << " t=" << in.t << " g=" << in.g << " D=" << divisor;
      if (estimate.bound > 0) worst[k].error = std::max(worst[k].error, error / estimate.bound);
      ++worst[k].count;
      const ElementEstimate term = KlDivTerm(kind, variant, in);
      const double term_error = static_cast<double>(Abs(Quad(term.value) - exact));
      ASSERT_LE(term_error, term.bound)
          << KindName(kind) << " term, variant " << variant << std::hexfloat << " x=" << in.x
          << " t=" << in.t << " g=" << in.g;
      ASSERT_GE(term.bound, math::kKlDivTermError * std::fabs(term.value));
    }
  }
}

TEST(KlDivBounds, EveryEstimateIsWithinItsBound) {
  for (int variant = 0; variant < 2; ++variant) {
    Worst worst[3];
    CheckBounds(variant, 500000, worst);
    for (int k = 0; k < 3; ++k) {
      std::cout << (variant ? "log targets, " : "probabilities, ") << KindName(kKinds[k]) << ": "
                << worst[k].count << " estimates, worst error " << worst[k].error
                << " of the bound\n";
      EXPECT_GE(worst[k].count, 400000);
    }
  }
}

// The rounding test at its edge: an interval short of a midpoint of the output type by 2^-10 of
// the distance settles, with the value's own rounding; one past it by as much does not; for values
// 2^-3 and 2^-12 of the grid's spacing away on either side, of either sign, at midpoints in the
// normal and subnormal ranges of each type and at the overflow threshold. The estimates settle
// nothing their bound leaves open.
TEST(KlDivBounds, TheRoundingTestSettlesOnlyWhatTheBoundDecides) {
  const std::pair<FloatType, uint32_t> lows[] = {
      {FloatType::kFloat32, 0x3f800000u}, {FloatType::kFloat32, 0x00012345u},
      {FloatType::kFloat32, 0x7f7fffffu}, {FloatType::kFloat16, 0x3c00u},
      {FloatType::kFloat16, 0x0123u},     {FloatType::kFloat16, 0x7bffu},
      {FloatType::kBFloat16, 0x3f80u},    {FloatType::kBFloat16, 0x0012u}};
  int checked = 0;
  for (const auto& [type, bits] : lows) {
    const double low = MagnitudeValue(bits, type), high = MagnitudeValue(bits + 1, type);
    const double midpoint = (low + high) / 2;
    for (const double sign : {1.0, -1.0}) {
      const double m = sign * midpoint;
      for (const double step : {0x1p-3, 0x1p-12}) {
        for (const double side : {-1.0, 1.0}) {
          const double value = m + side * (high - low) * step;
          const double reach = std::fabs(m - value);
          double settled;
          EXPECT_TRUE(SettledIn({value, reach * (1 - 0x1p-10)}, type, &settled)) << m;
          EXPECT_EQ(RoundOnce(settled, type), RoundOnce(value, type));
          EXPECT_FALSE(SettledIn({value, reach * (1 + 0x1p-10)}, type, &settled)) << m;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 64);
}

}  // namespace
}  // namespace openaclnn
