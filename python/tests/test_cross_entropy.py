"""openaclnn.cross_entropy and CrossEntropyLoss against mpmath at 200 bits rounded once and
PyTorch 1.13's cross_entropy in float64: values of every shape torch takes, reductions, weights,
ignore_index, label smoothing, class indices and probabilities, float16 and bfloat16; gradients
(once and twice) as torch's, and exactly what the docstring says they are; torch's exceptions;
torch's OpInfo samples; a forked DataLoader."""
import subprocess
import sys
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import openaclnn
from helpers import FORMATS

SHAPES = [(5,), (7, 5), (3, 4, 6), (2, 3, 4, 5), (2, 3, 2, 2, 3)]
REDUCTIONS = ("none", "mean", "sum")


@pytest.fixture(autouse=True)
def exact_arithmetic():
    """mpmath at 200 bits for this module's tests only."""
    with mpmath.workprec(200):
        yield


def draw(shape, seed, ignore_index=-100, dtype=torch.float32):
    """Logits, class indices (a fifth of them ignore_index), probabilities and weights (some
    negative), as torch tensors of `dtype` (the indices int64)."""
    gen = torch.Generator().manual_seed(seed)
    classes = shape[0] if len(shape) == 1 else shape[1]
    positions = shape[:1] + shape[2:] if len(shape) > 1 else ()
    x = (torch.randn(shape, generator=gen, dtype=torch.float64) * 3).to(dtype)
    t = torch.randint(0, classes, positions, generator=gen)
    t[torch.rand(positions, generator=gen) < 0.2] = ignore_index
    p = torch.rand(shape, generator=gen, dtype=torch.float64)
    p = (p / p.sum(0 if len(shape) == 1 else 1, keepdim=True)).to(dtype)
    w = (torch.rand(classes, generator=gen, dtype=torch.float64) * 3 - 0.5).to(dtype)
    return x, t, p, w


# ---------------------------------------------------------------------------------------------
# Exact references: mpmath values as exact rationals, rounded once.

def fraction(value):
    """An mpmath number (or a float) as the exact rational it is."""
    value = mpmath.mpf(value)
    if not mpmath.isfinite(value):
        raise ValueError(value)
    man, exp = value.man_exp  # of |value|
    return (-1 if value < 0 else 1) * Fraction(man) * Fraction(2) ** exp


def round_once(value, dtype):
    """An mpmath value rounded once, to nearest even, into `dtype` (a Python float)."""
    if mpmath.isnan(value):
        return float("nan")
    precision, emin, largest = FORMATS[dtype]
    v = fraction(value)
    if v == 0:
        return 0.0
    exponent = abs(v.numerator).bit_length() - v.denominator.bit_length()
    if Fraction(2) ** exponent > abs(v):
        exponent -= 1  # now 2^exponent <= |v| < 2^(exponent + 1)
    quantum = Fraction(2) ** max(exponent - precision + 1, emin - precision + 1)
    rounded = round(v / quantum) * quantum  # round() of a Fraction ties to even
    return float(rounded) if abs(rounded) <= largest else float(np.copysign(np.inf, v))


def rows(a):
    """A class-axis array as (M, C) rows, the class dimension last (float64 NumPy)."""
    a = np.asarray(a.double() if isinstance(a, torch.Tensor) else a, dtype=np.float64)
    return a.reshape(1, -1) if a.ndim == 1 else np.moveaxis(a, 1, -1).reshape(-1, a.shape[1])


def log_softmax(row):
    lse = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(v)) for v in row))
    return [mpmath.mpf(v) - lse for v in row]


def exact_losses(x, target, w, ignore_index, eps):
    """Per position: (-sum_c w q lp exactly, the weight it counts with in a mean)."""
    xs = rows(x)
    classes = xs.shape[1]
    w = np.ones(classes) if w is None else rows(w)[0]
    probabilities = target.shape == x.shape
    targets = rows(target) if probabilities else target.reshape(-1).numpy()
    result = []
    for row, t in zip(xs, targets):
        lp = log_softmax(row)
        if probabilities:
            q = [(1 - mpmath.mpf(eps)) * mpmath.mpf(p) + mpmath.mpf(eps) / classes for p in t]
            result.append((-mpmath.fsum(mpmath.mpf(wc) * qc * v for wc, qc, v in zip(w, q, lp)),
                           1))
        elif t == ignore_index:
            result.append((mpmath.mpf(0), 0))
        else:
            smooth = mpmath.fsum(mpmath.mpf(wc) * v for wc, v in zip(w, lp))
            loss = -(1 - mpmath.mpf(eps)) * w[t] * lp[t] - mpmath.mpf(eps) / classes * smooth
            result.append((loss, w[t]))
    return result


