#!/usr/bin/env python3
"""Tables and polynomials of the element math (src/kernels/math_tables.h), fitted in mpmath:
the fp64 formulas, and the fp32 transcendentals of 16-bit results (ExpNeg32, Log1pSplit32).

Prints the C++ constants and, for each approximation, its worst relative error with the
coefficients as rounded to fp64 (in exact arithmetic: the evaluation's own roundings are
bounded in src/losses/binary_cross_entropy_with_logits/bce_with_logits_error_budget.h and
src/kernels/transcendentals_error_budget.h, and measured by the rounding tests of
tests/unit/losses/binary_cross_entropy_with_logits/).

  exp(s) = 1 + s + s^2 * P(s),      |s| <= ln2/32   (after exp(-a) = 2^(m/16) * exp(s))
  log1p(y) = y + y^2 * Q(y),        y in the range the 16-entry reciprocal table leaves

fp32 (for 16-bit logits, |x| <= 80): exp(s) = 1 + s + s^2 * P32(s), log1p(y) = y + y^2 * Q32(y),
the same reductions with fp32 tables; ln 2 / 16 in two parts, the first of 9 significant bits
(exact times any m of exp's reduction).

Run: /usr/bin/python3 scripts/fit-element-math.py
"""
import mpmath
import numpy
from mpmath import mp, mpf

mp.prec = 200
EXP_DEGREE = 3   # P's degree: exp of degree 5
LOG_DEGREE = 6   # Q's degree: log1p of degree 8
EXP_DEGREE_32 = 1   # P32's degree: exp of degree 3
LOG_DEGREE_32 = 3   # Q32's degree: log1p of degree 5
TABLE = 16       # entries of every table: two AVX-512 registers of fp64


def to_double(v):
    return float(v)


def hexd(v):
    return float(v).hex()


def to_float(v):
    return float(numpy.float32(float(v)))


def hexf(v):
    """An fp32 value as a C++ float literal: its hex digits without trailing zeros."""
    mantissa, exponent = float(v).hex().split("p")
    return mantissa.rstrip("0").rstrip(".") + "p" + exponent + "f"


def fit(f, lo, hi, degree, rounding=to_double):
    """Chebyshev fit (near minimax) of f on [lo, hi], coefficients of x^degree first."""
    coeffs, _ = mpmath.chebyfit(f, [lo, hi], degree + 1, error=True)
    return [rounding(c) for c in coeffs]


def horner(coeffs, x):
    acc = mpf(0)
    for c in coeffs:
        acc = acc * x + mpf(c)
    return acc


def worst(err, lo, hi, points=20001):
    return max(abs(err(lo + (hi - lo) * mpf(i) / (points - 1))) for i in range(points))


def split_range(reciprocal, steps):
    """The range of y = (1 + e) * r_j - 1 over e in [0, 1] split at the nearest 1 + j/steps."""
    y_lo = min((1 + mpf(j) / steps - mpf(1) / (2 * steps)) * mpf(r) - 1
               for j, r in enumerate(reciprocal) if j > 0)
    y_hi = max((1 + min(mpf(j) / steps + mpf(1) / (2 * steps), 1)) * mpf(r) - 1
               for j, r in enumerate(reciprocal))
    return y_lo, y_hi


def log1p_error(q, y_lo, y_hi):
    """Worst relative error of y + y^2 * Q(y) against log1p(y) on [y_lo, y_hi]."""
    def relative(y):
        return (y + y * y * horner(q, y)) / mpmath.log1p(y) - 1 if y != 0 else mpf(0)
    return worst(relative, y_lo, y_hi)


def log2_of(v):
    return float(mpmath.log(v, 2)) if v > 0 else float("-inf")


