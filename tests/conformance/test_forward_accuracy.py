"""Accuracy of aclnnBinaryCrossEntropyWithLogits over the whole fp32 range of x, against an
accurate float64 reference (itself validated against mpmath), plus the special-value, rounding
and reduction rules of docs/contract/numerics.md."""
import itertools
import zlib

import numpy as np
import pytest

import aclnn as A
import cases as C
import reference as R

import mpmath

MAX_ULP = {}


X = C.x_sweep()


def t_values(rng, n):
    return {"0": np.zeros(n), "1": np.ones(n), "0.5": np.full(n, 0.5),
            "random": rng.uniform(0.0, 1.0, n)}


WEIGHTINGS = ["none", "w", "p", "w+p"]


def weights(rng, n, kind):
    def draw():
        v = rng.uniform(0.0, 3.0, n)
        v[rng.random(n) < 0.02] = 0.0
        v[rng.random(n) < 0.02] = 3.0
        return A.round_to(v, "fp32")
    w = draw() if "w" in kind else None
    p = draw() if "p" in kind else None
    return w, p


def fp32_check(got, exact, tol):
    """|got - exact| <= tol, except that an infinite result is accepted when rounding any value
    within tol of exact gives it (overflow)."""
    close = np.abs(got - exact) <= tol
    overflow = np.isinf(got) & A.within_rounded_interval(got, exact, tol, "fp32")
    return close | overflow


@pytest.mark.parametrize("out_dtype", A.DTYPES)
@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("tname", ["0", "1", "0.5", "random"])
def test_sweep_in_domain(tname, weighting, out_dtype):
    rng = np.random.default_rng(zlib.crc32(f"{tname}|{weighting}".encode()))
    n = X.size
    t = A.round_to(t_values(rng, n)[tname], out_dtype)
    w, p = weights(rng, n, weighting)
    res = A.forward((X, "fp32"), (t, out_dtype), None if w is None else (w, "fp32"),
                    None if p is None else (p, "fp32"), 0)
    assert res.status == 0, res.message
    got = res.values()
    exact = R.loss(X, t, w, p)
    tol = 4 * A.ulp(exact, "fp32")
    if out_dtype == "fp32":
        ok = fp32_check(got, exact, tol)
        fin = np.isfinite(got)
        MAX_ULP[("fp32", tname, weighting)] = float(np.max(A.ulp_error(got[fin], exact[fin])))
    else:
        ok = A.within_rounded_interval(got, exact, tol, out_dtype)
    bad = ~ok
    assert not bad.any(), (
        f"{int(bad.sum())} bad; e.g. x={X[bad][:4]} t={t[bad][:4]} got={got[bad][:4]} "
        f"exact={exact[bad][:4]} ulp={A.ulp_error(got[bad][:4], exact[bad][:4])}")


@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_sweep_out_of_domain(weighting):
    """Soft labels outside [0,1], negative weights: within 4 ulp of the largest term."""
    rng = np.random.default_rng(7)
    n = X.size
    t = A.round_to(rng.uniform(-2.0, 3.0, n), "fp32")
    w = A.round_to(rng.uniform(-3.0, 3.0, n), "fp32") if "w" in weighting else None
    p = A.round_to(rng.uniform(-3.0, 3.0, n), "fp32") if "p" in weighting else None
    res = A.forward((X, "fp32"), (t, "fp32"), None if w is None else (w, "fp32"),
                    None if p is None else (p, "fp32"), 0)
    assert res.status == 0
    got = res.values()
    exact = R.loss(X, t, w, p)
    term = np.fmax(R.loss_largest_term(X, t, w, p), np.abs(exact))
    tol = 4 * A.ulp(term, "fp32")
    ok = fp32_check(got, exact, tol)
    fin = np.isfinite(got) & np.isfinite(exact)
    MAX_ULP[("fp32-of-term", "out-of-domain", weighting)] = float(
        np.max(np.abs(got[fin] - exact[fin]) / A.ulp(term[fin], "fp32")))
    assert ok.all(), (X[~ok][:4], t[~ok][:4], got[~ok][:4], exact[~ok][:4])


