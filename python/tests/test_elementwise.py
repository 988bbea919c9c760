"""The element-wise losses (mse_loss, l1_loss, smooth_l1_loss, huber_loss, soft_margin_loss,
kl_div): values bitwise the float64 reference rounded once for every reduction, dtype and
broadcast; torch 1.13's semantics (warnings, errors, dtypes, shapes); gradients against float64
autograd, double backward against torch's own; PyTorch's OpInfo samples; NumPy operands."""
import sys
import types
import unittest
import warnings

import numpy as np
import pytest
import torch

import openaclnn
from elementwise_helpers import AVAILABLE, LOSSES, F, each, each_reduction
from helpers import DTYPES, assert_correctly_rounded, rand, wide

# broadcasts of input and target: same shape, target along rows, both ways, 0-d
SHAPES = [((4, 5), (4, 5)), ((4, 5), (5,)), ((4, 1), (1, 5)), ((), ())]


def operands(loss, x_shape, t_shape, dtype, seed=0):
    """x and t of these shapes; for soft_margin_loss, which refuses a target that grows the result
    (as torch), x of the broadcast shape where t would grow it."""
    if loss.name == "soft_margin_loss" and not soft_margin_shapes(x_shape, t_shape):
        x_shape = np.broadcast_shapes(x_shape, t_shape)
    gen = torch.Generator().manual_seed(seed)
    x = rand(gen, x_shape, -4, 4, dtype)
    if loss.name == "kl_div":
        x = rand(gen, x_shape, -5, 0, dtype)  # log-probabilities
    t = rand(gen, t_shape, *loss.target_range, dtype)
    if loss.name == "soft_margin_loss":
        t = torch.where(t >= 0, 1.0, -1.0).to(dtype) if t.dim() else t.sign().to(dtype)
    return x, t


