"""Values of the four functions against PyTorch in float64, for every dtype, reduction,
weighting and layout, and for every kind of caller memory (torch, NumPy, other DLPack)."""
import tracemalloc

import numpy as np
import pytest
import torch

import openaclnn
from helpers import (DTYPES, REDUCTIONS, assert_close, layouts, rand, reference_grads,
                     reference_loss)

SHAPE = (6, 5)
# weight / pos_weight shapes: absent, per column (broadcast), full
WEIGHTINGS = {
    "plain": (None, None),
    "weight": ((5,), None),
    "pos_weight": (None, (5,)),
    "both": (SHAPE, (1, 5)),
}


def operands(seed, dtype, weighting):
    gen = torch.Generator().manual_seed(seed)
    w_shape, p_shape = WEIGHTINGS[weighting]
    w = rand(gen, w_shape, 0.0, 2.0, dtype) if w_shape else None
    p = rand(gen, p_shape, 0.0, 3.0, dtype) if p_shape else None
    return gen, w, p


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_all_functions_on_every_layout(dtype, reduction, weighting):
    gen, w, p = operands(1, dtype, weighting)
    xs = list(layouts(gen, SHAPE, dtype))
    ts = list(layouts(gen, SHAPE, dtype, 0.0, 1.0))
    g = rand(gen, () if reduction != "none" else SHAPE, 0.5, 1.5, dtype)
    for (x_layout, x, x_view), (t_layout, t, t_view) in zip(xs, ts[1:] + ts[:1]):
        assert x_view.is_contiguous() == (x_layout == "contiguous")
        loss = openaclnn.binary_cross_entropy_with_logits(x_view, t_view, w, p, reduction)
        assert isinstance(loss, torch.Tensor) and loss.dtype == dtype
        assert_close(loss, reference_loss(x, t, w, p, reduction), dtype)

        ref_dx, ref_dt = reference_grads(x, t, w, p, reduction, g)
        dx = openaclnn.binary_cross_entropy_with_logits_backward(g, x_view, t_view, w, p,
                                                                 reduction)
        dt = openaclnn.binary_cross_entropy_with_logits_target_backward(g, x_view, t_view, w, p,
                                                                        reduction)
        scale = ref_dx.abs().max()
        assert_close(dx, ref_dx, dtype, scale)
        # the target gradient's terms are w*p*softplus(-x) and w*softplus(x): as large as |x|
        assert_close(dt, ref_dt, dtype, ref_dt.abs().max() + scale * 4)


@pytest.mark.parametrize("dtype", (np.float32, np.float16))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_numpy_in_numpy_out(dtype, reduction):
    rng = np.random.default_rng(2)
    x = rng.uniform(-5, 5, (7, 9)).astype(dtype)
    t = rng.uniform(0, 1, (9, 7)).astype(dtype).T  # transposed
    w = rng.uniform(0, 2, (9,)).astype(dtype)
    p = np.broadcast_to(rng.uniform(0, 2, (1, 9)).astype(dtype), (7, 9))  # stride 0, read-only
    loss = openaclnn.binary_cross_entropy_with_logits(x, t, w, p, reduction)
    assert isinstance(loss, np.ndarray) and loss.dtype == dtype
    tdt = {np.float32: torch.float32, np.float16: torch.float16}[dtype]
    assert_close(loss, reference_loss(x, t, w, np.ascontiguousarray(p), reduction), tdt)
    loss2, grad = openaclnn.binary_cross_entropy_with_logits_and_grad(x, t, w, p, reduction)
    assert isinstance(grad, np.ndarray) and grad.shape == x.shape
    assert_close(grad, reference_grads(x, t, w, np.ascontiguousarray(p), reduction)[0], tdt,
                 np.abs(grad).max())


class Producer:
    """A DLPack producer that is neither NumPy nor torch."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, stream=None):
        return self.tensor.__dlpack__()

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_any_dlpack_producer(dtype):
    gen = torch.Generator().manual_seed(3)
    x = rand(gen, (4, 8), dtype=dtype)[:, ::2]
    t = rand(gen, (4, 4), 0, 1, dtype)
    loss = openaclnn.binary_cross_entropy_with_logits(Producer(x), Producer(t), reduction="none")
    # NumPy holds fp32/fp16 results; bfloat16 ones come back as torch tensors
    assert isinstance(loss, torch.Tensor if dtype == torch.bfloat16 else np.ndarray)
    assert_close(torch.as_tensor(loss), reference_loss(x, t, reduction="none"), dtype)


def test_mixed_dtypes_follow_target():
    gen = torch.Generator().manual_seed(4)
    x = rand(gen, (10,), dtype=torch.float16)
    t = rand(gen, (10,), 0, 1, torch.float32)
    loss = openaclnn.binary_cross_entropy_with_logits(x, t, reduction="none")
    assert loss.dtype == torch.float32
    assert_close(loss, reference_loss(x, t, reduction="none"), torch.float32)


def test_strided_inputs_are_not_copied():
    """Large transposed and stepped NumPy views: the call allocates nothing near their size
    (NumPy reports its allocations to tracemalloc, so a hidden copy would show)."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-3, 3, (1000, 2000)).astype(np.float32).T[::2]
    t = rng.uniform(0, 1, (2000, 2000)).astype(np.float32)[::2, ::2]
    assert not x.flags.c_contiguous and not t.flags.c_contiguous
    tracemalloc.start()
    openaclnn.binary_cross_entropy_with_logits(x, t)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 * 1024, peak
    assert_close(openaclnn.binary_cross_entropy_with_logits(x, t),
                 reference_loss(x, t), torch.float32)


def test_gaps_of_a_view_are_never_read():
    """NaN everywhere a stepped view does not look: a result that read them would be NaN."""
    storage = torch.full((8, 12), float("nan"))
    x = storage[::2, 1::3]
    gen = torch.Generator().manual_seed(6)
    x.copy_(rand(gen, x.shape))
    t = rand(gen, x.shape, 0, 1)
    assert_close(openaclnn.binary_cross_entropy_with_logits(x, t, reduction="sum"),
                 reference_loss(x, t, reduction="sum"), torch.float32)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_one_pass_is_bitwise_the_two_calls(dtype, reduction, weighting):
    gen, w, p = operands(7, dtype, weighting)
    x = rand(gen, (3, 5, 4), dtype=dtype).transpose(0, 2)[:, ::1, 1:]
    t = rand(gen, x.shape, 0, 1, dtype)
    if w is not None or p is not None:
        x, t = rand(gen, SHAPE, dtype=dtype), rand(gen, SHAPE, 0, 1, dtype)
    loss, grad = openaclnn.binary_cross_entropy_with_logits_and_grad(x, t, w, p, reduction)
    one = torch.ones((), dtype=dtype)
    assert torch.equal(loss, openaclnn.binary_cross_entropy_with_logits(x, t, w, p, reduction))
    assert torch.equal(
        grad, openaclnn.binary_cross_entropy_with_logits_backward(one, x, t, w, p, reduction))


def test_empty_and_scalar_inputs():
    empty = torch.empty((0, 3))
    assert openaclnn.binary_cross_entropy_with_logits(empty, empty, reduction="none").shape == (
        0, 3)
    assert torch.isnan(openaclnn.binary_cross_entropy_with_logits(empty, empty))
    assert openaclnn.binary_cross_entropy_with_logits(empty, empty, reduction="sum") == 0
    x, t = torch.tensor(-15.0), torch.tensor(0.0)
    assert_close(openaclnn.binary_cross_entropy_with_logits(x, t), reference_loss(x, t),
                 torch.float32)
