"""openaclnn.binary_cross_entropy and binary_cross_entropy_backward (the loss of probabilities)
against a float64 reference, every result correctly rounded in input's dtype: for every dtype,
reduction, weighting and layout, for NumPy arrays and other DLPack producers, at the
boundaries (x at 0, 1 and subnormal, the -100 clamp, the 1e-12 floor), outside [0, 1] (NaN),
for empty inputs; and the errors torch users expect (ValueError, TypeError)."""
import math

import numpy as np
import pytest
import torch

import openaclnn
from openaclnn import _binding
from helpers import (DTYPES, REDUCTIONS, F, assert_correctly_rounded, error_of, layouts, rand,
                     wide)

SHAPE = (6, 5)
WEIGHTS = {"plain": None, "per column": (5,), "full": SHAPE, "per row": (6, 1)}
# fl32(1e-12): the floor of x (1 - x) in the gradient (the contract's, CANN's and torch's)
FLOOR = float(np.float32(1e-12))


def reference_terms(x, t, w=None):
    """-w (t max(ln x, -100) + (1 - t) max(ln(1 - x), -100)) in float64 on the decoded inputs,
    ln(1 - x) as log1p(-x) (good to an ulp of float64)."""
    x, t = wide(x), wide(t)
    log_x = torch.clamp(torch.log(x), min=-100)
    log_1mx = torch.clamp(torch.log1p(-x), min=-100)
    terms = -(t * log_x + (1 - t) * log_1mx)
    return terms if w is None else terms * wide(w)


def reference_loss(x, t, w=None, reduction="mean"):
    terms = reference_terms(x, t, w)
    if reduction == "none":
        return terms
    total = torch.tensor(math.fsum(terms.flatten().tolist()), dtype=torch.float64)
    return total / terms.numel() if reduction == "mean" else total


def reference_gradient(g, x, t, w=None, reduction="mean"):
    """g w (x - t) / max(x (1 - x), fl32(1e-12)), / N for mean, in float64."""
    x, t = wide(x), wide(t)
    d = wide(g) * (x - t) / torch.clamp(x * (1 - x), min=FLOOR)
    if w is not None:
        d = d * wide(w)
    d = d.expand(x.shape)
    return d / x.numel() if reduction == "mean" else d


