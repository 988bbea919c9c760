// An exact oracle for rational results (GMP): a value held as an exact rational, rounded once to
// an output type by integer arithmetic (to nearest, ties to even, subnormals, overflow to inf),
// independently of the library's rounding code. A test that includes it links gmpxx and gmp.
#pragma once

#include <gmpxx.h>

#include <algorithm>
#include <cmath>

#include "base/dtype.h"

namespace openaclnn {

// A finite double's exact value.
inline mpq_class Rational(double v) { return mpq_class(v); }

struct Format {
  int precision, min_exponent, max_exponent;
};
inline Format FormatOf(FloatType type) {
  switch (type) {
    case FloatType::kFloat32:
      return {24, -126, 127};
    case FloatType::kFloat16:
      return {11, -14, 15};
    default:
      return {8, -126, 127};
  }
}

// a * 2^k, exactly.
inline mpq_class TimesPow2(const mpq_class& a, long k) {
  mpq_class result;
  if (k >= 0) {
    mpq_mul_2exp(result.get_mpq_t(), a.get_mpq_t(), static_cast<mp_bitcnt_t>(k));
  } else {
    mpq_div_2exp(result.get_mpq_t(), a.get_mpq_t(), static_cast<mp_bitcnt_t>(-k));
  }
  return result;
}

// floor(log2 a) for a > 0.
inline long FloorLog2(const mpq_class& a) {
  long e = static_cast<long>(mpz_sizeinbase(a.get_num_mpz_t(), 2)) -
           static_cast<long>(mpz_sizeinbase(a.get_den_mpz_t(), 2));
  while (a >= TimesPow2(mpq_class(1), e + 1)) ++e;
  while (a < TimesPow2(mpq_class(1), e)) --e;
  return e;
}

// `value` rounded once to `type`, as a double; a zero `value` gives -0 where `negative_zero`.
inline double RoundRational(const mpq_class& value, FloatType type, bool negative_zero = false) {
  if (value == 0) return negative_zero ? -0.0 : 0.0;
  const Format format = FormatOf(type);
  const mpq_class magnitude = abs(value);
  const long quantum =
      std::max<long>(FloorLog2(magnitude), format.min_exponent) - (format.precision - 1);
  const mpq_class scaled = TimesPow2(magnitude, -quantum);
  mpz_class units = scaled.get_num() / scaled.get_den();  // floor: both positive
  const mpq_class rest = scaled - mpq_class(units);
  if (rest > mpq_class(1, 2) || (rest == mpq_class(1, 2) && mpz_odd_p(units.get_mpz_t()))) ++units;
  double rounded = std::ldexp(units.get_d(), static_cast<int>(quantum));  // at most 2^precision
  if (rounded >= std::ldexp(1.0, format.max_exponent + 1)) rounded = HUGE_VAL;
  return value < 0 ? -rounded : rounded;
}

}  // namespace openaclnn