def exact(x, target, w=None, ignore_index=-100, reduction="mean", eps=0.0, dtype=None):
    """The loss rounded once to dtype (input's by default), as float64 NumPy."""
    dtype = dtype or x.dtype
    losses = exact_losses(x, target, w, ignore_index, eps)
    if reduction == "none":
        shape = x.shape[:1] + x.shape[2:] if x.dim() > 1 else ()
        return np.float64([round_once(v, dtype) for v, _ in losses]).reshape(shape)
    total = mpmath.fsum(v for v, _ in losses)
    if reduction == "mean":
        weight = mpmath.fsum(mpmath.mpf(c) for _, c in losses)
        total = total / weight if weight != 0 else mpmath.nan
    return np.float64(round_once(total, dtype))


def ulps(got, expected, dtype):
    """|got - expected| in units of dtype's spacing at expected (float64 NumPy)."""
    precision, emin, _ = FORMATS[dtype]
    _, exponent = np.frexp(expected)
    spacing = np.ldexp(1.0, np.maximum(exponent - precision, emin - precision + 1))
    return np.abs(np.asarray(got, np.float64) - expected) / spacing


# ---------------------------------------------------------------------------------------------
# Values.

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_class_indices_give_the_exact_value_rounded_once(shape, reduction):
    for seed, ignore_index, eps, weighted in ((1, -100, 0.0, False), (2, 1, 0.1, True),
                                             (3, -1, 1.0, True)):
        x, t, _, w = draw(shape, seed, ignore_index)
        weight = w.numpy() if weighted else None
        got = openaclnn.cross_entropy(x.numpy(), t.numpy(), weight, ignore_index=ignore_index,
                                      reduction=reduction, label_smoothing=eps)
        expected = exact(x, t, w if weighted else None, ignore_index, reduction, eps)
        assert isinstance(got, np.ndarray) and got.dtype == np.float32
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_float16_and_bfloat16_class_indices_are_exact_too(dtype):
    x, t, _, w = draw((6, 4, 3), 5, ignore_index=2, dtype=dtype)
    for reduction in REDUCTIONS:
        got = openaclnn.cross_entropy(x, t, w, ignore_index=2, reduction=reduction,
                                      label_smoothing=0.25)
        assert got.dtype == dtype
        expected = exact(x, t, w, 2, reduction, 0.25)
        np.testing.assert_array_equal(got.double().numpy(), expected)


def test_a_probability_next_to_one_keeps_its_tiny_loss():
    # exp(-20) / (1 + exp(-20)) = 2.06e-9: torch's float32 log_softmax gives 0.
    x = torch.tensor([[20.0, 0.0]])
    got = openaclnn.cross_entropy(x, torch.tensor([0]))
    assert float(got) == round_once(mpmath.log1p(mpmath.exp(-20)), torch.float32)
    assert float(F.cross_entropy(x, torch.tensor([0]))) == 0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_probabilities_are_within_an_ulp_of_the_exact_value(dtype):
    worst = 0
    for shape in SHAPES:
        x, _, p, w = draw(shape, 7, dtype=dtype)
        for reduction in REDUCTIONS:
            for weight, eps in ((None, 0.0), (w.abs(), 0.2)):
                got = openaclnn.cross_entropy(x, p, weight, reduction=reduction,
                                              label_smoothing=eps)
                assert got.dtype == dtype and got.shape == F.cross_entropy(
                    x.double(), p.double(), reduction=reduction).shape
                expected = exact(x, p, weight, reduction=reduction, eps=eps)
                worst = max(worst, ulps(got.double().numpy(), expected, dtype).max())
    assert worst <= 1


