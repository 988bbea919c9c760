"""openaclnn.nll_loss and NLLLoss against exact rationals and PyTorch 1.13's nll_loss: values of
every shape torch takes, reductions, weights, ignore_index; gradients (once and twice) as
torch's; torch's exceptions; a forked DataLoader."""
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import openaclnn

SHAPES = [((5,), ()), ((7, 5), (7,)), ((3, 4, 6), (3, 6)), ((2, 3, 4, 5), (2, 4, 5)),
          ((2, 3, 2, 2, 3), (2, 2, 2, 3))]


def draw(shape, target_shape, seed, ignore_index=-100):
    rng = np.random.default_rng(seed)
    x = np.log(rng.uniform(0.01, 1, shape)).astype(np.float32)
    classes = shape[0] if len(shape) == 1 else shape[1]
    t = rng.integers(0, classes, target_shape).astype(np.int64)
    t[rng.uniform(size=target_shape) < 0.2] = ignore_index
    w = rng.uniform(-1, 2, classes).astype(np.float32)
    return x, t, w


def exact(x, t, w, ignore_index, reduction):
    """The loss from exact rationals, rounded once to float32 (each -w x is exact in a double;
    a mean's quotient is rounded from the Fraction)."""
    xs = np.moveaxis(x, 0 if x.ndim == 1 else 1, -1).reshape(-1, x.shape[0 if x.ndim == 1 else 1])
    terms, weights = [], []
    for row, target in zip(xs, t.reshape(-1)):
        if target == ignore_index:
            terms.append(Fraction(0))
            continue
        terms.append(-Fraction(float(w[target])) * Fraction(float(row[target])))
        weights.append(Fraction(float(w[target])))
    if reduction == "none":
        return np.float32([float(v) for v in terms]).reshape(t.shape)
    total = sum(terms, Fraction(0))
    if reduction == "sum":
        return np.float32(float(total))
    weight = sum(weights, Fraction(0))
    return np.float32(float(total / weight)) if weight != 0 else np.float32("nan")


