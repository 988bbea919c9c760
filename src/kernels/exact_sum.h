// Exact sums of doubles, for the rare results an estimate leaves undecided: a fixed-point
// accumulator wide enough for every finite double (a "superaccumulator", as Kulisch's), so that a
// sum of any number of terms, each given as doubles whose sum is its exact value, is held with no
// rounding at all, in any order; and the one rounding of such a sum, or of its quotient by an
// exact divisor, to an output type. Host/device, for every backend's exact paths: a mean of
// rational terms that lies exactly on a rounding boundary (a tie) rounds to even here, where a
// double-double sum could round it either way.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/rounded_element.h"

namespace openaclnn::math::exact {

// sum = sum over k of digit[k] * 2^(kDigitBits * k + kLowestExponent). Each double adds into three
// digits at most, less than 2^33 in magnitude to each, so an int64 digit takes 2^29 additions
// before its carries must be pushed up (Normalize); normalized, every digit but the top one is in
// [0, 2^32) and the top one carries the sign.
class ExactSum {
 public:
  static constexpr int kDigitBits = 32;
  // 2^-1088 is below the smallest double (2^-1074); 70 digits reach 2^1152, above the largest
  // double (below 2^1024) times any element count (below 2^63), and a power of two more.
  static constexpr int kLowestExponent = -1088;
  static constexpr int kDigits = 70;

  // Adds a finite double exactly.
  OPENACLNN_HOST_DEVICE void Add(double value) {
    if (value == 0.0) return;
    const uint64_t bits = BitCast<uint64_t>(value);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    uint64_t significand = bits & ((uint64_t{1} << 52) - 1);
    if (biased != 0) significand |= uint64_t{1} << 52;
    // value = +-significand * 2^exponent; the lowest double's exponent is -1074.
    const int exponent = (biased == 0 ? 1 : biased) - 1075;
    const int position = exponent - kLowestExponent;
    const int digit = position / kDigitBits, shift = position % kDigitBits;
    // The significand's low 32 bits and high 21, each shifted into a 64-bit window of two digits.
    const uint64_t low = (significand & 0xffffffffu) << shift;
    const uint64_t high = (significand >> 32) << shift;
    const auto part = [](uint64_t v, int half) {
      return static_cast<int64_t>(half == 0 ? v & 0xffffffffu : v >> 32);
    };
    const int64_t sign = value < 0.0 ? -1 : 1;
    digits_[digit] += sign * part(low, 0);
    digits_[digit + 1] += sign * (part(low, 1) + part(high, 0));
    digits_[digit + 2] += sign * part(high, 1);
    if (++pending_ == kAdditionsBeforeCarry) Normalize();
  }
  OPENACLNN_HOST_DEVICE void Add(DD value) {
    Add(value.hi);
    Add(value.lo);
  }
  // a * b exactly: TwoProd's domain (no overflow; the product of a's and b's lowest set bits at
  // least 2^-1074).
  OPENACLNN_HOST_DEVICE void AddProduct(double a, double b) { Add(TwoProd(a, b)); }
  OPENACLNN_HOST_DEVICE void Add(const ExactSum& other) {
    ExactSum addend = other;
    addend.Normalize();
    Normalize();
    for (int k = 0; k < kDigits; ++k) digits_[k] += addend.digits_[k];
    pending_ = 1;  // each digit grew by less than 2^32: one addition's worth
  }
  // other * factor exactly: each of other's digits times factor is exact (TwoProd), which holds
  // where other's lowest nonzero digit times factor's lowest set bit is at least 2^-1074 and the
  // products stay finite (a sum of fp32, fp16 or bf16 values times a midpoint of one of those
  // types does).
  OPENACLNN_HOST_DEVICE void AddMultiple(const ExactSum& other, double factor) {
    ExactSum normalized = other;
    normalized.Normalize();
    for (int k = 0; k < kDigits; ++k) {
      if (normalized.digits_[k] == 0) continue;
      const double digit =
          std::ldexp(static_cast<double>(normalized.digits_[k]), kDigitBits * k + kLowestExponent);
      AddProduct(digit, factor);
    }
  }
  OPENACLNN_HOST_DEVICE void Negate() {
    for (int k = 0; k < kDigits; ++k) digits_[k] = -digits_[k];
  }
#if defined(__CUDACC__)
  // Adds this sum into `target`, which many GPU threads share, one atomic addition per digit:
  // exact, and the same in any order. Each adds less than 2^32 to a digit of `target`, which
  // takes 2^31 of them before a carry could be lost (sums of fewer than 2^43 elements in
  // blocks of 4096).
  __device__ void AtomicAddTo(ExactSum* target) const {
    ExactSum normalized = *this;
    normalized.Normalize();
    for (int k = 0; k < kDigits; ++k) {
      atomicAdd(reinterpret_cast<unsigned long long*>(&target->digits_[k]),
                static_cast<unsigned long long>(normalized.digits_[k]));
    }
  }
#endif

