#!/usr/bin/env python3
"""Tables and polynomials of the fp64 element math (src/kernels/math.h), fitted in mpmath.

Prints the C++ constants and, for each approximation, its worst relative error with the
coefficients as rounded to fp64 (in exact arithmetic: the evaluation's own roundings are
bounded in math.h's comments and measured by tests/unit/kernels/rounding_test.cc).

  exp(s) = 1 + s + s^2 * P(s),      |s| <= ln2/32   (after exp(-a) = 2^(m/16) * exp(s))
  log1p(y) = y + y^2 * Q(y),        y in the range the 16-entry reciprocal table leaves

Run: /usr/bin/python3 scripts/fit_element_math.py
"""
import mpmath
from mpmath import mp, mpf

mp.prec = 200
EXP_DEGREE = 3   # P's degree: exp of degree 5
LOG_DEGREE = 6   # Q's degree: log1p of degree 8
TABLE = 16       # entries of every table: two AVX-512 registers of fp64


def to_double(v):
    return float(v)


def hexd(v):
    return float(v).hex()


def fit(f, lo, hi, degree):
    """Chebyshev fit (near minimax) of f on [lo, hi], coefficients of x^degree first."""
    coeffs, _ = mpmath.chebyfit(f, [lo, hi], degree + 1, error=True)
    return [to_double(c) for c in coeffs]


def horner(coeffs, x):
    acc = mpf(0)
    for c in coeffs:
        acc = acc * x + mpf(c)
    return acc


def worst(err, lo, hi, points=20001):
    return max(abs(err(lo + (hi - lo) * mpf(i) / (points - 1))) for i in range(points))


def log2_of(v):
    return float(mpmath.log(v, 2)) if v > 0 else float("-inf")


def main():
    ln2 = mpmath.log(2)
    # exp: 2^(j/16), and P on |s| <= ln2/32.
    exp_table = [to_double(mpmath.power(2, mpf(j) / TABLE)) for j in range(TABLE)]
    s_max = ln2 / (2 * TABLE)

    def p_exact(s):
        return (mpmath.exp(s) - 1 - s) / (s * s) if s != 0 else mpf(1) / 2

    p = fit(p_exact, -s_max, s_max, EXP_DEGREE)
    exp_err = worst(lambda s: (1 + s + s * s * horner(p, s)) / mpmath.exp(s) - 1, -s_max, s_max)
    table_err = max(abs(mpf(v) / mpmath.power(2, mpf(j) / TABLE) - 1)
                    for j, v in enumerate(exp_table))

    # log1p: 1 + e (e in [0, 1]) is split at the nearest c_j = 1 + j/15 by y = (1+e)*r_j - 1,
    # r_j = fp64(1/c_j); -log(r_j) to fp64.
    steps = TABLE - 1
    reciprocal = [to_double(1 / (1 + mpf(j) / steps)) for j in range(TABLE)]
    log_center = [to_double(-mpmath.log(mpf(r))) for r in reciprocal]
    y_lo = min((1 + mpf(j) / steps - mpf(1) / (2 * steps)) * mpf(r) - 1
               for j, r in enumerate(reciprocal) if j > 0)
    y_hi = max((1 + min(mpf(j) / steps + mpf(1) / (2 * steps), 1)) * mpf(r) - 1
               for j, r in enumerate(reciprocal))

    def q_exact(y):
        return (mpmath.log1p(y) - y) / (y * y) if y != 0 else mpf(-1) / 2

    q = fit(q_exact, y_lo, y_hi, LOG_DEGREE)

    def log_rel(y):
        return (y + y * y * horner(q, y)) / mpmath.log1p(y) - 1 if y != 0 else mpf(0)

    log_err = worst(log_rel, y_lo, y_hi)
    center_err = max(abs(mpf(c) + mpmath.log(mpf(r))) for r, c in zip(reciprocal, log_center))

    def arr(name, values):
        body = ", ".join(hexd(v) for v in values)
        return f"OPENACLNN_TABLE double {name}[] = {{{body}}};"

    print(arr("kExp2Sixteenths64", exp_table))
    print(arr("kExpPoly64", p))
    print(arr("kLogReciprocal64", reciprocal))
    print(arr("kLogCenter64", log_center))
    print(arr("kLog1pPoly64", q))
    print(f"// y range [{float(y_lo):.6f}, {float(y_hi):.6f}]")
    print(f"// exp fit: 2^{log2_of(exp_err):.1f} relative; table: 2^{log2_of(table_err):.1f}")
    print(f"// log1p fit: 2^{log2_of(log_err):.1f} relative; centers: 2^{log2_of(center_err):.1f}"
          " absolute")


if __name__ == "__main__":
    main()