@pytest.mark.parametrize("shape, target_shape", SHAPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_values_are_exact_rationals_rounded_once(shape, target_shape, reduction):
    for seed, ignore_index in ((1, -100), (2, 1), (3, -1)):
        x, t, w = draw(shape, target_shape, seed, ignore_index)
        got = openaclnn.nll_loss(x, t, w, ignore_index=ignore_index, reduction=reduction)
        expected = exact(x, t, w, ignore_index, reduction)
        assert isinstance(got, np.ndarray) and got.dtype == np.float32
        assert got.shape == np.shape(expected)
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("shape, target_shape", SHAPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_values_and_gradients_agree_with_torch(shape, target_shape, reduction):
    x, t, w = draw(shape, target_shape, 7)
    for weight in (None, torch.from_numpy(w)):
        ours_x = torch.from_numpy(x).requires_grad_()
        theirs_x = torch.from_numpy(x).double().requires_grad_()
        ours = openaclnn.nll_loss(ours_x, torch.from_numpy(t), weight, reduction=reduction)
        theirs = F.nll_loss(theirs_x, torch.from_numpy(t),
                            None if weight is None else weight.double(), reduction=reduction)
        assert ours.shape == theirs.shape
        torch.testing.assert_close(ours.double(), theirs, rtol=1e-6, atol=1e-6, equal_nan=True)
        grad = torch.rand(ours.shape, dtype=torch.float32) + 0.5
        ours.backward(grad)
        theirs.backward(grad.double())
        torch.testing.assert_close(ours_x.grad.double(), theirs_x.grad, rtol=1e-6, atol=1e-7)


def test_second_derivatives_are_torchs():
    x, t, w = draw((6, 4), (6,), 11)
    for reduction in ("none", "mean", "sum"):
        results = []
        for library in (openaclnn.nll_loss, F.nll_loss):
            xx = torch.from_numpy(x).double() if library is F.nll_loss else torch.from_numpy(x)
            xx.requires_grad_()
            ww = torch.from_numpy(w).to(xx.dtype)
            loss = library(xx, torch.from_numpy(t), ww, reduction=reduction)
            go = torch.full(loss.shape, 0.75, dtype=xx.dtype, requires_grad=True)
            g, = torch.autograd.grad(loss, xx, go, create_graph=True)
            v = torch.linspace(-1, 1, g.numel(), dtype=xx.dtype).reshape(g.shape)
            gg, = torch.autograd.grad((g * v).sum(), go)
            results.append(gg.double())
        torch.testing.assert_close(results[0], results[1], rtol=1e-6, atol=1e-7)


def test_module_and_float16_and_bfloat16():
    x, t, w = draw((9, 3), (9,), 13, ignore_index=1)
    criterion = openaclnn.NLLLoss(weight=torch.from_numpy(w), ignore_index=1, reduction="sum")
    assert float(criterion(torch.from_numpy(x), torch.from_numpy(t))) == float(
        exact(x, t, w, 1, "sum"))
    for dtype in (torch.float16, torch.bfloat16):
        xx, ww = torch.from_numpy(x).to(dtype), torch.from_numpy(w).to(dtype)
        got = openaclnn.nll_loss(xx, torch.from_numpy(t), ww, reduction="none")
        assert got.dtype == dtype
        expected = exact(xx.float().numpy(), t, ww.float().numpy(), -100, "none")
        assert torch.equal(got, torch.from_numpy(expected).to(dtype))


def test_errors_are_torchs_kinds():
    x, t, w = draw((4, 3), (4,), 17)
    t[2] = 3
    with pytest.raises(openaclnn.TargetError) as raised:
        openaclnn.nll_loss(x, t)
    assert isinstance(raised.value, IndexError)
    assert "target 3 of position 2" in str(raised.value) and raised.value.status == 507015
    t[2] = 0
    with pytest.raises(openaclnn.ShapeError):
        openaclnn.nll_loss(x, t[:3])
    with pytest.raises(openaclnn.ShapeError):
        openaclnn.nll_loss(np.float32(1), np.int64(0))
    with pytest.raises(openaclnn.DtypeError):
        openaclnn.nll_loss(x.astype(np.float64), t)
    with pytest.raises(openaclnn.ArgumentError):
        openaclnn.nll_loss(x, t, reduction="max")
    with pytest.raises(openaclnn.Error):
        openaclnn.nll_loss(torch.from_numpy(x).requires_grad_(), torch.from_numpy(t),
                           torch.from_numpy(w).requires_grad_())


def test_every_target_ignored_gives_nan_and_sum_zero():
    x, _, _ = draw((3, 2), (3,), 19)
    t = np.int64([-100, -100, -100])
    assert np.isnan(openaclnn.nll_loss(x, t))
    assert openaclnn.nll_loss(x, t, reduction="sum") == 0


DATALOADER = """
import multiprocessing, torch, openaclnn

class Losses(torch.utils.data.Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.log_softmax(torch.rand(1 << 15, 10, generator=g), 1)
        t = torch.randint(0, 10, (1 << 15,), generator=g)
        return torch.stack([openaclnn.nll_loss(x, t, reduction="none").sum().double(),
                            openaclnn.nll_loss(x, t).double()])

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
    """PyTorch's own samples of nn.functional.nll_loss (its op_db), each against torch in
    float64: the loss within half an ulp and its input gradient."""
    from test_elementwise import op_db_entries
    op = op_db_entries()["nn.functional.nll_loss"]
    count = 0
    for sample in op.sample_inputs("cpu", torch.float32, requires_grad=True):
        x, (t,), kwargs = sample.input, sample.args, dict(sample.kwargs)
        weight = kwargs.pop("weight", None)
        got = openaclnn.nll_loss(x, t, weight, **kwargs)
        xx = x.detach().double().requires_grad_()
        ref = F.nll_loss(xx, t, None if weight is None else weight.double(), **kwargs)
        assert got.shape == ref.shape and got.dtype == torch.float32, sample
        torch.testing.assert_close(got.double(), ref, rtol=2 ** -24, atol=0, equal_nan=True)
        if got.numel() and not got.isnan().any():
            grad, = torch.autograd.grad(got, x, torch.ones_like(got))
            ref_grad, = torch.autograd.grad(ref, xx, torch.ones_like(ref))
            torch.testing.assert_close(grad.double(), ref_grad, rtol=2 ** -23, atol=0)
        count += 1
    assert count >= 5