def test_known_tail_values():
    """x = -15, t = 0: exact 3.0590227e-7 (CANN and PyTorch fp32 give ~0 or noise)."""
    x = np.array([-15.0, -30.0, -88.0, -103.0, -150.0, 15.0, 100.0])
    t = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0])
    res = A.forward((x, "fp32"), (t, "fp32"), None, None, 0)
    got = res.values()
    exact = np.array([3.0590227371372048e-07, 9.357622968840175e-14, 6.05460189540301e-39,
                      1.8189616842444243e-45, 0.0, 3.0590227371372048e-07,
                      3.720075976020836e-44])
    assert (A.ulp_error(got, exact) <= 4).all(), (got, exact)
    assert got[4] == 0.0


def test_weighted_tail_near_fp32_underflow():
    """x ~ 88-104 with t = 1: the loss w*p*exp(-x) is near or below the smallest normal fp32;
    an intermediate exp(-x) that went subnormal before the weights scale it back up loses
    digits. Must still be within 4 ulp."""
    x = np.array([88.80799865722656, 88.0, 95.0, 100.0])
    w = np.array([float.fromhex("0x1.6aa338p+1"), 3.0, 3.0, 3.0])
    p = np.array([float.fromhex("0x1.7b5910p+1"), 3.0, 3.0, 3.0])
    t = np.ones(4)
    got = A.forward((x, "fp32"), (t, "fp32"), (w, "fp32"), (p, "fp32"), 0).values()
    exact = R.loss(x, t, w, p)
    assert (A.ulp_error(got, exact) <= 4).all(), (got, exact, A.ulp_error(got, exact))


def test_reference_agrees_with_mpmath():
    """The float64 reference used above is accurate to ~1e-15 relative (in domain)."""
    rng = np.random.default_rng(3)
    idx = rng.choice(X.size, 600, replace=False)
    x = np.concatenate([X[idx], [-15.0, -88.0, -103.0, 20.0, 1e-30, -1e-30, 3e38, -3e38]])
    n = x.size
    t = rng.choice([0.0, 1.0, 0.5, 0.3], n)
    w = rng.uniform(0, 3, n)
    p = rng.uniform(0, 3, n)
    mpmath.mp.dps = 40
    worst = 0.0
    for xi, ti, wi, pi, ref in zip(x, t, w, p, R.loss(x, t, w, p)):
        xm = mpmath.mpf(float(xi))
        sp_pos = mpmath.log1p(mpmath.exp(xm)) if xi < 50 else xm + mpmath.log1p(mpmath.exp(-xm))
        sp_neg = mpmath.log1p(mpmath.exp(-xm)) if xi > -50 else -xm + mpmath.log1p(mpmath.exp(xm))
        exact = wi * (pi * ti * sp_neg + (1 - ti) * sp_pos)
        if abs(exact) < 1e-300:  # below float64's normal range: only needs to be tiny
            assert abs(ref) < 1e-300
            continue
        rel = float(abs((mpmath.mpf(float(ref)) - exact) / exact))
        worst = max(worst, rel)
    assert worst < 1e-14, worst


# ----------------------------------------------------------------------------------------------
# Special values

