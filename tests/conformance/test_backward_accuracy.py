"""Accuracy of the two gradient ops over the whole fp32 range of x, against the accurate float64
formulas of reference.py (bound: 4 fp32 ulp of the largest term, as the exact gradient can
cancel), plus special-value classes (docs/contract/numerics.md §4, in float64 IEEE), fp16/bf16
rounding, mean scaling and pos_weight-of-ones == absent, bitwise."""
import itertools
import zlib

import numpy as np
import pytest

import aclnn as A
import cases as C
import reference as R

OPS = {"self": A.BACKWARD, "target": A.TARGET_BACKWARD}
MAX_ULP = {}
X = C.x_sweep()


WHICH = ["self", "target"]


def exact_and_term(which, g, x, t, w, p, n=1):
    if which == "self":
        return (R.grad_self(g, x, t, w, p, n), R.grad_self_largest_term(g, x, t, w, p, n))
    return R.grad_target(g, x, w, p, n), R.grad_target_largest_term(g, x, w, p, n)


def check(got, exact, term, dtype):
    tol = 4 * A.ulp(np.fmax(term, np.abs(exact)), "fp32")
    if dtype == "fp32":
        close = np.abs(got - exact) <= tol
        return close | (np.isinf(got) & A.within_rounded_interval(got, exact, tol, "fp32"))
    return A.within_rounded_interval(got, exact, tol, dtype)


@pytest.mark.parametrize("out_dtype", A.DTYPES)
@pytest.mark.parametrize("weighting", ["none", "w+p", "p"])
@pytest.mark.parametrize("tname", ["0", "1", "0.5", "random", "soft-out-of-domain"])
@pytest.mark.parametrize("which", WHICH)
def test_sweep(which, tname, weighting, out_dtype):
    rng = np.random.default_rng(zlib.crc32(f"{which}|{tname}|{weighting}".encode()))
    n = X.size
    t = {"0": np.zeros(n), "1": np.ones(n), "0.5": np.full(n, 0.5),
         "random": rng.uniform(0, 1, n),
         "soft-out-of-domain": rng.uniform(-2, 3, n)}[tname]
    t = A.round_to(t, out_dtype)
    lo = -3.0 if tname == "soft-out-of-domain" else 0.0
    w = A.round_to(rng.uniform(lo, 3, n), "fp32") if "w" in weighting else None
    p = A.round_to(rng.uniform(lo, 3, n), "fp32") if "p" in weighting else None
    g = A.round_to(rng.choice([1.0, -1.0, 0.37, 2.5], n) * rng.uniform(0.5, 1.5, n), "fp32")
    res = A.backward(OPS[which], (g, "fp32"), (X, "fp32"), (t, out_dtype),
                     None if w is None else (w, "fp32"), None if p is None else (p, "fp32"), 0)
    assert res.status == 0, res.message
    got = res.values()
    exact, term = exact_and_term(which, g, X, t, w, p)
    ok = check(got, exact, term, out_dtype)
    if out_dtype == "fp32":
        fin = np.isfinite(got) & np.isfinite(exact)
        MAX_ULP[(which, tname, weighting)] = float(np.max(
            np.abs(got[fin] - exact[fin]) / A.ulp(np.fmax(term, np.abs(exact))[fin], "fp32")))
    bad = ~ok
    assert not bad.any(), (f"{int(bad.sum())} bad: x={X[bad][:4]} t={t[bad][:4]} "
                           f"got={got[bad][:4]} exact={exact[bad][:4]} term={term[bad][:4]}")


@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("n", [1, 3, 1000, 4097, 100_003])
def test_mean_scales_by_one_over_n(which, n):
    """Reduction mean: out = g * d / N (N = numel(self)), g a rank-0 gradOutput."""
    rng = np.random.default_rng(n)
    x = A.round_to(rng.normal(0, 5, n), "fp32")
    t = A.round_to(rng.uniform(0, 1, n), "fp32")
    w = A.round_to(rng.uniform(0, 3, n), "fp32")
    g = np.array(1.75)
    res = A.backward(OPS[which], (g, "fp32"), (x, "fp32"), (t, "fp32"), (w, "fp32"), None, 1)
    assert res.status == 0
    exact, term = exact_and_term(which, g, x, t, w, None, n)
    got = res.values()
    ok = check(got, exact, term, "fp32")
    MAX_ULP[(which, "mean", str(n))] = float(np.max(np.abs(got - exact) / A.ulp(term, "fp32")))
    assert ok.all(), (got[~ok][:4], exact[~ok][:4])
    # sum: the same without the 1/N
    res = A.backward(OPS[which], (g, "fp32"), (x, "fp32"), (t, "fp32"), (w, "fp32"), None, 2)
    exact, term = exact_and_term(which, g, x, t, w, None, 1)
    assert check(res.values(), exact, term, "fp32").all()