def probabilities(gen, shape, dtype):
    """x in [0.01, 0.99): below 1 in every dtype, x (1 - x) far above the floor (which torch's
    float64 autograd, the gradient's reference, takes as 1e-12 in float64)."""
    return rand(gen, shape, 0.01, 0.99, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighting", WEIGHTS)
def test_loss_and_gradient_on_every_layout(dtype, reduction, weighting):
    gen = torch.Generator().manual_seed(1)
    w = rand(gen, WEIGHTS[weighting], 0.0, 2.0, dtype) if WEIGHTS[weighting] else None
    xs = list(layouts(gen, SHAPE, dtype, 0.01, 0.99))  # as probabilities() draws them
    ts = list(layouts(gen, SHAPE, dtype, 0.0, 1.0))
    g = rand(gen, () if reduction != "none" else SHAPE, 0.5, 1.5, dtype)
    for (x_layout, x, x_view), (_, t, t_view) in zip(xs, ts[1:] + ts[:1]):
        assert x_view.is_contiguous() == (x_layout == "contiguous")
        loss = openaclnn.binary_cross_entropy(x_view, t_view, w, reduction)
        assert isinstance(loss, torch.Tensor) and loss.dtype == dtype
        assert loss.shape == (SHAPE if reduction == "none" else ())
        assert_correctly_rounded(loss, reference_loss(x, t, w, reduction), dtype)

        # torch's own float64 autograd as the gradient's reference
        xx = wide(x).requires_grad_()
        reference = F.binary_cross_entropy(xx, wide(t), wide(w), reduction=reduction)
        (ref_dx,) = torch.autograd.grad(reference, xx, wide(g))
        dx = openaclnn.binary_cross_entropy_backward(g, x_view, t_view, w, reduction)
        assert dx.dtype == dtype and dx.shape == SHAPE
        assert_correctly_rounded(dx, ref_dx, dtype)


def test_float32_loss_agrees_with_torchs_own_float64():
    """The float64 reference above is torch's loss (where torch's log(1 - x) is exact)."""
    gen = torch.Generator().manual_seed(2)
    x, t, w = probabilities(gen, SHAPE, torch.float32), rand(gen, SHAPE, 0, 1), rand(gen, (5,))
    for reduction in REDUCTIONS:
        torch_loss = F.binary_cross_entropy(wide(x), wide(t), wide(w), reduction=reduction)
        assert torch.allclose(reference_loss(x, t, w, reduction), torch_loss, rtol=1e-14)
        assert_correctly_rounded(openaclnn.binary_cross_entropy(x, t, w, reduction), torch_loss,
                                 torch.float32, rel=1e-13)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_boundary_inputs(dtype):
    """x at 0 and 1 (a log of 0 clamped at -100), the smallest subnormal (ln x < -100 clamped),
    x so small that an fp32 1 - x would be 1 (the loss is x, not 0), x (1 - x) under the floor;
    targets 0, 1 and between."""
    tiny = {torch.float32: 2.0**-149, torch.float16: 2.0**-24, torch.bfloat16: 2.0**-133}[dtype]
    xs = [0.0, 1.0, tiny, 2.0**-30, 1e-8, 2.0**-12, 0.5, 1 - 2.0**-8]
    ts = [0.0, 1.0, 0.25]
    x = torch.tensor([a for a in xs for _ in ts], dtype=torch.float64).to(dtype)
    t = torch.tensor([b for _ in xs for b in ts], dtype=torch.float64).to(dtype)
    w = torch.linspace(0.5, 2, x.numel(), dtype=torch.float64).to(dtype)
    assert torch.count_nonzero(wide(x) == tiny) == len(ts)  # the subnormal is representable
    for reduction in REDUCTIONS:
        assert_correctly_rounded(openaclnn.binary_cross_entropy(x, t, w, reduction),
                                 reference_loss(x, t, w, reduction), dtype)
        g = torch.tensor(1.5 if reduction != "none" else 0.75, dtype=dtype)
        assert_correctly_rounded(openaclnn.binary_cross_entropy_backward(g, x, t, w, reduction),
                                 reference_gradient(g, x, t, w, reduction), dtype)


def test_log_of_one_minus_x_is_exact():
    """x = 1e-8, t = 0: the loss is -ln(1 - x) ~ 1e-8; torch's float32 (and CANN) give 0."""
    x, t = torch.tensor([1e-8]), torch.tensor([0.0])
    loss = openaclnn.binary_cross_entropy(x, t, reduction="sum")
    assert_correctly_rounded(loss, reference_loss(x, t, reduction="sum"), torch.float32)
    assert float(loss) > 0 and F.binary_cross_entropy(x, t, reduction="sum") == 0


def test_values_outside_the_unit_interval_give_nan():
    """Nothing is checked (torch raises): the log of a negative is NaN, where it occurs."""
    x = torch.tensor([-0.5, 1.5, 0.5, -0.0])
    t = torch.tensor([1.0, 0.0, 1.0, 0.0])
    loss = openaclnn.binary_cross_entropy(x, t, reduction="none")
    assert torch.isnan(loss[:2]).all() and torch.isfinite(loss[2:]).all()
    assert torch.isnan(openaclnn.binary_cross_entropy(x, t))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(x, t)  # what torch does instead


@pytest.mark.parametrize("dtype", (np.float32, np.float16))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_numpy_in_numpy_out(dtype, reduction):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.01, 0.99, (9, 7)).astype(dtype).T  # transposed
    t = rng.uniform(0, 1, (7, 9)).astype(dtype)
    w = np.broadcast_to(rng.uniform(0, 2, (1, 9)).astype(dtype), (7, 9))  # stride 0, read-only
    tdt = {np.float32: torch.float32, np.float16: torch.float16}[dtype]
    loss = openaclnn.binary_cross_entropy(x, t, w, reduction)
    assert isinstance(loss, np.ndarray) and loss.dtype == dtype
    assert_correctly_rounded(loss, reference_loss(x, t, np.ascontiguousarray(w), reduction), tdt)
    g = np.asarray(rng.uniform(0.5, 2), dtype=dtype)
    grad = openaclnn.binary_cross_entropy_backward(g, x, t, w, reduction)
    assert isinstance(grad, np.ndarray) and grad.dtype == dtype and grad.shape == x.shape
    assert_correctly_rounded(grad, reference_gradient(g, x, t, np.ascontiguousarray(w),
                                                      reduction), tdt)


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
    gen = torch.Generator().manual_seed(4)
    x = probabilities(gen, (4, 8), dtype)[:, ::2]
    t = rand(gen, (4, 4), 0, 1, dtype)
    loss = openaclnn.binary_cross_entropy(Producer(x), Producer(t), reduction="none")
    # NumPy holds fp32/fp16 results; bfloat16 ones come back as torch tensors
    assert isinstance(loss, torch.Tensor if dtype == torch.bfloat16 else np.ndarray)
    assert_correctly_rounded(torch.as_tensor(loss), reference_loss(x, t, reduction="none"),
                             dtype)


def test_gaps_of_a_view_are_never_read():
    """NaN everywhere a stepped view does not look: a result that read them would be NaN."""
    storage = torch.full((8, 12), float("nan"))
    x = storage[::2, 1::3]
    gen = torch.Generator().manual_seed(5)
    x.copy_(probabilities(gen, x.shape, torch.float32))
    t = rand(gen, x.shape, 0, 1)
    assert_correctly_rounded(openaclnn.binary_cross_entropy(x, t, reduction="sum"),
                             reference_loss(x, t, reduction="sum"), torch.float32)
    g = torch.tensor(1.0)
    assert_correctly_rounded(openaclnn.binary_cross_entropy_backward(g, x, t, reduction="sum"),
                             reference_gradient(g, x, t, reduction="sum"), torch.float32)