def reference(loss, x, t, reduction, **kwargs):
    """torch's loss in float64 on the values the library reads (exact widenings)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return loss.torch(wide(x), wide(t), reduction=reduction, **{**loss.kwargs, **kwargs})


def soft_margin_exact(x, t, reduction):
    """The soft margin loss in float64 without cancellation: softplus(z), z = -x t (exact)."""
    z = -(wide(x).detach() * wide(t).detach())
    v = torch.where(z > 0, z + torch.log1p(torch.exp(-z)), torch.log1p(torch.exp(z)))
    return {"mean": v.mean, "sum": v.sum}.get(reduction, lambda: v)()


def soft_margin_shapes(x_shape, t_shape):
    return len(t_shape) <= len(x_shape) and np.broadcast_shapes(x_shape, t_shape) == x_shape


@pytest.mark.parametrize("loss, reduction, dtype, shapes", each_reduction(DTYPES, SHAPES))
def test_values_are_the_reference_rounded_once(loss, reduction, dtype, shapes):
    x, t = operands(loss, *shapes, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = loss.ours(x, t, reduction=reduction, **loss.kwargs)
    ref = reference(loss, x, t, reduction)
    assert got.dtype == dtype and got.shape == ref.shape
    assert_correctly_rounded(got, ref, dtype)


@pytest.mark.parametrize("loss", each())
def test_mixed_dtypes_promote_as_torch(loss):
    x, t = operands(loss, (3, 4), (3, 4), torch.float16)
    for t_dtype, promoted in ((torch.bfloat16, torch.float32), (torch.float32, torch.float32)):
        tt = t.to(t_dtype)
        got = loss.ours(x, tt, reduction="none", **loss.kwargs)
        assert got.dtype == promoted == torch.promote_types(x.dtype, tt.dtype)
        assert_correctly_rounded(got, reference(loss, x, tt, "none"), promoted)


@pytest.mark.parametrize("loss, reduction", each_reduction())
def test_numpy_in_numpy_out(loss, reduction):
    x, t = operands(loss, (3, 4), (4,), torch.float32, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = loss.ours(x.numpy(), t.numpy(), reduction=reduction, **loss.kwargs)
        mine = loss.ours(x, t, reduction=reduction, **loss.kwargs)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    assert got.shape == tuple(mine.shape)
    assert np.array_equal(got, mine.numpy(), equal_nan=True)


@pytest.mark.parametrize("loss, reduction", each_reduction())
def test_empty_operands_as_torch(loss, reduction):
    x, t = operands(loss, (0, 3), (0, 3), torch.float32)
    got = loss.ours(x, t, reduction=reduction, **loss.kwargs)
    ref = reference(loss, x, t, reduction)
    assert got.shape == ref.shape
    assert torch.equal(got.double().nan_to_num(7.0), ref.nan_to_num(7.0))


@pytest.mark.parametrize("loss", [loss.param() for loss in LOSSES
                                  if loss.name in ("mse_loss", "l1_loss", "smooth_l1_loss",
                                                   "huber_loss")])
def test_size_mismatch_warns_as_torch(loss):
    x, t = operands(loss, (4, 5), (5,), torch.float32)
    with pytest.warns(UserWarning, match="Using a target size"):
        loss.ours(x, t, **loss.kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss.ours(x, t.expand(4, 5), **loss.kwargs)  # same size: no warning


@pytest.mark.parametrize("loss", [loss.param() for loss in LOSSES
                                  if loss.name in ("soft_margin_loss", "kl_div")])
def test_no_size_warning_where_torch_gives_none(loss):
    x, t = operands(loss, (4, 5), (5,), torch.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss.ours(x, t, reduction="sum", **loss.kwargs)


@pytest.mark.parametrize("loss", [LOSSES[5].param()])
def test_kl_div_mean_warns_as_torch(loss):
    x, t = operands(loss, (2, 3), (2, 3), torch.float32)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        loss.ours(x, t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss.ours(x, t, reduction="batchmean")


@pytest.mark.parametrize("loss", each())
def test_unknown_reduction_is_a_value_error(loss):
    x, t = operands(loss, (2,), (2,), torch.float32)
    with pytest.raises(ValueError) as torch_error:
        loss.torch(x, t, reduction="avg", **loss.kwargs)
    with pytest.raises(openaclnn.ArgumentError) as ours:
        loss.ours(x, t, reduction="avg", **loss.kwargs)
    assert isinstance(ours.value, ValueError) and "'avg'" in str(ours.value)
    assert type(torch_error.value) is ValueError


@pytest.mark.parametrize("loss", each())
def test_legacy_size_average_and_reduce_as_torch(loss):
    if loss.name == "huber_loss":
        pytest.skip("huber_loss has no size_average or reduce")
    x, t = operands(loss, (2, 3), (2, 3), torch.float32)
    for size_average, reduce, reduction in ((False, None, "sum"), (None, False, "none"),
                                            (True, True, "mean")):
        with pytest.warns(UserWarning, match="size_average and reduce"):
            got = loss.ours(x, t, size_average, reduce, **loss.kwargs)
        assert torch.equal(got, loss.ours(x, t, reduction=reduction, **loss.kwargs))


def test_shapes_that_do_not_broadcast():
    x, t = torch.zeros(3, 4), torch.zeros(5)
    for loss in LOSSES:
        if loss.api in AVAILABLE:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(openaclnn.ShapeError):
                    loss.ours(x, t, **loss.kwargs)


def test_soft_margin_refuses_a_target_larger_than_input():
    if "aclnnSoftMarginLoss" not in AVAILABLE:
        pytest.skip("aclnnSoftMarginLoss is not in this library yet")
    x, t = torch.zeros(3), torch.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match"):
        F.soft_margin_loss(x, t)
    with pytest.raises(openaclnn.ShapeError, match=r"output with shape \[3\] doesn't match"):
        openaclnn.soft_margin_loss(x, t)
    assert openaclnn.soft_margin_loss(t, x, reduction="none").shape == (2, 3)
    message = "not differentiable with respect to argument 'target'"
    with pytest.raises(RuntimeError, match=message):
        F.soft_margin_loss(x, x.clone().requires_grad_())
    with pytest.raises(openaclnn.Error, match=message):
        openaclnn.soft_margin_loss(x, x.clone().requires_grad_())
    with torch.no_grad():
        openaclnn.soft_margin_loss(x, x.clone().requires_grad_())


def test_soft_margin_is_exact_where_torch_overflows():
    if "aclnnSoftMarginLoss" not in AVAILABLE:
        pytest.skip("aclnnSoftMarginLoss is not in this library yet")
    x, t = torch.tensor([-100.0]), torch.tensor([1.0])
    assert F.soft_margin_loss(x, t).isinf()
    assert float(openaclnn.soft_margin_loss(x, t)) == 100.0


def test_attribute_errors_as_torch():
    x = torch.zeros(3)
    if "aclnnSmoothL1Loss" in AVAILABLE:
        with pytest.raises(openaclnn.Error):
            openaclnn.smooth_l1_loss(x, x, beta=-1.0)
        assert float(openaclnn.smooth_l1_loss(x + 2, x, beta=0.0)) == 2.0
    if "openaclnnHuberLoss" in AVAILABLE:
        for delta in (0.0, -1.0, float("nan")):
            with pytest.raises(openaclnn.Error):
                openaclnn.huber_loss(x, x, delta=delta)


def test_l1_loss_integers_as_torch():
    a = torch.tensor([5, -3, 2**62], dtype=torch.int64)
    b = torch.tensor([1, 1, -(2**62)], dtype=torch.int64)
    for reduction in ("none", "sum"):
        got = openaclnn.l1_loss(a, b, reduction=reduction)
        assert got.dtype == torch.int64 and torch.equal(got, F.l1_loss(a, b, reduction=reduction))
    with pytest.raises(RuntimeError):
        F.l1_loss(a, b)
    with pytest.raises(openaclnn.Error):
        openaclnn.l1_loss(a, b)
    # an integer beside a float promotes to the float, as torch
    x = torch.tensor([0.5, 1.5, 2.5])
    got = openaclnn.l1_loss(x, a, reduction="none")
    assert got.dtype == torch.float32 and torch.equal(got, F.l1_loss(x, a, reduction="none"))
    got = openaclnn.l1_loss(x.numpy(), a.numpy(), reduction="none")
    assert got.dtype == np.float32  # torch's promotion, not NumPy's float64
    for dtype in (torch.int32, torch.int16, torch.uint8, torch.bool):
        got = openaclnn.l1_loss(x, a.to(dtype), reduction="sum")
        assert got.dtype == torch.float32


def test_integers_refused_where_torch_refuses_them():
    a = torch.tensor([1, 2], dtype=torch.int64)
    for loss in LOSSES:
        if loss.api in AVAILABLE and loss.name != "l1_loss":
            with pytest.raises(RuntimeError):
                loss.torch(a, a, reduction="sum", **loss.kwargs)
            with pytest.raises(openaclnn.Error):
                loss.ours(a, a, reduction="sum", **loss.kwargs)


@pytest.mark.parametrize("loss", each())
def test_modules_are_the_functions(loss):
    module = getattr(openaclnn, loss.module)
    kwargs = {k: v for k, v in loss.kwargs.items()}
    reduction = "batchmean" if loss.name == "kl_div" else "sum"
    criterion = module(reduction=reduction, **kwargs)
    assert isinstance(criterion, torch.nn.Module)
    theirs = getattr(torch.nn, loss.module)(reduction=reduction, **kwargs)
    assert criterion.reduction == theirs.reduction
    x, t = operands(loss, (3, 4), (3, 4), torch.float32)
    assert torch.equal(criterion(x, t), loss.ours(x, t, reduction=reduction, **kwargs))
    with pytest.raises(openaclnn.ArgumentError):
        module(reduction="avg")


def test_dir_lists_the_api_only():
    names = [name for name in dir(openaclnn) if not name.startswith("__")]
    assert sorted(names) == sorted(n for n in openaclnn.__all__ if not n.startswith("__"))
    for name in openaclnn.__all__:
        assert getattr(openaclnn, name) is not None
    assert "np" not in dir(openaclnn) and "sys" not in dir(openaclnn)


def test_op_table_lists_the_attributes():
    ops = {op["api"]: op for op in openaclnn._binding.ops()}
    assert ops["aclnnL1Loss"]["attributes"] == []
    assert [a["name"] for a in ops["aclnnKlDiv"]["attributes"]] == ["logTarget"]
    # run() by name takes them too
    x = np.log(np.float32([0.5, 0.5]))
    t = np.float32([-1.0, 0.0])
    plain, logged = np.empty((), np.float32), np.empty((), np.float32)
    openaclnn._binding.run("aclnnKlDiv", (x, t, plain), 2, [0.0])
    openaclnn._binding.run("aclnnKlDiv", (x, t, logged), 2, [1.0])
    assert np.isnan(plain) and logged == openaclnn.kl_div(x, t, reduction="sum", log_target=True)


# ---------------------------------------------------------------------------------------------
# Gradients

def reference_grads(loss, x, t, reduction, g):
    xx, tt = wide(x).requires_grad_(), wide(t).requires_grad_(loss.target_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = loss.torch(xx, tt, reduction=reduction, **loss.kwargs)
    wanted = (xx, tt) if loss.target_grad else (xx,)
    return torch.autograd.grad(out, wanted, wide(g))


@pytest.mark.parametrize("loss, reduction, dtype, shapes", each_reduction(DTYPES, SHAPES[:3]))
def test_gradients_against_float64_autograd(loss, reduction, dtype, shapes):
    x, t = operands(loss, *shapes, dtype, seed=3)
    x.requires_grad_()
    t.requires_grad_(loss.target_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = loss.ours(x, t, reduction=reduction, **loss.kwargs)
    g = rand(torch.Generator().manual_seed(1), out.shape, 0.5, 2, dtype)
    wanted = (x, t) if loss.target_grad else (x,)
    ours = torch.autograd.grad(out, wanted, g)
    refs = reference_grads(loss, x, t, reduction, g)
    for a, ref, leaf in zip(ours, refs, wanted):
        assert a.dtype == leaf.dtype and a.shape == leaf.shape
        if a.shape == torch.broadcast_shapes(x.shape, t.shape):
            # one library call: the gradient rounded once (g itself is exact in dtype)
            assert_correctly_rounded(a, ref, dtype)
        else:  # summed back in float64 from float32 terms
            bound = 4 * 2.0**-24 * ref.abs().max() + 2 * torch.finfo(dtype).eps * ref.abs()
            assert ((wide(a) - ref).abs() <= bound).all(), (a, ref)


def second_derivatives(fn, x, t, target_grad, seed=4):
    out = fn(x, t)
    gen = torch.Generator().manual_seed(seed)
    g = rand(gen, out.shape, 0.5, 2, torch.float64).to(x.dtype).requires_grad_()
    leaves = (x, t) if target_grad else (x,)
    firsts = torch.autograd.grad(out, leaves, g, create_graph=True)
    directions = [rand(gen, a.shape, -1, 1, torch.float64).to(x.dtype) for a in firsts]
    total = sum((d * f).sum() for d, f in zip(directions, firsts))
    seconds = torch.autograd.grad(total, leaves + (g,), allow_unused=True)
    return firsts, seconds


@pytest.mark.parametrize("loss, reduction", each_reduction())
def test_double_backward_matches_torch(loss, reduction):
    x64, t64 = operands(loss, (4, 5), (5,), torch.float64, seed=8)
    results = []
    for fn, dtype in ((loss.ours, torch.float32), (loss.torch, torch.float32),
                      (loss.torch, torch.float64)):
        x = x64.to(dtype).requires_grad_()
        t = t64.to(dtype).requires_grad_(loss.target_grad)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append(second_derivatives(
                lambda a, b: fn(a, b, reduction=reduction, **loss.kwargs), x, t,
                loss.target_grad))
    ours, theirs, ref = results
    for part in (0, 1):
        for a, b, r in zip(ours[part], theirs[part], ref[part]):
            if r is None:
                assert a is None or not a.abs().max()
                continue
            a = torch.zeros_like(r) if a is None else a.double()
            b = torch.zeros_like(r) if b is None else b.double()
            tolerance = 4 * (b - r).abs().max() + 16 * 2.0**-24 * r.abs().max()
            assert (a - r).abs().max() <= tolerance, (part, a, r)


# ---------------------------------------------------------------------------------------------
# PyTorch's own OpInfo samples (torch.testing._internal.common_methods_invocations.op_db); the
# Debian torch lacks expecttest, which only torch's TestCase needs: a stand-in lets op_db load.

def op_db_entries():
    if "expecttest" not in sys.modules:
        try:
            import expecttest  # noqa: F401
        except ImportError:
            stand_in = types.ModuleType("expecttest")
            stand_in.TestCase, stand_in.ACCEPT = unittest.TestCase, False
            sys.modules["expecttest"] = stand_in
    from torch.testing._internal.common_methods_invocations import op_db
    return {op.name: op for op in op_db}


OPINFO = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss", "kl_div"]


@pytest.mark.parametrize("name", OPINFO)
def test_opinfo_samples(name):
    loss = next(loss for loss in LOSSES if loss.name == name)
    if loss.api not in AVAILABLE:
        pytest.skip(f"{loss.api} is not in this library yet")
    op = op_db_entries()[f"nn.functional.{name}"]
    ours = getattr(openaclnn, name)
    count = 0
    for dtype in (torch.float32, torch.bfloat16):
        for sample in op.sample_inputs("cpu", dtype, requires_grad=True):
            x, (t,), kwargs = sample.input, sample.args, sample.kwargs
            if name == "soft_margin_loss":
                t = t.detach()
            if name == "kl_div" and not kwargs.get("log_target"):
                t = t.detach().abs().requires_grad_()  # probabilities (OpInfo's are any reals)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    ref = getattr(F, name)(wide(x), wide(t), **kwargs)
                except RuntimeError:  # soft_margin_loss: a target that grows the result
                    with pytest.raises(openaclnn.ShapeError):
                        ours(x, t, **kwargs)
                    continue
                got = ours(x, t, **kwargs)
            if name == "soft_margin_loss":  # torch's log(1 + exp(z)) loses tiny terms
                ref = soft_margin_exact(x, t, kwargs.get("reduction", "mean"))
            assert got.dtype == dtype and got.shape == ref.shape, (sample, got)
            assert_correctly_rounded(got, ref, dtype)
            leaves = [a for a in (x, t) if a.requires_grad]
            grads = torch.autograd.grad(got, leaves, torch.ones_like(got))
            xx, tt = wide(x).requires_grad_(), wide(t).requires_grad_(t.requires_grad)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = getattr(F, name)(xx, tt, **kwargs)
            refs = torch.autograd.grad(ref, [a for a in (xx, tt) if a.requires_grad],
                                       torch.ones_like(ref))
            for a, r in zip(grads, refs):
                assert a.shape == r.shape and a.dtype == dtype
                eps = torch.finfo(dtype).eps
                assert ((wide(a) - r).abs() <= 2 * eps * (r.abs() + r.abs().max())).all()
            count += 1
    assert count >= 12