# Finite x stay moderate: for |x| >~ 17 the formula's finite part cancels to 0 in fp32 (and for
# |x| >~ 37 in fp64) while the exact value is tiny but nonzero, so 0*inf vs tiny*inf (NaN vs inf)
# would depend on the precision the formula is evaluated in; see the report.
SPECIAL_X = [-np.inf, np.inf, np.nan, -8.0, -3.5, 0.0, 2.0, 8.0]
SPECIAL_T = [0.0, 1.0, 0.5, 2.0, -np.inf, np.inf, np.nan]
SPECIAL_W = [0.0, 1.0, 2.5, -1.5, np.inf, -np.inf, np.nan]
SPECIAL_P = [0.0, 1.0, 3.0, 0.5, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("out_dtype", A.DTYPES)
@pytest.mark.parametrize("present", ["none", "w", "p", "w+p"])
def test_special_value_classes(present, out_dtype):
    """Non-finite inputs: the class (NaN, +inf, -inf) of ((1-t)*x - (1+(p-1)*t)*log_sigmoid(x))
    * w in float64 IEEE (absent weights act as 1). Finite inputs here give finite results."""
    combos = np.array(list(itertools.product(
        SPECIAL_X, SPECIAL_T, SPECIAL_W if "w" in present else [1.0],
        SPECIAL_P if "p" in present else [1.0])))
    x, t, w, p = combos.T
    if out_dtype != "fp32":
        t = A.round_to(t, out_dtype)  # 0, 1, 0.5, 2, +-inf, NaN are exact anyway
    res = A.forward((x, "fp32"), (t, out_dtype), (w, "fp32") if "w" in present else None,
                    (p, "fp32") if "p" in present else None, 0)
    assert res.status == 0
    got = res.values()
    ref = R.loss_formula_ieee(x, t, w, p)
    gc, rc = A.value_class(got), A.value_class(ref)
    bad = gc != rc
    assert not bad.any(), "\n".join(
        f"x={a} t={b} w={c} p={d}: got {g} ({e}) want {f}"
        for a, b, c, d, g, e, f in list(zip(x[bad], t[bad], w[bad], p[bad], got[bad], gc[bad],
                                            rc[bad]))[:10])


def test_finite_overflow_gives_inf():
    # loss = w*p*t*softplus(-x) + w*(1-t)*softplus(x); softplus(x) ~ x for large x
    x = np.array([3.4e38, 3.0e38, -3.0e38, 1e38, -3.0e38, 1e38, 3.0e38])
    t = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0])
    w = np.array([3.0, 2.0, 3.0, 4.0, 3.0, 3.0, 2.0])
    p = np.array([1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0])
    res = A.forward((x, "fp32"), (t, "fp32"), (w, "fp32"), (p, "fp32"), 0)
    got = res.values()
    want = [np.inf, np.inf, np.inf, np.inf, 0.0, float(np.float32(3e38)), -np.inf]
    assert got.tolist() == want


# ----------------------------------------------------------------------------------------------
# Rounding of fp16 / bf16 outputs


def rounding_cases(dtype):
    """Values v exactly representable in fp32 at (and one fp32 ulp around) fp16/bf16 ties,
    subnormal ties and the overflow threshold."""
    _, prec, emin, fmax = A.FORMATS[dtype]
    vals = []
    for e in [emin - prec + 2, emin - 1, emin, -3, 0, 5, 12]:
        q = 2.0 ** (e - prec + 1) if e >= emin else 2.0 ** (emin - prec + 1)
        base = 2.0 ** e
        for k in [1, 3, 5]:  # base + k/2 quanta: ties with even below (k=1,5) and above (k=3)
            tie = base + k * q / 2
            vals += [tie, np.nextafter(np.float32(tie), np.float32(np.inf)),
                     np.nextafter(np.float32(tie), np.float32(0))]
    sub_q = 2.0 ** (emin - prec + 1)
    vals += [0.5 * sub_q, 1.5 * sub_q, 2.5 * sub_q, 0.25 * sub_q, 0.75 * sub_q]
    top = 2.0 ** (np.log2(fmax).__ceil__())  # 2^(emax+1)
    mid = (fmax + top) / 2  # overflow threshold: values >= mid round to inf
    vals += [fmax, mid, float(np.nextafter(np.float32(mid), np.float32(0))),
             float(np.nextafter(np.float32(mid), np.float32(np.inf))),
             float(np.finfo(np.float32).max)]
    v = np.array(vals, dtype=np.float64)
    assert (A.round_to(v, "fp32") == v).all()
    return v


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_half_outputs_round_to_nearest_even_once(dtype):
    """With t = 0 and x = 1024 the loss is w * (1024 + e^-1024): w*1024 (on a tie, beside one, on
    the overflow threshold) plus a rest far below even fp64's resolution, which still decides the
    direction. The output must be that exact value rounded once to dtype: away from w*1024 on a
    tie (the rest makes it no tie), no double rounding, overflow to +-inf (no saturation). The
    exact value rounds as the next fp64 value beyond w*1024 does."""
    v = rounding_cases(dtype)
    v = np.concatenate([v, -v])
    w = v / 1024.0
    v = v[A.round_to(w, "fp32") == w]  # keep the cases where w is an exact fp32 value
    w = v / 1024.0
    assert v.size > 40
    x = np.full(v.size, 1024.0)
    t = np.zeros(v.size)
    res = A.forward((x, "fp32"), (t, dtype), (w, "fp32"), None, 0)
    assert res.status == 0
    got = res.values()
    want = A.round_to(np.nextafter(v, np.copysign(np.inf, v)), dtype)
    bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    assert not bad.any(), list(zip(v[bad], got[bad], want[bad]))[:8]


