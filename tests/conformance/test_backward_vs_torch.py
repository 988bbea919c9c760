"""Differential suite for aclnnBinaryCrossEntropyWithLogitsBackward (d/d self) and
aclnnBinaryCrossEntropyWithLogitsTargetBackward (d/d target) against PyTorch autograd in
float64, on seeded random cases (ranks 0-8, dtype mixes, weights absent/full/broadcast,
strided views for every operand including out, reductions 0/1/2; gradOutput full-shaped for
none, rank 0 or [1] for mean/sum).

Gradients can cancel (sigmoid(x) ~ t), so the bound is 4 fp32 ulp of the largest term of the
formula (plus a bound on torch float64's own error); fp16/bf16 outputs are that fp32 result
rounded once."""
import numpy as np
import pytest

import aclnn as A
import cases as C
import reference as R

N_CASES = 500
STATS = {}

OPS = {"self": A.BACKWARD, "target": A.TARGET_BACKWARD}


def make_case(seed):
    rng = np.random.default_rng(5000 + seed)
    rank = int(rng.integers(0, 9))
    shape = C.random_shape(rng, rank, big=(seed % 60 == 11))
    dom = rng.random() < 0.8
    reduction = int(rng.integers(0, 3))
    x, t, weight, pos_weight = C.random_operands(rng, shape, dom)
    # mean/sum: a one-element gradOutput that broadcasts into self ([1] needs rank(self) >= 1)
    gshape = shape if reduction == 0 else [(), (1,)][int(rng.integers(0, 2 if rank else 1))]
    g = A.random_view(rng, rng.uniform(-2.0, 2.0, gshape), C.pick_dtype(rng))
    out = A.output_view(rng, shape, t.dtype)
    return g, x, t, weight, pos_weight, reduction, out


def bval(v, shape):
    return None if v is None else np.broadcast_to(v.values(), shape)


def describe(g, x, t, w, p, reduction, out):
    def d(v):
        return "-" if v is None else f"{v.dtype}{list(v.shape)}s{list(v.strides)}o{v.offset}"
    return (f"grad={d(g)} self={d(x)} target={d(t)} weight={d(w)} pos_weight={d(p)} "
            f"reduction={reduction} out={d(out)}")


def expected(which, g, x, t, w, p, reduction):
    """(torch autograd float64 gradient, error bound for the library) over self's shape."""
    shape = x.shape
    n = max(int(np.prod(shape)) if shape else 1, 1) if reduction == 1 else 1
    gv = np.broadcast_to(g.values().reshape(g.shape if reduction == 0 else ()), shape)
    xv, tv, wv, pv = x.values(), t.values(), bval(w, shape), bval(p, shape)
    ref = R.torch_grad(which, g.values(), xv, tv, wv, pv, reduction)
    if which == "self":
        term = R.grad_self_largest_term(gv, xv, tv, wv, pv, n)
    else:
        term = R.grad_target_largest_term(gv, xv, wv, pv, n)
    term = np.fmax(term, np.abs(ref))
    tol = 4 * A.ulp(term, "fp32") + 32 * R.EPS64 * term
    return ref, term, tol


def check_untouched(res, out):
    inside = np.zeros(out.storage.size, dtype=bool)
    inside[out.indices().reshape(-1)] = True
    assert np.array_equal(A.bits_of(res.storage[~inside]), A.bits_of(out.storage[~inside]))


@pytest.mark.parametrize("which", ["self", "target"])
@pytest.mark.parametrize("seed", range(N_CASES))
def test_random_case(seed, which):
    g, x, t, w, p, reduction, out = make_case(seed)
    info = describe(g, x, t, w, p, reduction, out)
    res = A.backward(OPS[which], g, x, t, w, p, reduction, out=out)
    assert res.status == 0, f"{info}: status {res.status} {res.message}"
    check_untouched(res, out)
    got = res.values()
    ref, term, tol = expected(which, g, x, t, w, p, reduction)
    if out.dtype == "fp32":
        ok = np.abs(got - ref) <= tol
        if got.size:
            key = f"{which}: err / ulp32(largest term)"
            STATS[key] = max(STATS.get(key, 0.0), float(np.max(
                np.abs(got - ref) / A.ulp(term, "fp32"))))
    else:
        ok = A.within_rounded_interval(got, ref, tol, out.dtype)
    bad = ~ok
    assert not bad.any(), (
        f"{info}: {int(bad.sum())} bad; first: got {got[bad][0]!r} ref {ref[bad][0]!r} "
        f"tol {tol[bad][0]!r}")


@pytest.mark.parametrize("which", ["self", "target"])
def test_doc_examples(which):
    """docs/contract/numerics.md §8: fp32 [2,2], g=x=w=p={0,1,2,3}, t=0.1, reduction none."""
    v = np.array([[0.0, 1.0], [2.0, 3.0]])
    t = np.full((2, 2), 0.1)
    res = A.backward(OPS[which], (v, "fp32"), (v, "fp32"), (t, "fp32"), (v, "fp32"),
                     (v, "fp32"), 0)
    assert res.status == 0
    want = ([0.0, 0.6310586, 3.0755071, 7.5878006] if which == "self"
            else [0.0, -1.0, -7.4922880, -26.1254277])
    np.testing.assert_allclose(res.values().reshape(-1), want, rtol=2e-7, atol=1e-7)


@pytest.mark.parametrize("which", ["self", "target"])
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_empty(which, reduction):
    """Empty self: success, out untouched."""
    x = A.View.contiguous(np.zeros((2, 0)), "fp32")
    g = A.View.contiguous(np.zeros(() if reduction else (2, 0)), "fp32")
    out = A.View("fp32", np.full(3, -7.25, dtype=np.float32), (2, 0), offset=1)
    res = A.backward(OPS[which], g, x, x, None, None, reduction, out=out)
    assert res.status == 0, res.message
    assert np.array_equal(A.bits_of(res.storage), A.bits_of(out.storage))


def test_report_stats():
    print("\nbackward vs torch:", {k: round(v, 3) for k, v in STATS.items()})