def test_numpy_in_numpy_out_and_empty_inputs_as_torch():
    x, t, p, _ = draw((4, 3), 9)
    assert isinstance(openaclnn.cross_entropy(x.numpy(), p.numpy()), np.ndarray)
    for target in (torch.empty(0, dtype=torch.int64), torch.empty(0, 3)):
        for reduction in REDUCTIONS:
            got = openaclnn.cross_entropy(torch.empty(0, 3), target, reduction=reduction)
            theirs = F.cross_entropy(torch.empty(0, 3), target, reduction=reduction)
            assert got.shape == theirs.shape
            torch.testing.assert_close(got, theirs, equal_nan=True)


# ---------------------------------------------------------------------------------------------
# Against torch in float64: values and gradients, every shape, reduction, weight, ignore_index
# and label smoothing.

def both(x, target, weight, **kwargs):
    """(ours, torch's in float64, our input leaf, torch's) for a float32 x."""
    ours_x = x.clone().requires_grad_()
    theirs_x = x.double().requires_grad_()
    ours = openaclnn.cross_entropy(ours_x, target, weight, **kwargs)
    theirs_target = target.double() if target.is_floating_point() else target
    theirs = F.cross_entropy(theirs_x, theirs_target,
                             None if weight is None else weight.double(), **kwargs)
    return ours, theirs, ours_x, theirs_x


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_values_and_gradients_agree_with_torch(shape, reduction):
    x, t, p, w = draw(shape, 11, ignore_index=1)
    cases = [(t, dict(ignore_index=1)), (t, dict(label_smoothing=0.3)), (p, {}),
             (p, dict(label_smoothing=0.3))]
    for target, kwargs in cases:
        for weight in (None, w):
            ours, theirs, ours_x, theirs_x = both(x, target, weight, reduction=reduction,
                                                  **kwargs)
            assert ours.shape == theirs.shape and ours.dtype == torch.float32
            torch.testing.assert_close(ours.double(), theirs, rtol=4e-7, atol=1e-7,
                                       equal_nan=True)
            grad = torch.rand(ours.shape, dtype=torch.float64) + 0.5
            ours.backward(grad.float())
            theirs.backward(grad)
            torch.testing.assert_close(ours_x.grad.double(), theirs_x.grad, rtol=1e-6,
                                       atol=1e-7)


def test_probability_target_gradients_agree_with_torch():
    x, _, p, w = draw((3, 4, 5), 13)
    for reduction in REDUCTIONS:
        ours_p, theirs_p = p.clone().requires_grad_(), p.double().requires_grad_()
        ours = openaclnn.cross_entropy(x, ours_p, w, reduction=reduction, label_smoothing=0.2)
        theirs = F.cross_entropy(x.double(), theirs_p, w.double(), reduction=reduction,
                                 label_smoothing=0.2)
        grad = torch.rand(ours.shape, dtype=torch.float64) + 0.5
        ours.backward(grad.float())
        theirs.backward(grad)
        assert ours_p.grad.dtype == torch.float32
        torch.testing.assert_close(ours_p.grad.double(), theirs_p.grad, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_float16_and_bfloat16_gradients_agree_with_torch(dtype):
    eps = {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8}[dtype]
    x, t, p, w = draw((5, 4, 3), 17, dtype=dtype)
    for target in (t, p):
        for reduction in REDUCTIONS:
            xx = x.clone().requires_grad_()
            ours = openaclnn.cross_entropy(xx, target, w, reduction=reduction)
            ref = x.double().requires_grad_()
            theirs = F.cross_entropy(ref, target.double() if target.is_floating_point()
                                     else target, w.double(), reduction=reduction)
            ours.backward(torch.ones_like(ours))
            theirs.backward(torch.ones_like(theirs))
            assert xx.grad.dtype == dtype
            scale = ref.grad.abs().max()
            torch.testing.assert_close(xx.grad.double(), ref.grad, rtol=2 * eps,
                                       atol=eps * scale * 1e-3)


def test_class_gradient_is_exact_for_the_float32_log_probabilities():
    """The docstring's claim, bitwise: lp the exact log-probabilities rounded once to float32,
    the gradient the exact (exp(lp) (a + b W) - a [c = t] - b w) / D of those, rounded once to
    float32 (then once more to float16)."""
    x, t, _, w = draw((6, 5), 19, ignore_index=3, dtype=torch.float16)
    eps, classes = 0.1, 5
    for dtype in (torch.float32, torch.float16):
        xx = x.to(dtype).requires_grad_()
        loss = openaclnn.cross_entropy(xx, t, w.to(dtype), ignore_index=3, label_smoothing=eps)
        loss.backward()
        weights = [mpmath.mpf(float(v)) for v in w]
        counted = mpmath.fsum(weights[k] for k in t.tolist() if k != 3)
        expected = np.zeros((6, 5))
        for n, (row, k) in enumerate(zip(x.double().tolist(), t.tolist())):
            if k == 3:
                continue
            lp = [mpmath.mpf(round_once(v, torch.float32)) for v in log_softmax(row)]
            a = (1 - mpmath.mpf(eps)) * weights[k] / counted
            b = mpmath.mpf(eps) / classes / counted
            for c in range(classes):
                g = mpmath.exp(lp[c]) * (a + b * mpmath.fsum(weights)) - a * (c == k) - (
                    b * weights[c])
                expected[n, c] = round_once(round_once(g, torch.float32), dtype)
        np.testing.assert_array_equal(xx.grad.double().numpy(), expected)


def test_second_derivatives_are_torchs():
    x, t, p, w = draw((4, 3, 2), 23)
    for target in (t, p):
        for reduction in REDUCTIONS:
            results = []
            for library, dtype in ((openaclnn.cross_entropy, torch.float32),
                                   (F.cross_entropy, torch.float64)):
                xx = x.to(dtype).requires_grad_()
                tt = target.to(dtype) if target.is_floating_point() else target
                loss = library(xx, tt, w.to(dtype), reduction=reduction, label_smoothing=0.1)
                go = torch.full(loss.shape, 0.75, dtype=dtype, requires_grad=True)
                g, = torch.autograd.grad(loss, xx, go, create_graph=True)
                v = torch.linspace(-1, 1, g.numel(), dtype=dtype).reshape(g.shape)
                results.append([r.double() for r in torch.autograd.grad((g * v).sum(), (xx, go))])
            for ours, theirs in zip(*results):
                torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=1e-7)