  // -1, 0 or 1.
  OPENACLNN_HOST_DEVICE int Sign() {
    Normalize();
    if (digits_[kDigits - 1] != 0) return digits_[kDigits - 1] < 0 ? -1 : 1;
    for (int k = kDigits - 2; k >= 0; --k) {
      if (digits_[k] != 0) return 1;
    }
    return 0;
  }

  // The sum as a double rounded to odd (its 53 leading bits, the last one set where any bit below
  // them is), so that its one rounding to fp32, fp16 or bf16 (RoundOnce) is the correct rounding
  // of the sum; +0 for a zero sum. A sum beyond fp64's range is +-inf.
  OPENACLNN_HOST_DEVICE double RoundedToOdd() const {
    ExactSum magnitude = *this;
    const int sign = magnitude.Sign();
    if (sign == 0) return 0.0;
    if (sign < 0) {
      magnitude.Negate();
      magnitude.Normalize();
    }
    return sign * magnitude.MagnitudeRoundedToOdd();
  }

 private:
  static constexpr int64_t kAdditionsBeforeCarry = int64_t{1} << 29;

  // Every digit but the top one into [0, 2^32), the carries pushed up (floor division by 2^32).
  OPENACLNN_HOST_DEVICE void Normalize() {
    for (int k = 0; k < kDigits - 1; ++k) {
      const int64_t carry = digits_[k] >> kDigitBits;  // arithmetic shift: floor
      digits_[k] -= carry * (int64_t{1} << kDigitBits);
      digits_[k + 1] += carry;
    }
    pending_ = 0;
  }

  // A normalized positive sum rounded to odd at 53 bits.
  OPENACLNN_HOST_DEVICE double MagnitudeRoundedToOdd() const {
    int top = kDigits - 1;
    while (digits_[top] == 0) --top;
    // The top digit's 32 bits and the next two give a 96-bit window; its leading 64 bits, with
    // every bit below them folded into the last one (sticky), keep the rounding's information.
    const uint64_t d2 = static_cast<uint64_t>(digits_[top]);
    const uint64_t d1 = top >= 1 ? static_cast<uint64_t>(digits_[top - 1]) : 0;
    const uint64_t d0 = top >= 2 ? static_cast<uint64_t>(digits_[top - 2]) : 0;
    bool sticky = false;
    for (int k = top - 3; k >= 0 && !sticky; --k) sticky = digits_[k] != 0;
    int lead = 31;  // the top digit's leading bit
    while (((d2 >> lead) & 1u) == 0) --lead;
    const int shift = 31 - lead;  // moves that bit to bit 63 of `window`
    const uint64_t upper = (d2 << 32) | d1;
    uint64_t window = shift == 0 ? upper : (upper << shift) | (d0 >> (32 - shift));
    sticky = sticky || (d0 & ((uint64_t{1} << (32 - shift)) - 1)) != 0;
    // 53 leading bits of the window, the last one odd where anything below them is nonzero.
    uint64_t leading = window >> 11;
    if ((window & 0x7ffu) != 0 || sticky) leading |= 1u;
    // window's bit 63 is the top digit's bit `lead`, of weight 2^(32 top + lead + kLowestExponent);
    // leading's bit 52 is that bit.
    const int exponent = kDigitBits * top + lead + kLowestExponent - 52;
    return std::ldexp(static_cast<double>(leading), exponent);
  }

