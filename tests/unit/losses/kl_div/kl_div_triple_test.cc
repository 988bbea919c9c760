// The KL divergence's exact path at its deepest cancellations, against MPFR at 400 bits (an oracle
// far beyond the binary128 of kl_div_oracle.h, whose ln t is only 2^-56 of a value that cancels
// to 2^-57 of ln t): the element (KlDivElement) and the triple-double path alone
// (KlDivTripleExact) give the exact value rounded once, for the search's hardest t and x around
// ln t and ln t + 1; and the interval test that chooses between the double-double and the
// triple-double ln t (KlDivRoundedWithin) leaves open exactly the intervals across a midpoint.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "losses/kl_div/kl_div_family.h"

namespace openaclnn {
namespace {

// An MPFR number of 400 bits, freed with its owner.
class Mpfr {
 public:
  Mpfr() { mpfr_init2(value_, 400); }
  ~Mpfr() { mpfr_clear(value_); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
  mpfr_ptr get() { return value_; }

 private:
  mpfr_t value_;
};

// f (ln t - x) (+ g for the target gradient) / D, as a double rounded to odd (53 bits, the last
// one set where the value has more), whose one rounding to any narrower type is the value's.
double OracleRoundedToOdd(LossKind kind, const ElementInputs& in, int64_t divisor) {
  Mpfr value, term;
  mpfr_set_flt(value.get(), in.t, MPFR_RNDN);
  mpfr_log(value.get(), value.get(), MPFR_RNDN);
  mpfr_set_flt(term.get(), in.x, MPFR_RNDN);
  mpfr_sub(value.get(), value.get(), term.get(), MPFR_RNDN);
  mpfr_set_flt(term.get(), kind == LossKind::kLoss ? in.t : in.g, MPFR_RNDN);
  mpfr_mul(value.get(), value.get(), term.get(), MPFR_RNDN);
  if (kind == LossKind::kGradTarget) {
    mpfr_set_flt(term.get(), in.g, MPFR_RNDN);
    mpfr_add(value.get(), value.get(), term.get(), MPFR_RNDN);
  }
  mpfr_div_si(value.get(), value.get(), static_cast<long>(divisor), MPFR_RNDN);
  double truncated = mpfr_get_d(value.get(), MPFR_RNDZ);
  if (mpfr_cmp_d(value.get(), truncated) != 0) {
    truncated = BitCast<double>(BitCast<uint64_t>(truncated) | 1);
  }
  return truncated;
}

std::string Describe(LossKind kind, const ElementInputs& in, int64_t divisor, FloatType type) {
  std::ostringstream text;
  text << std::hexfloat << "kind " << static_cast<int>(kind) << " x " << in.x << " t " << in.t
       << " g " << in.g << std::defaultfloat << " D " << divisor << " type "
       << static_cast<int>(type);
  return text.str();
}

TEST(KlDivTriple, TheDeepestCancellationsMatchMpfr) {
  const float hardest[] = {0x1.108a5ap-66f, 0x1.2fe614p+117f, 0x1.1ff606p+33f, 0x1.ecf3fep-73f,
                           0x1.78bc74p-2f,  0x1.788bdp-2f,    0x1.656c3p-2f,   0x1.78b55ep-2f,
                           0x1.827a74p-7f,  0x1.007e58p+27f};
  const int64_t divisors[] = {1, 3, 7, 1000003};
  const FloatType types[] = {FloatType::kFloat32, FloatType::kFloat16, FloatType::kBFloat16};
  std::mt19937 rng(57);
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  int64_t count = 0, wrong = 0;
  for (const float t : hardest) {
    for (const LossKind kind : {LossKind::kLoss, LossKind::kGradTarget}) {
      // The fp32 nearest ln t (the loss) or ln t + 1 (the target gradient), and its neighbours.
      const double log = std::log(static_cast<double>(t));
      float x = static_cast<float>(kind == LossKind::kLoss ? log : log + 1.0);
      for (int step = 0; step < 3; ++step) x = std::nextafter(x, -INFINITY);
      for (int step = -3; step <= 3; ++step, x = std::nextafter(x, INFINITY)) {
        for (int i = 0; i < 4; ++i) {
          const ElementInputs in{x, t, 1.0f, 1.0f, uniform(rng)};
          for (const int64_t divisor : divisors) {
            const ElementParameters p = DividedBy(divisor);
            const math::exact::ExactDivisor exact_divisor = math::exact::DivisorOf(1.0, divisor);
            const double want = OracleRoundedToOdd(kind, in, divisor);
            for (const FloatType type : types) {
              ++count;
              const uint32_t expected = RoundOnce(want, type);
              const uint32_t element = RoundOnce(KlDivElement(kind, p, in, type), type);
              const uint32_t triple =
                  RoundOnce(KlDivTripleExact(kind, in, exact_divisor, type), type);
              if (element != expected || triple != expected) {
                if (wrong++ == 0) ADD_FAILURE() << Describe(kind, in, divisor, type);
              }
            }
          }
        }
      }
    }
  }
  std::cout << count << " results at the deepest cancellations, wrong " << wrong << "\n";
  EXPECT_EQ(wrong, 0);
}

// A numerator on an fp32 midpoint (1 + 2^-24, between 1 and its successor), or just beside it:
// an error interval across the midpoint leaves the rounding open, one on either side decides it,
// and an exact numerator (error 0) rounds its tie to even.
TEST(KlDivTriple, AnIntervalAcrossAMidpointIsLeftOpen) {
  const math::exact::ExactDivisor one = math::exact::DivisorOf(1.0, 1);
  const FloatType fp32 = FloatType::kFloat32;
  math::exact::ExactSum midpoint;
  midpoint.Add(1.0);
  midpoint.Add(0x1p-24);
  double rounded = 0.0;
  EXPECT_FALSE(KlDivRoundedWithin(midpoint, 0x1p-80, one, fp32, &rounded));
  ASSERT_TRUE(KlDivRoundedWithin(midpoint, 0.0, one, fp32, &rounded));
  EXPECT_EQ(RoundedTo(rounded, fp32), 1.0f);  // the tie, to even
  math::exact::ExactSum above = midpoint, below = midpoint;
  above.Add(0x1p-70);
  below.Add(-0x1p-70);
  ASSERT_TRUE(KlDivRoundedWithin(above, 0x1p-80, one, fp32, &rounded));
  EXPECT_EQ(RoundedTo(rounded, fp32), 1.0f + 0x1p-23f);
  ASSERT_TRUE(KlDivRoundedWithin(below, 0x1p-80, one, fp32, &rounded));
  EXPECT_EQ(RoundedTo(rounded, fp32), 1.0f);
  EXPECT_FALSE(KlDivRoundedWithin(above, 0x1p-60, one, fp32, &rounded));
  // Around zero the interval's two signs leave it open too.
  math::exact::ExactSum tiny;
  tiny.Add(0x1p-200);
  EXPECT_FALSE(KlDivRoundedWithin(tiny, 0x1p-190, one, fp32, &rounded));
  // A divisor of 3: 3 (1 + 2^-24) / 3 is the midpoint again.
  math::exact::ExactSum triple;
  triple.Add(3.0);
  triple.Add(3 * 0x1p-24);
  EXPECT_FALSE(KlDivRoundedWithin(triple, 0x1p-80, math::exact::DivisorOf(1.0, 3), fp32, &rounded));
}

}  // namespace
}  // namespace openaclnn
