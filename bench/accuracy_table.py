#!/usr/bin/env python3
"""Rounding quality of the three BCE-with-logits ops, as docs/accuracy.md tabulates it.

For each op and dtype: the share of results equal to the exact value rounded once to the output
dtype (correctly rounded), the share within 1 ulp, and the worst error in ulps, for OpenACLNN
(through its C API, as a user calls it), PyTorch (CPU, evaluated in the op's dtype) and CANN's
formula evaluated in fp32 (rounded to the output dtype), on the same random inputs.

Inputs follow issue 9's distribution: |x| log-uniform over [1e-6, 120] with either sign, t
uniform in [0, 1] with a third hard labels (0 or 1), w in [0, 4], p in [0, 8], g in +-[0.5, 2].
The exact values are computed in long double from cancellation-free forms (the same sums of
positive terms for the loss; the merged |x| terms for the target gradient), and that reference
is checked against mpmath (50 digits) on a sample before anything is counted.

Its output starts with one line that states the run (bench/run_stamp.py): machine, the SIMD target
the package's library dispatches to, the commit of this checkout ("-dirty" where tracked files
differ from it) and the date (UTC).

Usage (from the repository root, after `cmake --build build`, which builds the package):
    PYTHONPATH=build/python /usr/bin/python3 bench/accuracy_table.py [--count 1000000] [--seed 9]
"""
import argparse
import os
import sys

import mpmath
import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "conformance"))
import aclnn as A  # noqa: E402
from openaclnn import _binding  # noqa: E402
from run_stamp import source_commit, stamp  # noqa: E402  (this script's folder is on sys.path)

LD = np.longdouble


def draw(rng, n):
    x = np.exp(rng.uniform(np.log(1e-6), np.log(120.0), n)) * rng.choice([-1.0, 1.0], n)
    kind = rng.random(n)
    t = np.where(kind < 1 / 6, 0.0, np.where(kind < 1 / 3, 1.0, rng.random(n)))
    w = rng.uniform(0.0, 4.0, n)
    p = rng.uniform(0.0, 8.0, n)
    g = rng.uniform(0.5, 2.0, n) * rng.choice([-1.0, 1.0], n)
    return x, t, w, p, g


# ---- exact values (long double), and their check against mpmath


def exact(op, x, t, w, p, g):
    x, t, w, p, g = (np.asarray(v, dtype=LD) for v in (x, t, w, p, g))
    a = np.abs(x)
    tail = np.log1p(np.exp(-a))  # log1p(exp(-|x|)) = softplus(-|x|)
    if op == "loss":
        pos, neg = p * t, 1 - t
        return w * (np.where(x < 0, pos, neg) * a + (pos + neg) * tail)
    if op == "grad_self":
        e = np.exp(-a)
        pos, neg = p * t, 1 - t
        return g * w * np.where(x < 0, neg * e - pos, neg - pos * e) / (1 + e)
    return g * w * ((p - 1) * tail + np.where(x < 0, p, -1) * a)


def exact_mp(op, x, t, w, p, g, dps=50):
    mpmath.mp.dps = dps
    x, t, w, p, g = (mpmath.mpf(float(v)) for v in (x, t, w, p, g))
    sp = lambda z: mpmath.log1p(mpmath.exp(z)) if z < 0 else z + mpmath.log1p(mpmath.exp(-z))
    if op == "loss":
        return w * (p * t * sp(-x) + (1 - t) * sp(x))
    if op == "grad_self":
        sig, sig_neg = 1 / (1 + mpmath.exp(-x)), 1 / (1 + mpmath.exp(x))
        return g * w * ((1 - t) * sig - p * t * sig_neg)
    return g * w * (p * sp(-x) - sp(x))


def check_reference(rng, samples=2000):
    worst = 0.0
    for op in ("loss", "grad_self", "grad_target"):
        vals = [v[:samples] for v in draw(rng, samples)]
        ref = exact(op, *vals)
        for i in range(samples):
            mp = exact_mp(op, *(v[i] for v in vals))
            if mp != 0:
                worst = max(worst, float(abs((mpmath.mpf(float(ref[i])) +
                                              mpmath.mpf(float(ref[i] - LD(float(ref[i]))))
                                              - mp) / mp)))
    return worst