def test_a_third_derivative_raises():
    x = torch.randn(3, 4, requires_grad=True)
    g, = torch.autograd.grad(openaclnn.cross_entropy(x, torch.tensor([0, 1, 2])), x,
                             create_graph=True)
    h, = torch.autograd.grad(g.sum() ** 2, x, create_graph=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(h.sum(), x)


# ---------------------------------------------------------------------------------------------
# Errors, deprecated arguments, the module.

def test_errors_are_torchs_kinds():
    x, t, p, w = draw((4, 3), 29)
    bad = t.clone()
    bad[2] = 3
    with pytest.raises(openaclnn.TargetError) as raised:
        openaclnn.cross_entropy(x, bad)
    assert isinstance(raised.value, IndexError)
    assert "target 3 of position 2" in str(raised.value)
    for target, weight in ((t[:3], None), (t, w[:2]), (torch.tensor(0), None)):
        with pytest.raises(openaclnn.ShapeError):
            openaclnn.cross_entropy(x, target, weight)
    with pytest.raises(openaclnn.ShapeError):
        openaclnn.cross_entropy(torch.tensor(1.0), torch.tensor(0.5))
    for input, target, weight in ((x.double(), t, None), (x, t, w.double()), (x, t.float(), None),
                                  (x, p.double(), None), (x, x.long(), None)):
        with pytest.raises(openaclnn.DtypeError):
            openaclnn.cross_entropy(input, target, weight)
    for kwargs in (dict(reduction="max"), dict(label_smoothing=1.5),
                   dict(label_smoothing=-0.1), dict(label_smoothing=float("nan"))):
        with pytest.raises(openaclnn.ArgumentError):
            openaclnn.cross_entropy(x, t, **kwargs)
    with pytest.raises(openaclnn.ArgumentError, match="ignore_index is not supported"):
        openaclnn.cross_entropy(x, p, ignore_index=0)
    with pytest.raises(openaclnn.Error):
        openaclnn.cross_entropy(x.requires_grad_(), t, w.requires_grad_())


def test_torch_raises_the_same_kinds():
    """Where torch raises too, the same Python exception kinds (ours are also Error)."""
    x, t, p, w = draw((4, 3), 29)
    bad = t.clone()
    bad[2] = 3
    cases = [((x, bad), {}), ((x, t[:3]), {}), ((x, t, w.double()), {}),
             ((x, x.long()), {}), ((x, t), dict(reduction="max")),
             ((x, t), dict(label_smoothing=1.5)), ((x, p), dict(ignore_index=0))]
    for args, kwargs in cases:
        with pytest.raises(Exception) as theirs:
            F.cross_entropy(*args, **kwargs)
        with pytest.raises(type(theirs.value)):
            openaclnn.cross_entropy(*args, **kwargs)


def test_deprecated_size_average_and_reduce_warn_as_torch():
    x, t, _, _ = draw((4, 3), 31)
    for size_average, reduce in ((False, None), (None, False), (True, True)):
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            got = openaclnn.cross_entropy(x, t, size_average=size_average, reduce=reduce)
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            expected = F.cross_entropy(x.double(), t, size_average=size_average, reduce=reduce)
        assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
        torch.testing.assert_close(got.double(), expected)


def test_module():
    x, t, p, w = draw((5, 3, 2), 37, ignore_index=0)
    criterion = openaclnn.CrossEntropyLoss(weight=w, ignore_index=0, reduction="sum",
                                           label_smoothing=0.2)
    assert torch.equal(criterion.state_dict()["weight"], w)
    assert openaclnn.CrossEntropyLoss(w).to(torch.bfloat16).weight.dtype == torch.bfloat16
    assert float(criterion(x, t)) == float(exact(x, t, w, 0, "sum", 0.2))
    xx = x.clone().requires_grad_()
    openaclnn.CrossEntropyLoss()(xx, p).backward()
    ref = x.double().requires_grad_()
    torch.nn.CrossEntropyLoss()(ref, p.double()).backward()
    torch.testing.assert_close(xx.grad.double(), ref.grad, rtol=1e-6, atol=1e-7)
    with pytest.raises(openaclnn.ArgumentError):
        openaclnn.CrossEntropyLoss(reduction="max")


DATALOADER = """
import multiprocessing, torch, openaclnn

class Losses(torch.utils.data.Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(1 << 14, 10, generator=g)
        t = torch.randint(0, 10, (1 << 14,), generator=g)
        return torch.stack([openaclnn.cross_entropy(x, t, reduction="none").sum().double(),
                            openaclnn.cross_entropy(x, t, label_smoothing=0.1).double(),
                            openaclnn.cross_entropy(x, x.softmax(1)).double()])

data = Losses()
in_parent = [data[i] for i in range(len(data))]
loader = torch.utils.data.DataLoader(data, batch_size=None, num_workers=2,
                                     multiprocessing_context=multiprocessing.get_context("fork"))
assert all(torch.equal(a, b) for a, b in zip(loader, in_parent)), "workers' bits differ"
print("dataloader ok")
"""


def test_forked_dataloader_workers():
    done = subprocess.run([sys.executable, "-c", DATALOADER], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "dataloader ok" in done.stdout


def test_opinfo_samples():
    """PyTorch's own samples of nn.functional.cross_entropy (its op_db), in float32 and
    bfloat16, each against torch in float64: the loss and its input (and probability target)
    gradients."""
    from test_elementwise import op_db_entries
    op = op_db_entries()["nn.functional.cross_entropy"]
    count = 0
    for dtype, rtol in ((torch.float32, 2.0 ** -22), (torch.bfloat16, 2.0 ** -7)):
        for sample in op.sample_inputs("cpu", dtype, requires_grad=True):
            x, (t,), kwargs = sample.input, sample.args, dict(sample.kwargs)
            weight = kwargs.pop("weight", None)
            got = openaclnn.cross_entropy(x, t, weight, **kwargs)
            leaves = [a for a in (x, t) if a.requires_grad]
            refs = [a.detach().double().requires_grad_() for a in leaves]
            ref_t = refs[1] if len(refs) > 1 else t
            ref = F.cross_entropy(refs[0], ref_t, None if weight is None else weight.double(),
                                  **kwargs)
            assert got.shape == ref.shape and got.dtype == dtype, sample
            torch.testing.assert_close(got.double(), ref, rtol=rtol, atol=0, equal_nan=True)
            grads = torch.autograd.grad(got, leaves, torch.ones_like(got))
            ref_grads = torch.autograd.grad(ref, refs, torch.ones_like(ref))
            for grad, ref_grad in zip(grads, ref_grads):
                torch.testing.assert_close(grad.double(), ref_grad, rtol=2 * rtol,
                                           atol=rtol * ref_grad.abs().max())
            count += 1
    assert count >= 40
