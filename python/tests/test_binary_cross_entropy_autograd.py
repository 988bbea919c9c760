"""Autograd through openaclnn.binary_cross_entropy and BCELoss: the input gradient (the
library's Backward) and the target gradient against float64 autograd of torch's loss, second
derivatives under create_graph=True, and a weight that requires grad raising as in torch 1.13."""
import pytest
import torch

import openaclnn
from helpers import (DTYPES, EPS, REDUCTIONS, F, assert_close, assert_correctly_rounded, rand,
                     wide)

SHAPE = (5, 6)


def leaves(seed, dtype, grad_target=True):
    gen = torch.Generator().manual_seed(seed)
    x = rand(gen, SHAPE, 0.01, 0.99, dtype).t().requires_grad_()  # a transposed leaf
    t = rand(gen, SHAPE[::-1], 0, 1, dtype).requires_grad_(grad_target)
    w = rand(gen, (5,), 0, 2, dtype)
    return gen, x, t, w


def reference_grads(x, t, w, reduction, g):
    """(d loss / d x, d loss / d t) from torch's float64 autograd (1.13 has both)."""
    xx, tt = wide(x).requires_grad_(), wide(t).requires_grad_()
    loss = F.binary_cross_entropy(xx, tt, wide(w), reduction=reduction)
    return torch.autograd.grad(loss, (xx, tt), wide(g))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("grad_output", ["one", "scaled"])
def test_input_and_target_gradients(dtype, reduction, grad_output):
    gen, x, t, w = leaves(1, dtype)
    loss = openaclnn.binary_cross_entropy(x, t, w, reduction)
    assert loss.requires_grad and loss.dtype == dtype
    g = torch.ones_like(loss) if grad_output == "one" else rand(gen, loss.shape, 0.5, 2, dtype)
    loss.backward(g)
    ref_dx, ref_dt = reference_grads(x, t, w, reduction, g)
    # the library scales by grad_output inside: one rounding
    assert x.grad.dtype == dtype
    assert_correctly_rounded(x.grad, ref_dx, dtype)
    # the target gradient: a float64 expression cast to dtype (torch's cast to float16/bfloat16
    # rounds twice, through float32)
    assert t.grad.dtype == dtype and t.grad.shape == t.shape
    assert_close(t.grad, ref_dt, dtype, ref_dt.abs().max() * EPS[dtype] / 8)


def test_autograd_gradient_is_the_librarys_backward_bitwise():
    gen, x, t, w = leaves(2, torch.float32, grad_target=False)
    openaclnn.binary_cross_entropy(x, t, w).backward(torch.tensor(3.0))
    expected = openaclnn.binary_cross_entropy_backward(torch.tensor(3.0), x, t, w)
    assert torch.equal(x.grad, expected) and t.grad is None


def test_sum_of_unreduced_loss():
    """loss.sum().backward() hands down a stride-0 grad_output of ones: read in place."""
    _, x, t, w = leaves(3, torch.float32, grad_target=False)
    openaclnn.binary_cross_entropy(x, t, w, "none").sum().backward()
    ref_dx, _ = reference_grads(x, t, w, "none", torch.ones(x.shape))
    assert_correctly_rounded(x.grad, ref_dx, torch.float32)


def test_a_retained_graph_gives_the_gradient_again():
    _, x, t, w = leaves(4, torch.float32, grad_target=False)
    loss = openaclnn.binary_cross_entropy(x, t, w)
    loss.backward(retain_graph=True)
    first = x.grad.clone()
    loss.backward(torch.tensor(2.0))
    assert torch.allclose(x.grad, 3 * first, rtol=2 * EPS[torch.float32], atol=0)


def test_target_gradient_is_that_of_the_clamped_loss():
    """At x = 0 and 1 the loss is clamped (log at -100): its target derivative is finite,
    w (L2 - L1) = +-100 w, where torch 1.13's unclamped formula gives +-inf."""
    x = torch.tensor([0.0, 1.0, 0.5])
    t = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
    openaclnn.binary_cross_entropy(x, t, torch.tensor(2.0), "sum").backward()
    assert torch.equal(t.grad, torch.tensor([200.0, -200.0, 0.0]))