# ---- candidates


def openaclnn(op, dtype, x, t, w, p, g):
    args = dict(w=(w, dtype), p=(p, dtype))
    if op == "loss":
        r = A.forward((x, dtype), (t, dtype), **args)
    else:
        name = A.BACKWARD if op == "grad_self" else A.TARGET_BACKWARD
        r = A.backward(name, (g, dtype), (x, dtype), (t, dtype), **args)
    assert r.status == 0, r.message
    return r.values()


TORCH = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def pytorch(op, dtype, x, t, w, p, g):
    tensors = [torch.tensor(v, dtype=TORCH[dtype]) for v in (x, t, w, p, g)]
    xt, tt, wt, pt, gt = tensors
    xt.requires_grad_(op == "grad_self")
    tt.requires_grad_(op == "grad_target")
    loss = torch.nn.functional.binary_cross_entropy_with_logits(xt, tt, weight=wt, pos_weight=pt,
                                                                reduction="none")
    if op == "loss":
        return loss.detach().double().numpy()
    loss.backward(gt)
    return (xt if op == "grad_self" else tt).grad.double().numpy()


def cann_fp32(op, dtype, x, t, w, p, g):
    """CANN's formulas (SigmoidCrossEntropyWithLogitsV2 and its gradients) in fp32."""
    f = np.float32
    x, t, w, p, g = (np.asarray(v, dtype=f) for v in (x, t, w, p, g))
    with np.errstate(all="ignore"):
        log_sig = -(np.maximum(-x, f(0)) + np.log1p(np.exp(-np.abs(x))))
        if op == "loss":
            r = ((f(1) - t) * x - ((p - f(1)) * t + f(1)) * log_sig) * w
        elif op == "grad_self":
            sig = f(1) / (f(1) + np.exp(-x))
            r = g * w * (((p - f(1)) * t + f(1)) * sig - p * t)
        else:
            log_sig_neg = -(np.maximum(x, f(0)) + np.log1p(np.exp(-np.abs(x))))
            r = g * w * (log_sig_neg - p * log_sig)
    return A.round_to(r.astype(np.float64), dtype)


# ---- scoring


def round_mp(value, dtype):
    """An mpmath value rounded once to dtype: to float64 rounded to odd (the sign of the rest
    decides), then to dtype."""
    v = float(value)
    rest = value - mpmath.mpf(v)
    if rest != 0 and int(np.array([v]).view(np.uint64)[0]) % 2 == 0:
        v = float(np.nextafter(v, np.inf if rest > 0 else -np.inf))
    return A.round_to(np.array([v]), dtype)[0]


def rounded_exact(op, dtype, ref, inputs):
    """ref (long double) rounded once to dtype; where an fp64 ulp either side of it rounds apart
    (the exact value lies next to a rounding boundary, and long double's 64 bits cannot tell on
    which side: a hard label with a large logit puts w*x on a midpoint beside a rest far below
    its resolution) the value is decided by mpmath, with digits enough to hold that rest."""
    v = ref.astype(np.float64)
    rounded = A.round_to(v, dtype)
    doubt = A.round_to(np.nextafter(v, -np.inf), dtype) != A.round_to(np.nextafter(v, np.inf), dtype)
    for i in np.flatnonzero(doubt & np.isfinite(v)):
        args = [float(a[i]) for a in inputs]
        dps = 60 + int(abs(args[0]) / 2.2)  # e^-|x| is 10^(-|x|/2.3)
        rounded[i] = round_mp(exact_mp(op, *args, dps=dps), dtype)
    return rounded


def score(got, ref, dtype, rounded):
    got = np.asarray(got, dtype=np.float64)
    correct = got == rounded
    err = np.abs(got.astype(LD) - ref) / A.ulp(rounded, dtype).astype(LD)
    err = np.where(correct, 0, np.where(np.isfinite(err), err, np.inf)).astype(np.float64)
    return 100 * correct.mean(), 100 * (err <= 1).mean(), err.max()


