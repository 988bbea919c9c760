"""Autograd through openaclnn.binary_cross_entropy_with_logits and BCEWithLogitsLoss: the
gradients for input and target against float64 autograd of PyTorch's loss."""
import pytest
import torch

import openaclnn
from helpers import DTYPES, REDUCTIONS, F, assert_close, rand, reference_grads

SHAPE = (5, 6)


def leaves(seed, dtype, grad_target=True):
    gen = torch.Generator().manual_seed(seed)
    x = rand(gen, SHAPE, dtype=dtype).t().requires_grad_()  # a transposed leaf
    t = rand(gen, SHAPE[::-1], 0, 1, dtype).requires_grad_(grad_target)
    w = rand(gen, (5,), 0, 2, dtype)
    p = rand(gen, (1, 5), 0, 3, dtype)
    return gen, x, t, w, p


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("grad_output", ["one", "scaled"])
def test_input_and_target_gradients(dtype, reduction, grad_output):
    gen, x, t, w, p = leaves(1, dtype)
    loss = openaclnn.binary_cross_entropy_with_logits(x, t, w, p, reduction)
    assert loss.requires_grad
    g = torch.ones_like(loss) if grad_output == "one" else rand(gen, loss.shape, 0.5, 2, dtype)
    loss.backward(g)
    ref_dx, ref_dt = reference_grads(x, t, w, p, reduction, g)
    # a grad_output of 1 hands the one-pass gradient through; another one scales it in torch
    # (one more rounding)
    assert_close(x.grad, ref_dx, dtype, ref_dx.abs().max())
    assert_close(t.grad, ref_dt, dtype, ref_dt.abs().max() + 4 * ref_dx.abs().max())


def test_sum_of_unreduced_loss_hands_the_gradient_through():
    """loss.sum().backward() gives an expanded grad_output of ones: no scaling pass."""
    _, x, t, w, p = leaves(2, torch.float32, grad_target=False)
    openaclnn.binary_cross_entropy_with_logits(x, t, w, p, "none").sum().backward()
    one = torch.ones(())
    expected = openaclnn.binary_cross_entropy_with_logits_backward(
        one.expand(SHAPE[::-1]), x, t, w, p, "none")
    assert torch.equal(x.grad, expected)


def test_mean_gradient_is_the_one_pass_gradient_bitwise():
    _, x, t, w, p = leaves(3, torch.float32, grad_target=False)
    openaclnn.binary_cross_entropy_with_logits(x, t, w, p).backward()
    _, grad = openaclnn.binary_cross_entropy_with_logits_and_grad(x, t, w, p)
    assert torch.equal(x.grad, grad)
    assert t.grad is None


def test_backward_hands_the_gradient_to_input_grad_without_a_copy():
    """The one-pass gradient becomes input.grad itself: no copy into fresh memory per step."""
    gen = torch.Generator().manual_seed(5)
    x = rand(gen, (64, 64)).requires_grad_()
    t = rand(gen, (64, 64), 0, 1)
    loss = openaclnn.binary_cross_entropy_with_logits(x, t)
    with torch.autograd.profiler.profile() as profile:
        loss.backward()
    copies = [event.name for event in profile.function_events
              if event.name in ("aten::copy_", "aten::clone")]
    assert copies == []


def test_a_retained_graph_gives_the_gradient_again():
    _, x, t, w, p = leaves(6, torch.float32, grad_target=False)
    loss = openaclnn.binary_cross_entropy_with_logits(x, t, w, p)
    loss.backward(retain_graph=True)
    first = x.grad.clone()
    loss.backward(torch.tensor(2.0))
    assert torch.equal(x.grad, first + 2 * first)


def test_target_only():
    gen = torch.Generator().manual_seed(4)
    x = rand(gen, SHAPE)
    t = rand(gen, SHAPE, 0, 1).requires_grad_()
    openaclnn.binary_cross_entropy_with_logits(x, t, reduction="sum").backward()
    assert_close(t.grad, reference_grads(x, t, reduction="sum")[1], torch.float32, 4.0)


@pytest.mark.filterwarnings("ignore:Input #")  # gradcheck prefers float64, which the C API lacks
def test_gradcheck_in_float32_against_finite_differences():
    """torch.autograd.gradcheck's own finite differences (fp32 inputs, so loose tolerances)."""
    gen = torch.Generator().manual_seed(5)
    x = rand(gen, (3, 4), -2, 2).requires_grad_()
    t = rand(gen, (3, 4), 0.2, 0.8).requires_grad_()
    fn = lambda a, b: openaclnn.binary_cross_entropy_with_logits(a, b, reduction="sum")
    assert torch.autograd.gradcheck(fn, (x, t), eps=1e-2, atol=2e-3, rtol=1e-2)


def test_no_grad_mode_builds_no_graph():
    _, x, t, w, p = leaves(6, torch.float32)
    with torch.no_grad():
        assert not openaclnn.binary_cross_entropy_with_logits(x, t, w, p).requires_grad


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weight_and_pos_weight_gradients(reduction):
    """d loss / d weight and d loss / d pos_weight (broadcast shapes, summed back) against
    float64 autograd of the loss written out: -w (p t log sigmoid(x) + (1-t) log sigmoid(-x))."""
    _, x, t, w, p = leaves(7, torch.float32)
    w.requires_grad_()
    p.requires_grad_()
    openaclnn.binary_cross_entropy_with_logits(x, t, w, p, reduction).sum().backward()
    xx, tt, ww, pp = (a.detach().double().requires_grad_() for a in (x, t, w, p))
    loss = ww * (pp * tt * F.softplus(-xx) + (1 - tt) * F.softplus(xx))
    {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction].sum().backward()
    for ours, ref in ((w.grad, ww.grad), (p.grad, pp.grad)):
        assert ours.shape == ref.shape
        assert_close(ours, ref, torch.float32, 4 * ref.abs().max())


def test_module_buffers_and_training():
    weight = torch.rand(6) + 0.5
    pos_weight = torch.full((6,), 2.0)
    module = openaclnn.BCEWithLogitsLoss(weight=weight, pos_weight=pos_weight)
    assert isinstance(module, torch.nn.Module)
    assert set(dict(module.named_buffers())) == {"weight", "pos_weight"}
    assert set(module.state_dict()) == {"weight", "pos_weight"}
    assert not list(module.parameters())
    reference = torch.nn.BCEWithLogitsLoss(weight=weight.double(),
                                           pos_weight=pos_weight.double())
    gen = torch.Generator().manual_seed(8)
    x = rand(gen, (4, 6)).requires_grad_()
    t = rand(gen, (4, 6), 0, 1)
    module(x, t).backward()
    xx = x.detach().double().requires_grad_()
    reference(xx, t.double()).backward()
    assert_close(x.grad, xx.grad, torch.float32, xx.grad.abs().max())
    assert openaclnn.BCEWithLogitsLoss(reduction="none")(x, t).shape == x.shape
    half = module.to(torch.float16)
    assert half.weight.dtype == torch.float16 and half.pos_weight.dtype == torch.float16


def test_module_rejects_an_unknown_reduction():
    assert pytest.raises(openaclnn.Error, openaclnn.BCEWithLogitsLoss,
                         reduction="avg").value.status == 161002