# ----------------------------------------------------------------------------------------------
# Reductions


def test_mean_of_2p25_zeros_is_fp32_ln2():
    n = 2 ** 25
    x = A.View("fp16", np.zeros(n, dtype=np.float16), (n,))
    t = A.View("fp32", np.zeros(n, dtype=np.float32), (n,))
    res = A.forward(x, t, None, None, 1, out=A.View.contiguous(np.zeros(()), "fp32"))
    assert res.status == 0
    assert A.bits_of(res.raw()).item() == A.bits_of(np.float32(np.log(2.0))).item()
    # the same through stride-0 views, and as a sum (exact: 2^25 * fp32(ln 2))
    x0 = A.View("fp32", np.zeros(1, dtype=np.float32), (2 ** 13, 2 ** 12), strides=(0, 0))
    t0 = A.View("fp32", np.zeros(3, dtype=np.float32), (2 ** 13, 2 ** 12), strides=(0, 0),
                offset=2)
    res = A.forward(x0, t0, None, None, 1, out=A.View.contiguous(np.zeros(1), "fp32"))
    assert res.values()[0] == np.float32(np.log(2.0))
    res = A.forward(x0, t0, None, None, 2, out=A.View.contiguous(np.zeros(1), "fp32"))
    assert res.values()[0] == float(np.float32(np.log(2.0))) * n


@pytest.mark.parametrize("reduction", [1, 2])
def test_reduction_accuracy_large(reduction):
    """Sum/mean over 300k elements spanning many magnitudes: within the sum of the per-element
    bounds of the exact (fp64 math.fsum) value, then rounded once."""
    import math
    rng = np.random.default_rng(11)
    n = 300_000
    x = A.round_to(rng.choice(X, n), "fp32")
    x = np.clip(x, -1e30, 1e30)
    t = A.round_to(rng.uniform(0, 1, n), "fp32")
    w = A.round_to(rng.uniform(0, 3, n), "fp32")
    res = A.forward((x, "fp32"), (t, "fp32"), (w, "fp32"), None, reduction)
    exact_el = R.loss(x, t, w)
    total = math.fsum(exact_el)
    tol = float(np.sum(4 * A.ulp(exact_el, "fp32"))) + 1e-16 * float(np.sum(exact_el))
    if reduction == 1:
        total, tol = total / n, tol / n
    assert A.within_rounded_interval(res.values().reshape(1), np.array([total]), tol,
                                     "fp32").all(), (res.values(), total, tol)


@pytest.mark.parametrize("dtype", A.DTYPES)
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_pos_weight_of_ones_is_bitwise_absent(dtype, reduction):
    rng = np.random.default_rng(reduction)
    for shape, pshape in [((7, 33), (33,)), ((5000,), ()), ((2, 3, 4), (2, 3, 4))]:
        x = A.View.contiguous(rng.normal(0, 8, shape), dtype)
        t = A.View.contiguous(rng.uniform(0, 1, shape), dtype)
        w = A.View.contiguous(rng.uniform(-1, 3, shape), "bf16")
        ones = A.random_view(rng, np.ones(pshape), dtype)
        a = A.forward(x, t, w, ones, reduction)
        b = A.forward(x, t, w, None, reduction)
        assert a.status == b.status == 0
        assert np.array_equal(A.bits_of(a.raw()), A.bits_of(b.raw()))


def test_report_max_ulp():
    print("\nforward accuracy max ulp:", {"/".join(k): round(v, 3) for k, v in MAX_ULP.items()})
    assert all(v <= 4 for v in MAX_ULP.values())