def test_empty_and_scalar_inputs():
    empty = torch.empty((0, 3))
    assert openaclnn.binary_cross_entropy(empty, empty, reduction="none").shape == (0, 3)
    assert torch.isnan(openaclnn.binary_cross_entropy(empty, empty))  # as torch
    assert openaclnn.binary_cross_entropy(empty, empty, reduction="sum") == 0
    assert openaclnn.binary_cross_entropy_backward(torch.ones(()), empty, empty).shape == (0, 3)
    x, t = torch.tensor(0.25), torch.tensor(1.0)
    loss = openaclnn.binary_cross_entropy(x, t)
    assert loss.shape == () and loss == torch.tensor(math.log(4), dtype=torch.float32)


def test_result_takes_inputs_dtype_and_kind():
    x16 = torch.tensor([0.25, 0.5], dtype=torch.float16)
    assert openaclnn.binary_cross_entropy(x16, x16).dtype == torch.float16
    bf = torch.tensor([0.25, 0.5], dtype=torch.bfloat16)
    assert openaclnn.binary_cross_entropy(bf, bf, reduction="none").dtype == torch.bfloat16
    x = np.float32([0.25, 0.5])
    assert isinstance(openaclnn.binary_cross_entropy(x, x), np.ndarray)


def test_the_op_table_names_each_ops_family():
    families = {op["api"]: op["family"] for op in _binding.ops()}
    assert families["aclnnBinaryCrossEntropy"] == 1
    assert families["aclnnBinaryCrossEntropyBackward"] == 1
    assert families["aclnnBinaryCrossEntropyWithLogits"] == 0
    assert families["aclnnKlDiv"] == 6
    assert families["aclnnNLLLoss"] == 7
    assert families["aclnnCrossEntropyLoss"] == 8
    assert set(families.values()) <= set(range(9))  # openaclnnOpFamily's values


# -------------------------------------------------------------------------------------------
# Errors

X = np.linspace(0.1, 0.9, 12, dtype=np.float32).reshape(3, 4)
T = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)


def test_target_shape_is_a_value_error_as_in_torch():
    with pytest.raises(ValueError):
        F.binary_cross_entropy(torch.zeros(3), torch.zeros(4))  # what torch itself raises
    with pytest.raises(ValueError) as caught:
        openaclnn.binary_cross_entropy(np.zeros(3, np.float32), np.zeros(4, np.float32))
    error = caught.value
    assert isinstance(error, openaclnn.ShapeError) and error.status == 161002
    assert str(error).startswith("aclnnBinaryCrossEntropy:"), str(error)
    assert "target" in str(error) and "[PID:" not in str(error)


def test_weight_that_does_not_broadcast():
    error = error_of(lambda: openaclnn.binary_cross_entropy(X, T, np.ones(5, np.float32)))
    assert isinstance(error, ValueError) and error.status == 161002
    assert "weight" in str(error), str(error)


def test_gradient_output_that_does_not_broadcast():
    error = error_of(lambda: openaclnn.binary_cross_entropy_backward(
        np.ones((2, 2), np.float32), X, T, reduction="none"))
    assert isinstance(error, ValueError) and error.status == 161002
    assert str(error).startswith("aclnnBinaryCrossEntropyBackward:"), str(error)
    assert "gradOutput" in str(error), str(error)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_])
def test_other_dtypes_are_refused_never_cast(dtype):
    for x, t in ((X.astype(dtype), T), (X, T.astype(dtype))):
        error = error_of(lambda: openaclnn.binary_cross_entropy(x, t))
        assert isinstance(error, TypeError) and isinstance(error, openaclnn.DtypeError)
        assert error.status == 161002 and "dtype" in str(error), str(error)


def test_mixed_dtypes_are_a_type_error():
    """The forward takes target and weight in input's dtype only (torch raises too)."""
    x16 = X.astype(np.float16)
    for call in (lambda: openaclnn.binary_cross_entropy(x16, T),
                 lambda: openaclnn.binary_cross_entropy(X, T, np.ones(4, np.float16))):
        error = error_of(call)
        assert isinstance(error, TypeError) and error.status == 161002, str(error)


def test_torch_float64_is_refused():
    error = error_of(lambda: openaclnn.binary_cross_entropy(
        torch.full((3,), 0.5, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)))
    assert isinstance(error, TypeError) and error.status == 161002 and "DT_DOUBLE" in str(error)


def test_unknown_reduction_and_reversed_views():
    error = error_of(lambda: openaclnn.binary_cross_entropy(X, T, reduction="avg"))
    assert error.status == 161002 and "'avg'" in str(error)
    error = error_of(lambda: openaclnn.binary_cross_entropy(X[::-1], T))
    assert error.status == 161002 and "negative stride" in str(error) and "input" in str(error)


def test_a_failure_leaves_the_next_call_working():
    error_of(lambda: openaclnn.binary_cross_entropy(X.astype(np.float64), T))
    assert np.isfinite(openaclnn.binary_cross_entropy(X, T))