SPECIAL_X = [-np.inf, np.inf, np.nan, -8.0, -3.5, 0.0, 2.0, 8.0]
SPECIAL_T = [0.0, 1.0, 0.5, 2.0, -np.inf, np.inf, np.nan]
SPECIAL_W = [0.0, 1.0, -1.5, np.inf, -np.inf, np.nan]
SPECIAL_P = [0.0, 1.0, 3.0, 0.5, np.inf, -np.inf, np.nan]
SPECIAL_G = [1.0, -0.5, 0.0, np.inf, np.nan]


@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("present", ["none", "w+p"])
def test_special_value_classes(which, present):
    """Classes (NaN / +inf / -inf / finite) as the formulas of docs/contract/numerics.md §4 give
    in float64 IEEE:
    grad_self = g*w*((1+(p-1)*t)*sigmoid(x) - p*t), grad_target = g*w*(p*sp(-x) - sp(x))."""
    combos = np.array(list(itertools.product(
        SPECIAL_G, SPECIAL_X, SPECIAL_T, SPECIAL_W if "w" in present else [1.0],
        SPECIAL_P if "p" in present else [1.0])))
    g, x, t, w, p = combos.T
    res = A.backward(OPS[which], (g, "fp32"), (x, "fp32"), (t, "fp32"),
                     (w, "fp32") if "w" in present else None,
                     (p, "fp32") if "p" in present else None, 0)
    assert res.status == 0
    got = res.values()
    if which == "self":
        ref = R.grad_self_formula_ieee(g, x, t, w, p)
    else:
        ref = R.grad_target_formula_ieee(g, x, w, p)
    gc, rc = A.value_class(got), A.value_class(ref)
    bad = gc != rc
    assert not bad.any(), "\n".join(
        f"g={a} x={b} t={c} w={d} p={e}: got {f} want {h}" for a, b, c, d, e, f, h in
        list(zip(g[bad], x[bad], t[bad], w[bad], p[bad], got[bad], rc[bad]))[:10])


@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("dtype", A.DTYPES)
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_pos_weight_of_ones_is_bitwise_absent(which, dtype, reduction):
    rng = np.random.default_rng(9)
    shape = (37, 41)
    x = A.View.contiguous(rng.normal(0, 8, shape), dtype)
    t = A.View.contiguous(rng.uniform(0, 1, shape), dtype)
    w = A.View.contiguous(rng.uniform(0, 3, (41,)), "fp16")
    g = A.View.contiguous(rng.uniform(-2, 2, shape if reduction == 0 else ()), "fp32")
    ones = A.View.contiguous(np.ones(()), "bf16")
    a = A.backward(OPS[which], g, x, t, w, ones, reduction)
    b = A.backward(OPS[which], g, x, t, w, None, reduction)
    assert a.status == b.status == 0
    assert np.array_equal(A.bits_of(a.raw()), A.bits_of(b.raw()))


@pytest.mark.parametrize("which", ["target"])
def test_grad_target_no_intermediate_overflow(which):
    """p*softplus(-x) - softplus(x) overflows fp32 for x ~ -3e38 and p > 1, but the gradient
    g*w*(...) with |g*w| < 1 is finite: the result must be finite and within 4 ulp."""
    x = np.array([-3.4028234663852886e38, -1e38])
    g = np.array([0.25, 0.25])
    p = np.array([2.0, 4.0])
    res = A.backward(OPS[which], (g, "fp32"), (x, "fp32"), (np.zeros(2), "fp32"), None,
                     (p, "fp32"), 0)
    exact = R.grad_target(g, x, None, p)  # 1.70e38, 1.0e38
    got = res.values()
    assert (A.ulp_error(got, exact) <= 4).all(), (got, exact)


def test_report_max_ulp():
    print("\nbackward accuracy max err / ulp32(largest term):",
          {"/".join(k): round(v, 3) for k, v in MAX_ULP.items()})
    assert all(v <= 4 for v in MAX_ULP.values())