def test_weight_that_requires_grad_raises_as_in_torch():
    _, x, t, w = leaves(5, torch.float32)
    w.requires_grad_()
    with pytest.raises(RuntimeError, match="weight"):
        F.binary_cross_entropy(x, t, w)  # torch 1.13
    with pytest.raises(openaclnn.Error, match="weight") as caught:
        openaclnn.binary_cross_entropy(x, t, w)
    assert isinstance(caught.value, RuntimeError) and caught.value.status == 161002
    with torch.no_grad():  # no graph, nothing to refuse
        assert not openaclnn.binary_cross_entropy(x, t, w).requires_grad


@pytest.mark.filterwarnings("ignore:Input #")  # gradcheck prefers float64, which the C API lacks
def test_gradcheck_in_float32_against_finite_differences():
    gen = torch.Generator().manual_seed(6)
    x = rand(gen, (3, 4), 0.2, 0.8).requires_grad_()
    t = rand(gen, (3, 4), 0.2, 0.8).requires_grad_()
    fn = lambda a, b: openaclnn.binary_cross_entropy(a, b, reduction="sum")
    assert torch.autograd.gradcheck(fn, (x, t), eps=1e-2, atol=2e-3, rtol=1e-2)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_second_derivatives(reduction):
    """d/d(x, t) of <u, dL/dx> + <v, dL/dt> with the first derivatives taken under
    create_graph=True, against torch's float64 double backward (which puts 1e-12 beside x and
    1 - x: negligible for x in [0.01, 0.99])."""
    _, x, t, w = leaves(7, torch.float32)
    results = []
    for make in (lambda a: a, lambda a: wide(a).requires_grad_()):
        xx, tt, ww = make(x), make(t), wide(w).to(make(x).dtype)
        fn = openaclnn.binary_cross_entropy if xx.dtype == torch.float32 else \
            F.binary_cross_entropy
        loss = fn(xx, tt, ww, reduction=reduction)
        g = torch.full(loss.shape, 1.25, dtype=loss.dtype)
        dx, dt = torch.autograd.grad(loss, (xx, tt), g, create_graph=True)
        u = torch.linspace(-1, 1, dx.numel(), dtype=dx.dtype).reshape(dx.shape)
        total = (u * dx).sum() + (u.flip(0) * dt).sum()
        results.append((dx, dt) + torch.autograd.grad(total, (xx, tt), allow_unused=True))
    ours, reference = results
    for got, ref in zip(ours, reference):
        assert got is not None and got.dtype == torch.float32
        assert_close(got, ref, torch.float32, ref.abs().max())


def test_a_third_derivative_raises():
    _, x, t, w = leaves(9, torch.float32, grad_target=False)
    (dx,) = torch.autograd.grad(openaclnn.binary_cross_entropy(x, t, w), x, create_graph=True)
    (ddx,) = torch.autograd.grad(dx.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(ddx.sum(), x)


def test_module_buffer_and_training():
    weight = torch.rand(6) + 0.5
    module = openaclnn.BCELoss(weight=weight)
    assert isinstance(module, torch.nn.Module)
    assert set(dict(module.named_buffers())) == {"weight"} == set(module.state_dict())
    assert not list(module.parameters())
    gen = torch.Generator().manual_seed(10)
    x = rand(gen, (4, 6), 0.01, 0.99).requires_grad_()
    t = rand(gen, (4, 6), 0, 1)
    loss = module(x, t)
    loss.backward()
    xx = wide(x).requires_grad_()
    reference = torch.nn.BCELoss(weight=weight.double())(xx, t.double())
    reference.backward()
    assert_correctly_rounded(loss, reference, torch.float32, rel=1e-13)
    assert_correctly_rounded(x.grad, xx.grad, torch.float32, rel=1e-13)
    assert openaclnn.BCELoss(reduction="none")(x, t).shape == x.shape
    assert module.to(torch.float16).weight.dtype == torch.float16


def test_module_rejects_an_unknown_reduction():
    assert pytest.raises(openaclnn.Error, openaclnn.BCELoss,
                         reduction="avg").value.status == 161002