  int64_t digits_[kDigits] = {};
  int64_t pending_ = 0;
};

// A positive exact divisor as an expansion of at most four doubles: the product of a double
// `denominator` (a family's common denominator: 1, or smooth L1's beta) and an element count.
struct ExactDivisor {
  double parts[4] = {};
  int count = 0;
};
OPENACLNN_HOST_DEVICE inline ExactDivisor DivisorOf(double denominator, int64_t count) {
  // count = high + low exactly: its high and low 32 bits (count >= 1).
  const double high = static_cast<double>(count >> 32) * 0x1p32;
  const double low = static_cast<double>(count & 0xffffffff);
  const DD a = TwoProd(denominator, high), b = TwoProd(denominator, low);
  return {{a.hi, a.lo, b.hi, b.lo}, 4};
}

// sum / divisor correctly rounded once to `type`, as a double whose RoundOnce to `type` is the
// result (+0 for a zero sum): the value's neighbours in `type` are told apart by the exact sign of
// sum - m * divisor at each midpoint m (RoundedByComparisons). Every m * part must lie in
// TwoProd's domain, which holds for the parts DivisorOf makes of a denominator in [2^-500, 2^800]
// and any count (every midpoint of fp32, fp16 and bf16 lies in [2^-150, 2^128], its lowest bit at
// least 2^-174: the products stay below 2^992 and their lowest bits above 2^-730).
OPENACLNN_HOST_DEVICE inline double RoundedQuotient(const ExactSum& sum,
                                                    const ExactDivisor& divisor, FloatType type) {
  ExactSum magnitude = sum;
  const int sign = magnitude.Sign();
  if (sign == 0) return 0.0;
  if (sign < 0) magnitude.Negate();
  double approximate_divisor = 0.0;
  for (int i = 0; i < divisor.count; ++i) approximate_divisor += divisor.parts[i];
  const double start = magnitude.RoundedToOdd() / approximate_divisor;
  return RoundedByComparisons(start, sign < 0, type, [&](double midpoint) {
    ExactSum difference = magnitude;
    for (int i = 0; i < divisor.count; ++i) difference.AddProduct(-midpoint, divisor.parts[i]);
    return difference.Sign();
  });
}

// numerator / denominator correctly rounded once to `type`, both exact sums (AddMultiple's
// domain), as a double whose RoundOnce to `type` is the result; a zero denominator gives IEEE's
// quotient (NaN for 0/0, else an infinity of the numerator's sign); +0 for a zero numerator.
OPENACLNN_HOST_DEVICE inline double RoundedQuotient(const ExactSum& numerator,
                                                    const ExactSum& denominator, FloatType type) {
  ExactSum top = numerator, bottom = denominator;
  const int top_sign = top.Sign(), bottom_sign = bottom.Sign();
  if (bottom_sign == 0) {
    const double zero = bottom_sign;  // a variable: nvcc refuses a literal division by zero
    return top.RoundedToOdd() / zero;
  }
  if (top_sign == 0) return 0.0;
  if (top_sign < 0) top.Negate();
  if (bottom_sign < 0) bottom.Negate();
  const double start = top.RoundedToOdd() / bottom.RoundedToOdd();
  return RoundedByComparisons(start, top_sign != bottom_sign, type, [&](double midpoint) {
    ExactSum difference = top;
    difference.AddMultiple(bottom, -midpoint);
    return difference.Sign();
  });
}

// A value known as a double-double (exactly, where it is rational) divided by `divisor`,
// correctly rounded once to `type`: a double whose RoundOnce to `type` is the result.
OPENACLNN_HOST_DEVICE inline double RoundedQuotient(DD numerator, int64_t divisor, FloatType type) {
  if (divisor == 1) return RoundToOdd(numerator);
  ExactSum sum;
  sum.Add(numerator);
  return RoundedQuotient(sum, DivisorOf(1.0, divisor), type);
}

}  // namespace openaclnn::math::exact