def main():
    ln2 = mpmath.log(2)
    # exp: 2^((-r mod 16)/16) by r = n mod 16 (n the integer nearest 16a/ln2), and P on
    # |s| <= ln2/32.
    exp_table = [to_double(mpmath.power(2, mpf((-r) % TABLE) / TABLE)) for r in range(TABLE)]
    s_max = ln2 / (2 * TABLE)

    def p_exact(s):
        return (mpmath.exp(s) - 1 - s) / (s * s) if s != 0 else mpf(1) / 2

    p = fit(p_exact, -s_max, s_max, EXP_DEGREE)
    exp_err = worst(lambda s: (1 + s + s * s * horner(p, s)) / mpmath.exp(s) - 1, -s_max, s_max)
    table_err = max(abs(mpf(v) / mpmath.power(2, mpf((-r) % TABLE) / TABLE) - 1)
                    for r, v in enumerate(exp_table))

    # log1p: 1 + e (e in [0, 1]) is split at the nearest c_j = 1 + j/15 by y = (1+e)*r_j - 1,
    # r_j = fp64(1/c_j); -log(r_j) to fp64.
    steps = TABLE - 1
    reciprocal = [to_double(1 / (1 + mpf(j) / steps)) for j in range(TABLE)]
    log_center = [to_double(-mpmath.log(mpf(r))) for r in reciprocal]
    y_lo, y_hi = split_range(reciprocal, steps)

    def q_exact(y):
        return (mpmath.log1p(y) - y) / (y * y) if y != 0 else mpf(-1) / 2

    q = fit(q_exact, y_lo, y_hi, LOG_DEGREE)
    log_err = log1p_error(q, y_lo, y_hi)
    center_err = max(abs(mpf(c) + mpmath.log(mpf(r))) for r, c in zip(reciprocal, log_center))

    def arr(name, values):
        body = ", ".join(hexd(v) for v in values)
        return f"OPENACLNN_TABLE double {name}[] = {{{body}}};"

    print(arr("kExp2NegSixteenths64", exp_table))
    print(arr("kExpPoly64", p))
    print(arr("kLogReciprocal64", reciprocal))
    print(arr("kLogCenter64", log_center))
    print(arr("kLog1pPoly64", q))
    print(f"// y range [{float(y_lo):.6f}, {float(y_hi):.6f}]")
    print(f"// exp fit: 2^{log2_of(exp_err):.1f} relative; table: 2^{log2_of(table_err):.1f}")
    print(f"// log1p fit: 2^{log2_of(log_err):.1f} relative; centers: 2^{log2_of(center_err):.1f}"
          " absolute")

    # fp32: the same reductions, tables rounded to fp32.
    exp_table32 = [to_float(mpmath.power(2, mpf((-r) % TABLE) / TABLE)) for r in range(TABLE)]
    p32 = fit(p_exact, -s_max, s_max, EXP_DEGREE_32, to_float)
    exp_err32 = worst(lambda s: (1 + s + s * s * horner(p32, s)) / mpmath.exp(s) - 1, -s_max,
                      s_max)
    ln2_hi32 = float(mpmath.nint(ln2 * 2**11) / 2**11)  # 2^-11 steps: 9 significant bits
    ln2_lo32 = to_float(ln2 - ln2_hi32)
    reciprocal32 = [to_float(1 / (1 + mpf(j) / steps)) for j in range(TABLE)]
    log_center32 = [to_float(-mpmath.log(mpf(r))) for r in reciprocal32]
    y_lo32, y_hi32 = split_range(reciprocal32, steps)
    q32 = fit(q_exact, y_lo32, y_hi32, LOG_DEGREE_32, to_float)
    log_err32 = log1p_error(q32, y_lo32, y_hi32)

    def arr32(name, values):
        body = ", ".join(hexf(v) for v in values)
        return f"OPENACLNN_TABLE float {name}[] = {{{body}}};"

    print(arr32("kExp2NegSixteenths32", exp_table32))
    print(arr32("kExpPoly32", p32))
    print(f"inline constexpr float kLn2Hi32 = {hexf(ln2_hi32)}, kLn2Lo32 = {hexf(ln2_lo32)};")
    print(arr32("kLogReciprocal32", reciprocal32))
    print(arr32("kLogCenter32", log_center32))
    print(arr32("kLog1pPoly32", q32))
    print(f"// fp32 y range [{float(y_lo32):.6f}, {float(y_hi32):.6f}]")
    print(f"// fp32 exp fit: 2^{log2_of(exp_err32):.1f} relative; "
          f"log1p fit: 2^{log2_of(log_err32):.1f} relative")


if __name__ == "__main__":
    main()
