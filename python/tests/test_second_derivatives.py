"""Second derivatives: with create_graph=True the gradients of the loss are differentiable with
respect to input, target, weight and pos_weight, as torch's are. Compared with torch's double
backward (torch_loss) on the same float32 inputs, the tolerance taken from the float64
reference: ours may be off the float64 result by a few times what torch's float32 result is,
never more."""
import itertools

import pytest
import torch

import openaclnn
from helpers import DTYPES, REDUCTIONS, assert_close, rand

F = torch.nn.functional
WEIGHTINGS = ("none", "weight", "pos_weight", "both")


def operands(seed, weighting, dtype=torch.float64):
    gen = torch.Generator().manual_seed(seed)
    x = rand(gen, (4, 5), -6, 6, dtype)
    t = rand(gen, (4, 5), 0, 1, dtype)
    w = rand(gen, (5,), 0.5, 2, dtype) if weighting in ("weight", "both") else None
    p = rand(gen, (1, 5), 0.5, 3, dtype) if weighting in ("pos_weight", "both") else None
    return gen, [a if a is None else a.requires_grad_() for a in (x, t, w, p)]


def second_derivatives(loss_fn, leaves, reduction, gen_seed):
    """d/d(leaves) of <u, d loss/dx> + <v, d loss/dt> (+ the same for w and p), where the first
    derivatives were taken with create_graph=True under a grad_output g."""
    x, t, w, p = leaves
    loss = loss_fn(x, t, w, p, reduction)
    gen = torch.Generator().manual_seed(gen_seed)
    g = rand(gen, loss.shape, 0.5, 2, torch.float64).to(x.dtype)
    present = [a for a in leaves if a is not None]
    firsts = torch.autograd.grad(loss, present, g, create_graph=True)
    directions = [rand(gen, a.shape, -1, 1, torch.float64).to(x.dtype) for a in present]
    total = sum((d * f).sum() for d, f in zip(directions, firsts))
    return firsts, torch.autograd.grad(total, present, allow_unused=True)


def torch_loss(x, t, w, p, reduction):
    """torch's loss, differentiable in weight and pos_weight also with torch 1.13 (whose
    binary_cross_entropy_with_logits refuses a weight or pos_weight that requires grad): the
    weight multiplies torch's unweighted loss; with a pos_weight the loss is written with torch's
    softplus, -w * (p t log sigmoid(x) + (1 - t) log sigmoid(-x))."""
    if p is None:
        loss = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    else:
        loss = p * t * F.softplus(-x) + (1 - t) * F.softplus(x)
    if w is not None:
        loss = loss * w
    return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]


def check(ours, torch32, reference, what):
    for a, b, ref in zip(ours, torch32, reference):
        if ref is None:  # no dependence at all: ours must agree (None or zeros)
            assert a is None or not a.abs().max(), what
            continue
        a = torch.zeros_like(ref) if a is None else a.double()
        b = torch.zeros_like(ref) if b is None else b.double()
        tolerance = 4 * (b - ref).abs().max() + 16 * 2.0**-24 * ref.abs().max()
        assert (a - ref).abs().max() <= tolerance, (what, (a - ref).abs().max(), tolerance)


@pytest.mark.parametrize("reduction, weighting", itertools.product(REDUCTIONS, WEIGHTINGS))
def test_double_backward_matches_torch(reduction, weighting):
    _, leaves64 = operands(7, weighting)
    leaves32 = [a if a is None else a.detach().float().requires_grad_() for a in leaves64]
    ours = second_derivatives(openaclnn.binary_cross_entropy_with_logits, leaves32, reduction, 3)
    mine32 = [a if a is None else a.detach().clone().requires_grad_() for a in leaves32]
    theirs = second_derivatives(torch_loss, mine32, reduction, 3)
    reference = second_derivatives(torch_loss, leaves64, reduction, 3)
    check(ours[0], theirs[0], reference[0], f"first derivatives, {reduction}, {weighting}")
    check(ours[1], theirs[1], reference[1], f"second derivatives, {reduction}, {weighting}")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_hessian_diagonal_is_the_formula(dtype):
    """d^2 loss / dx^2 per element: g*w*(1+(p-1)*t)*sigmoid(x)*sigmoid(-x), against float64 on
    the same (rounded) values; float16 and bfloat16 too, which torch's own CPU double backward
    cannot do for float16."""
    _, leaves64 = operands(11, "both")
    x, t, w, p = (a.detach().to(dtype) for a in leaves64)
    x.requires_grad_()
    loss = openaclnn.binary_cross_entropy_with_logits(x, t, w, p, "sum")
    (gx,) = torch.autograd.grad(loss, x, create_graph=True)
    (diagonal,) = torch.autograd.grad(gx.sum(), x)
    assert diagonal.dtype == dtype
    xd, td, wd, pd = (a.detach().double() for a in (x, t, w, p))
    expected = wd * (1 + (pd - 1) * td) * torch.sigmoid(xd) * torch.sigmoid(-xd)
    # sigmoid(x) * (1 - sigmoid(x)) cancels where |x| is large: an absolute floor there
    assert_close(diagonal, expected, dtype, expected.abs().max())


def test_first_order_gradient_value_is_the_librarys():
    """Under create_graph the gradient's value still comes from the C API, bit for bit."""
    _, (x, t, w, p) = operands(5, "both", torch.float32)
    loss = openaclnn.binary_cross_entropy_with_logits(x, t, w, p, "mean")
    gx, gt = torch.autograd.grad(loss, (x, t), create_graph=True)
    assert gx.requires_grad and gt.requires_grad
    one = torch.ones(())
    assert torch.equal(gx.detach(), openaclnn.binary_cross_entropy_with_logits_backward(
        one, x.detach(), t.detach(), w.detach(), p.detach()))
    assert torch.equal(gt.detach(), openaclnn.binary_cross_entropy_with_logits_target_backward(
        one, x.detach(), t.detach(), w.detach(), p.detach()))


def test_a_third_derivative_raises_instead_of_being_zero():
    _, (x, t, _, _) = operands(6, "none", torch.float32)
    loss = openaclnn.binary_cross_entropy_with_logits(x, t, reduction="sum")
    (gx,) = torch.autograd.grad(loss, x, create_graph=True)
    (hx,) = torch.autograd.grad(gx.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(hx.sum(), x)