def fmt(s):
    cr, one, worst = s
    worst_text = f"{worst:.3g}" if np.isfinite(worst) else "inf"
    return f"{cr:.3f}% | {one:.3f}% | {worst_text}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=1000000)
    parser.add_argument("--sums", type=int, default=2000, help="mean/sum cases (500 terms each)")
    parser.add_argument("--seed", type=int, default=9)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    print("Run: " + stamp(_binding.info()["simd_target"], source_commit(root)) + "\n")
    print(f"reference check: long double against mpmath, worst relative difference "
          f"{check_reference(rng):.2e}\n")
    x, t, w, p, g = draw(rng, args.count)
    print(f"{args.count} random inputs per op and dtype (seed {args.seed}); reduction none.\n")
    print("Per candidate: correctly rounded share, share within 1 ulp, worst error in ulps of "
          "the output dtype at the exact value. n/a: PyTorch 1.13's CPU has no fp16 kernel "
          "for the op.\n")
    print("| op | dtype | OpenACLNN CR | <= 1 ulp | worst | PyTorch 1.13 CR | <= 1 ulp | worst | "
          "CANN formula (fp32) CR | <= 1 ulp | worst |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for op in ("loss", "grad_self", "grad_target"):
        for dtype in ("fp32", "fp16", "bf16"):
            xs, ts, ws, ps, gs = (A.round_to(v, dtype) for v in (x, t, w, p, g))
            ref = exact(op, xs, ts, ws, ps, gs)
            rounded = rounded_exact(op, dtype, ref, (xs, ts, ws, ps, gs))
            ours = score(openaclnn(op, dtype, xs, ts, ws, ps, gs), ref, dtype, rounded)
            try:
                theirs = fmt(score(pytorch(op, dtype, xs, ts, ws, ps, gs), ref, dtype, rounded))
            except RuntimeError:  # an op PyTorch 1.13's CPU lacks for that dtype
                theirs = "n/a | n/a | n/a"
            cann = score(cann_fp32(op, dtype, xs, ts, ws, ps, gs), ref, dtype, rounded)
            print(f"| {op} | {dtype} | {fmt(ours)} | {theirs} | {fmt(cann)} |")
    print(f"\nmean and sum of the loss (fp32): {args.sums} cases of 500 terms each, against the "
          "exact sum of the exact terms rounded once.\n")
    print("| reduction | OpenACLNN CR | <= 1 ulp | worst | PyTorch 1.13 CR | <= 1 ulp | worst | "
          "CANN formula, fp32 sum, CR | <= 1 ulp | worst |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for reduction, name in ((1, "mean"), (2, "sum")):
        got, torch_got, cann_got, refs = [], [], [], []
        for k in range(args.sums):
            sl = slice(500 * k, 500 * (k + 1))
            xs, ts, ws, ps = (A.round_to(v[sl], "fp32") for v in (x, t, w, p))
            terms = exact("loss", xs, ts, ws, ps, np.ones(500))
            refs.append(terms.sum() / (500 if reduction == 1 else 1))
            r = A.forward((xs, "fp32"), (ts, "fp32"), w=(ws, "fp32"), p=(ps, "fp32"),
                          reduction=reduction)
            got.append(float(r.values()))
            tt = [torch.tensor(v, dtype=torch.float32) for v in (xs, ts, ws, ps)]
            torch_got.append(float(torch.nn.functional.binary_cross_entropy_with_logits(
                tt[0], tt[1], weight=tt[2], pos_weight=tt[3], reduction=name)))
            c = cann_fp32("loss", "fp32", xs, ts, ws, ps, np.ones(500)).astype(np.float32)
            total = c.sum(dtype=np.float32)
            cann_got.append(float(total / np.float32(500) if reduction == 1 else total))
        ref = np.array(refs, dtype=LD)
        rounded = A.round_to(ref.astype(np.float64), "fp32")
        print(f"| {name} | {fmt(score(got, ref, 'fp32', rounded))} | "
              f"{fmt(score(torch_got, ref, 'fp32', rounded))}"
              f" | {fmt(score(cann_got, ref, 'fp32', rounded))} |")


if __name__ == "__main__":
    main()
