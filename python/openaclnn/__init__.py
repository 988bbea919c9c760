"""OpenACLNN's binary cross-entropy losses for NumPy and PyTorch.

Two families, as in torch.nn.functional. Of logits ``x``
(:func:`binary_cross_entropy_with_logits`), with targets ``t``, ``weight`` w and ``pos_weight`` p
(both broadcast; absent means 1)::

    l = -w * (p * t * log(sigmoid(x)) + (1 - t) * log(1 - sigmoid(x)))

and of probabilities ``x`` in [0, 1] (:func:`binary_cross_entropy`), each log clamped at -100::

    l = -w * (t * max(log(x), -100) + (1 - t) * max(log(1 - x), -100))

``reduction`` (``"none"``, ``"mean"`` or ``"sum"``) returns l, its mean or its sum.

Every function takes NumPy arrays, PyTorch CPU tensors or any object with ``__dlpack__``, hands
their memory to the library as strided views (no copies, on any layout with non-negative
strides) and returns a result of ``input``'s kind (a torch tensor for a torch input, a NumPy
array otherwise; bfloat16 results, which NumPy cannot hold, are torch tensors): in ``target``'s
dtype for the logits family, in ``input``'s for the probabilities one (as torch). The dtypes are
the C API's: float32, float16, bfloat16; anything else raises
:class:`DtypeError` (a ``TypeError``), never a silent cast; shapes that do not fit raise
:class:`ShapeError` (a ``ValueError``); both are :class:`Error`, whose ``status`` is the aclnn
code (161002 for an invalid parameter). Nothing is logged on stderr unless
``OPENACLNN_LOG_LEVEL`` asks for it. The GIL is released while the library computes; calls from
many threads, and from forked children, are safe and give the serial results bitwise.

Example::

    >>> import numpy as np, openaclnn
    >>> float(openaclnn.binary_cross_entropy_with_logits(np.float32([0.0]), np.float32([1.0])))
    0.6931471824645996

``python -m openaclnn`` prints the version, the library's path, SIMD target and thread count.
"""
import math
import sys
import warnings
from typing import NamedTuple, Optional

import numpy as np

from ._error import ArgumentError, DtypeError, Error, ShapeError, TargetError
from ._version import __version__
from . import _binding

__all__ = [
    "__version__",
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy_with_logits_backward",
    "binary_cross_entropy_with_logits_target_backward",
    "binary_cross_entropy_with_logits_and_grad",
    "BCEWithLogitsLoss",
    "binary_cross_entropy",
    "binary_cross_entropy_backward",
    "BCELoss",
    "mse_loss",
    "MSELoss",
    "l1_loss",
    "L1Loss",
    "smooth_l1_loss",
    "SmoothL1Loss",
    "huber_loss",
    "HuberLoss",
    "soft_margin_loss",
    "SoftMarginLoss",
    "kl_div",
    "KLDivLoss",
    "nll_loss",
    "NLLLoss",
    "cross_entropy",
    "CrossEntropyLoss",
    "Error",
    "ShapeError",
    "DtypeError",
    "ArgumentError",
    "TargetError",
]

_MODULES = ("BCEWithLogitsLoss", "BCELoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
            "SoftMarginLoss", "KLDivLoss", "NLLLoss", "CrossEntropyLoss")

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_KL_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2, "batchmean": 3}
# aclnn's status for an invalid parameter, used for what the binding rejects itself.
_PARAM_INVALID = 161002


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    """The loss, as torch.nn.functional.binary_cross_entropy_with_logits:
    ``l = -w * (p * t * log(sigmoid(x)) + (1 - t) * log(1 - sigmoid(x)))``, element-wise, then
    reduced.

    Args:
        input: logits x, any shape (rank <= 8).
        target: t, input's shape and dtype (float32, float16 or bfloat16).
        weight: w, broadcastable to input's shape, target's dtype, or None.
        pos_weight: p, broadcastable to input's shape, target's dtype, or None.
        reduction: "none" (l, input's shape), "mean" or "sum" (a 0-d result).

    Returns:
        The loss, of input's kind (NumPy or torch) and target's dtype. With torch tensors that
        require grad (and grad mode on) it is differentiable with respect to input, target,
        weight and pos_weight, twice (``create_graph=True``) as torch's is.

    Raises:
        ShapeError: shapes that do not fit (also a ValueError).
        DtypeError: a dtype other than float32/float16/bfloat16, or mixed dtypes (TypeError).
        Error: any other rejected argument (an unknown reduction, a reversed view, ...).

    Example::

        >>> x = torch.tensor([0.0, 0.0], requires_grad=True)
        >>> loss = openaclnn.binary_cross_entropy_with_logits(x, torch.tensor([1.0, 0.0]))
        >>> loss.backward()
        >>> x.grad
        tensor([-0.2500,  0.2500])
    """
    if _needs_autograd(input, target, weight, pos_weight):
        from ._torch import loss_with_autograd
        return loss_with_autograd(input, target, weight, pos_weight, reduction)
    code = _reduction_code(reduction)
    input, target, weight, pos_weight = _natives(input, target, weight, pos_weight)
    out = _result(input, target, () if code else input.shape)
    _binding.forward(input, target, weight, pos_weight, code, out)
    return out


def binary_cross_entropy_with_logits_backward(grad_output, input, target, weight=None,
                                              pos_weight=None, reduction="mean"):
    """d loss / d input times ``grad_output``: ``grad_output * w * ((1 + (p - 1) * t) *
    sigmoid(x) - p * t)``, divided by the element count for "mean".

    ``grad_output`` has one element for "mean" and "sum"; for "none", any shape that broadcasts
    into input's. The other arguments, the result (input's shape, target's dtype) and what is
    raised are as for :func:`binary_cross_entropy_with_logits`. Not differentiable itself (use
    torch.autograd with ``create_graph=True`` for second derivatives).

    Example::

        >>> x, t = np.float32([0.0, 0.0]), np.float32([1.0, 0.0])
        >>> openaclnn.binary_cross_entropy_with_logits_backward(np.float32([1]), x, t)
        array([-0.25,  0.25], dtype=float32)
    """
    return _gradient(_binding.backward, grad_output, input, target, weight, pos_weight,
                     reduction)


def binary_cross_entropy_with_logits_target_backward(grad_output, input, target, weight=None,
                                                     pos_weight=None, reduction="mean"):
    """d loss / d target times ``grad_output``: ``-grad_output * w * ((p - 1) *
    log(sigmoid(x)) + x)``, divided by the element count for "mean". Arguments, result and errors as for
    :func:`binary_cross_entropy_with_logits_backward`.

    Example::

        >>> x, t = np.float32([1.0, -2.0]), np.float32([1.0, 0.0])
        >>> openaclnn.binary_cross_entropy_with_logits_target_backward(np.float32([1]), x, t,
        ...                                                            reduction="sum")
        array([-1.,  2.], dtype=float32)
    """
    return _gradient(_binding.target_backward, grad_output, input, target, weight, pos_weight,
                     reduction)


def binary_cross_entropy_with_logits_and_grad(input, target, weight=None, pos_weight=None,
                                              reduction="mean"):
    """(loss, d loss / d input for grad_output = 1) in one pass over the inputs; bitwise what
    :func:`binary_cross_entropy_with_logits` and
    :func:`binary_cross_entropy_with_logits_backward` give. Arguments and errors as for the
    loss; the gradient has input's shape. Not differentiable (NumPy-style use, training loops
    that call backward by hand).

    Example::

        >>> x, t = np.float32([0.0, 0.0]), np.float32([1.0, 0.0])
        >>> loss, grad = openaclnn.binary_cross_entropy_with_logits_and_grad(x, t, reduction="sum")
        >>> float(loss), grad
        (1.3862943649291992, array([-0.5,  0.5], dtype=float32))
    """
    code = _reduction_code(reduction)
    input, target, weight, pos_weight = _natives(input, target, weight, pos_weight)
    loss = _result(input, target, () if code else input.shape)
    grad = _result(input, target, input.shape)
    _binding.forward_and_grad(input, target, weight, pos_weight, code, loss, grad)
    return loss, grad


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """The loss of probabilities, as torch.nn.functional.binary_cross_entropy:
    ``l = -w * (t * max(log(x), -100) + (1 - t) * max(log(1 - x), -100))``, element-wise, then
    reduced. Each result is the exact value rounded once to input's dtype (``log(1 - x)`` exact,
    not of a rounded ``1 - x``; mean and sum the exact sum rounded once).

    Args:
        input: probabilities x in [0, 1], any shape (rank <= 8), float32, float16 or bfloat16.
        target: t, input's shape and dtype.
        weight: w, broadcastable to input's shape, input's dtype, or None.
        reduction: "none" (l, input's shape), "mean" or "sum" (a 0-d result).

    Returns:
        The loss, of input's kind (NumPy or torch) and dtype. An empty input gives NaN for
        "mean" and 0 for "sum", as torch. An x outside [0, 1] gives NaN where it occurs (the log
        of a negative, as CANN's kernels give it), where torch raises: nothing is checked.
        With torch tensors that require grad (and grad mode on) it is differentiable with
        respect to input (the library's :func:`binary_cross_entropy_backward`) and target
        (``w * (max(log(1 - x), -100) - max(log(x), -100))``, a torch expression: the library
        has no such op), twice (``create_graph=True``) for input as torch's is. A weight that
        requires grad raises openaclnn.Error (a RuntimeError), as torch 1.13 does.

    Raises:
        ShapeError: a target whose shape is not input's, a weight that does not broadcast into
            input (also a ValueError).
        DtypeError: a dtype other than float32/float16/bfloat16, or a target or weight of
            another dtype than input's (TypeError).
        Error: any other rejected argument (an unknown reduction, a reversed view, ...).

    Example::

        >>> x = torch.tensor([0.5, 0.25], requires_grad=True)
        >>> loss = openaclnn.binary_cross_entropy(x, torch.tensor([1.0, 0.0]), reduction="sum")
        >>> float(loss)
        0.9808292388916016
        >>> loss.backward()
        >>> x.grad
        tensor([-2.0000,  1.3333])
    """
    if _needs_autograd(input, target, weight):
        from ._torch import probabilities_loss_with_autograd
        return probabilities_loss_with_autograd(input, target, weight, reduction)
    code = _reduction_code(reduction)
    input, target, weight = _natives(input, target, weight)
    out = _result(input, input, () if code else input.shape)
    _binding.binary_cross_entropy(input, target, weight, code, out)
    return out


def binary_cross_entropy_backward(grad_output, input, target, weight=None, reduction="mean"):
    """d loss / d input times ``grad_output`` for :func:`binary_cross_entropy`:
    ``grad_output * w * (x - t) / max(x * (1 - x), 1e-12)`` (1e-12 rounded to float32, as CANN
    and torch apply it), divided by the element count for "mean"; each result the exact value
    rounded once.

    ``grad_output`` (one element, as autograd hands it down from "mean" and "sum", or any
    shape), target and weight broadcast into input's shape. The operands' dtypes may differ
    (the C API promotes them); the result has input's shape and dtype. Errors as for
    :func:`binary_cross_entropy`. Not differentiable itself (use torch.autograd with
    ``create_graph=True`` for second derivatives).

    Example::

        >>> x, t = np.float32([0.5, 0.25]), np.float32([1.0, 0.0])
        >>> openaclnn.binary_cross_entropy_backward(np.float32(1), x, t, reduction="sum")
        array([-2.       ,  1.3333334], dtype=float32)
    """
    return _probabilities_gradient(_reduction_code(reduction), grad_output, input, target,
                                   weight)


# ---------------------------------------------------------------------------------------------
# The element-wise losses of x (input) and t (target), each over the broadcast shape B of x and
# t: torch.nn.functional's functions, computed by the library (every value, mean and sum the
# exact one rounded once).

class _Loss(NamedTuple):
    """One element-wise loss: torch's name for it and its C APIs (loss, input gradient, target
    gradient; None: the input gradient's API with input and target swapped, which is the target
    gradient of a loss of x - t that is even in it)."""
    name: str
    loss: str
    backward: str
    target_backward: Optional[str]
    target_differentiable: bool = True


_MSE = _Loss("mse_loss", "aclnnMseLoss", "aclnnMseLossBackward", None)
_L1 = _Loss("l1_loss", "aclnnL1Loss", "aclnnL1LossBackward", None)
_SMOOTH_L1 = _Loss("smooth_l1_loss", "aclnnSmoothL1Loss", "aclnnSmoothL1LossBackward", None)
_HUBER = _Loss("huber_loss", "openaclnnHuberLoss", "openaclnnHuberLossBackward", None)
_SOFT_MARGIN = _Loss("soft_margin_loss", "aclnnSoftMarginLoss", "aclnnSoftMarginLossBackward",
                     None, target_differentiable=False)
_KL_DIV = _Loss("kl_div", "aclnnKlDiv", "aclnnKlDivBackward", "aclnnKlDivTargetBackward")

_SHAPES_ARGUMENTS = """
    Args:
        input: x, any shape (rank <= 8).
        target: t, a shape that broadcasts with input's (torch warns, and so does this,
            where it is not input's shape).
        size_average, reduce: torch's deprecated pair; when either is given it sets the
            reduction (with torch's warning).
        reduction: "none" (input's and target's broadcast shape), "mean" or "sum" (0-d)."""


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The mean squared error, as torch.nn.functional.mse_loss: ``l = (x - t)^2`` element-wise
    over the broadcast of input and target, then reduced; each value, and a mean's or sum's
    total, the exact one rounded once.
    {shapes}

    Returns:
        The loss, of input's kind (NumPy or torch; bfloat16 results are torch tensors), in the
        dtype torch promotes input's and target's to (float32, float16 or bfloat16; bfloat16
        too, which torch 1.13's CPU kernel lacks). With torch tensors that require grad it is
        differentiable with respect to input (the library's MseLossBackward, summed back to
        input's shape where it was broadcast) and target (the same with the two swapped), twice
        (``create_graph=True``) as torch's is.

    Raises:
        ShapeError: shapes that do not broadcast (also a ValueError).
        DtypeError: integer, float64 or complex operands (a TypeError; torch raises too).
        ArgumentError: an unknown reduction (a ValueError, as torch's).

    Example::

        >>> float(openaclnn.mse_loss(np.float32([1, 2]), np.float32([0, 0])))
        2.5
    """
    input, target = _natives(input, target)
    _warn_if_sizes_differ(input, target)
    code = _legacy_reduction(size_average, reduce, reduction)
    return _elementwise(_MSE, input, target, code, ())


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The mean absolute error, as torch.nn.functional.l1_loss: ``l = |x - t|`` element-wise
    over the broadcast of input and target, then reduced; each value, and a mean's or sum's
    total, the exact one rounded once.
    {shapes}

    Returns:
        The loss, of input's kind, in the dtype torch promotes input's and target's to: float32,
        float16, bfloat16, or int64 (two's-complement, wrapping as torch's: "none" and "sum"
        only, as in torch). With torch tensors that require grad it is differentiable with
        respect to input (the library's L1LossBackward, ``g sign(x - t)``, summed back to
        input's shape where it was broadcast) and target (the same with the two swapped), twice
        as torch's is (the second derivatives are 0).

    Raises:
        ShapeError: shapes that do not broadcast.
        DtypeError: integers with reduction "mean" (torch raises too), integer operands that do
            not promote to int64 or a float (int32 with int32: torch computes those), float64.
        ArgumentError: an unknown reduction.

    Example::

        >>> openaclnn.l1_loss(np.int64([5, -3]), np.int64([1, 1]), reduction="none")
        array([4, 4])
    """
    input, target = _natives(input, target)
    _warn_if_sizes_differ(input, target)
    code = _legacy_reduction(size_average, reduce, reduction)
    return _elementwise(_L1, input, target, code, ())


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """The smooth L1 loss, as torch.nn.functional.smooth_l1_loss: with d = x - t,
    ``l = 0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``|d|`` for
    beta = 0), element-wise over the broadcast of input and target, then reduced; each value
    and total the exact one rounded once.
    {shapes}
        beta: the threshold, >= 0, taken as float32 (as the C API's float).

    Returns:
        The loss, of input's kind, in the promoted dtype (float32, float16, bfloat16).
        Differentiable with respect to input (the library's SmoothL1LossBackward, summed back to
        input's shape where it was broadcast) and target (the same with the two swapped), twice
        as torch's is.

    Raises:
        Error: a negative beta (a RuntimeError, as torch's).
        ShapeError, DtypeError, ArgumentError: as for :func:`mse_loss`.

    Example::

        >>> openaclnn.smooth_l1_loss(np.float32([0.5, 3]), np.float32([0, 0]), reduction="none")
        array([0.125, 2.5  ], dtype=float32)
    """
    input, target = _natives(input, target)
    _warn_if_sizes_differ(input, target)
    code = _legacy_reduction(size_average, reduce, reduction)
    return _elementwise(_SMOOTH_L1, input, target, code, (float(beta),))


def huber_loss(input, target, reduction="mean", delta=1.0):
    """The Huber loss, as torch.nn.functional.huber_loss: with d = x - t, ``l = 0.5 d^2`` where
    ``|d| < delta``, else ``delta (|d| - 0.5 delta)``, element-wise over the broadcast of input
    and target, then reduced; each value and total the exact one rounded once.

    Args:
        input, target: as for :func:`mse_loss`.
        reduction: "none", "mean" or "sum".
        delta: the threshold, > 0 (a double, as the C API takes it).

    Returns:
        The loss, of input's kind, in the promoted dtype. Differentiable with respect to input
        (the library's HuberLossBackward, summed back to input's shape where it was broadcast)
        and target (the same with the two swapped), twice as torch's is.

    Raises:
        Error: delta <= 0 or NaN (a RuntimeError, as torch's).
        ShapeError, DtypeError, ArgumentError: as for :func:`mse_loss`.

    Example::

        >>> x = np.float32([0.5, 3])
        >>> openaclnn.huber_loss(x, np.zeros_like(x), reduction="none", delta=2.0)
        array([0.125, 4.   ], dtype=float32)
    """
    input, target = _natives(input, target)
    _warn_if_sizes_differ(input, target)
    return _elementwise(_HUBER, input, target, _reduction_code(reduction), (float(delta),))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The soft margin loss, as torch.nn.functional.soft_margin_loss: ``l = log(1 + exp(-t x))``
    element-wise, then reduced; each value and total the exact one rounded once (so finite
    where torch's literal formula overflows to inf, e.g. 100 for x = -100, t = 1).

    Args:
        input: x, any shape (rank <= 8).
        target: t (any real numbers, usually +-1), a shape that broadcasts into input's: a
            target that would grow the result is refused, as torch refuses it.
        size_average, reduce: torch's deprecated pair (see :func:`mse_loss`).
        reduction: "none" (input's shape), "mean" or "sum" (0-d).

    Returns:
        The loss, of input's kind, in the promoted dtype (float16 too, which torch 1.13's CPU
        kernel lacks). Differentiable with respect to input (the library's
        SoftMarginLossBackward, summed back where input was broadcast), twice as torch's is; a
        target that requires grad raises Error (a RuntimeError), as torch.

    Raises:
        ShapeError: a target that does not broadcast into input's shape.
        Error: a target that requires grad (with grad mode on).
        DtypeError, ArgumentError: as for :func:`mse_loss`.

    Example::

        >>> float(openaclnn.soft_margin_loss(np.float32([-100]), np.float32([1])))
        100.0
    """
    input, target = _natives(input, target)
    shape = _broadcast_shape(input.shape, target.shape)
    if shape != tuple(input.shape):
        raise ShapeError(_PARAM_INVALID, f"output with shape {list(input.shape)} doesn't match "
                         f"the broadcast shape {list(shape)}")
    code = _legacy_reduction(size_average, reduce, reduction)
    return _elementwise(_SOFT_MARGIN, input, target, code, ())


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """The Kullback-Leibler divergence, as torch.nn.functional.kl_div: of log-probabilities x
    from probabilities t, ``l = t (log t - x)`` (0 where t = 0, NaN where t < 0), or from
    log-probabilities t (``log_target=True``), ``l = exp(t) (t - x)``; element-wise over the
    broadcast of input and target, then reduced; each value and total the exact one rounded
    once.

    Args:
        input: x, any shape (rank <= 8).
        target: t, a shape that broadcasts with input's (either way, as torch, without a
            warning).
        size_average, reduce: torch's deprecated pair (see :func:`mse_loss`).
        reduction: "none", "mean" (the sum over the element count; torch's warning that
            "batchmean" is the divergence), "batchmean" (the sum over input's first dimension,
            1 for a 0-d input) or "sum".
        log_target: whether target holds log-probabilities.

    Returns:
        The loss, of input's kind, in the promoted dtype (float32, float16, bfloat16).
        Differentiable with respect to input (the library's KlDivBackward, summed to input's
        shape by the library) and target (KlDivTargetBackward: ``log t + 1 - x``, or
        ``exp(t) (t - x + 1)``), twice as torch's is.

    Raises:
        ShapeError, DtypeError (integers, as torch refuses them), ArgumentError: as for
        :func:`mse_loss`.

    Example::

        >>> p = np.float32([0.25, 0.75])
        >>> float(openaclnn.kl_div(np.log(np.float32([0.5, 0.5])), p, reduction="sum"))
        0.13081203401088715
    """
    if size_average is not None or reduce is not None:
        code = _legacy_reduction(size_average, reduce, reduction)
    else:
        code = _reduction_code(reduction, _KL_REDUCTIONS)
        if code == 1:
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
    return _elementwise(_KL_DIV, input, target, code, (1.0 if log_target else 0.0,))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """The negative log likelihood, as torch.nn.functional.nll_loss: of log-probabilities x along
    the class dimension (dimension 1; 0 of a 1-d input), ``l = -w[t] x[t]`` per position with
    target t, 0 where t == ignore_index; the mean divides the sum by the total weight of the
    targets that count. Each value, sum and mean is the exact one rounded once.

    Args:
        input: x of shape (C), (N, C) or (N, C, d1, ..., dk), float32, float16 or bfloat16.
        target: class indices of input's shape without the class dimension, int64 (or another
            integer type), each in [0, C) or equal to ignore_index.
        weight: one weight per class, (C), input's dtype; None: all 1.
        size_average, reduce: torch's deprecated pair (see :func:`mse_loss`).
        ignore_index: the target value that counts for nothing (negative ones too).
        reduction: "none" (target's shape), "mean" or "sum" (0-d).

    Returns:
        The loss, of input's kind and dtype. With torch tensors that require grad it is
        differentiable with respect to input (the library's NLLLossBackward), twice as torch's
        is.

    Raises:
        TargetError: a target outside [0, C) that is not ignore_index (an IndexError, as torch's).
        ShapeError: an input of rank 0 or a target of another shape (a ValueError).
        DtypeError, ArgumentError: as for :func:`mse_loss`.

    Example::

        >>> x = np.log(np.float32([[0.25, 0.75], [0.5, 0.5]]))
        >>> float(openaclnn.nll_loss(x, np.int64([1, 0]), reduction="sum"))
        0.9808292388916016
    """
    input, target, weight = _natives(input, target, weight)
    code = _legacy_reduction(size_average, reduce, reduction)
    if _needs_autograd(input, weight):
        from ._torch import nll_loss_with_autograd
        return nll_loss_with_autograd(input, target, weight, ignore_index, code)
    return _nll_loss(input, target, weight, ignore_index, code)[0]


def _class_axis(input, target):
    """input and target as the class-axis APIs take them: (C) with (), (N, C) with (N), or
    (N, C, H, W) with (N, H, W) (more dimensions after C are flattened into H, with W = 1), and
    the name of the op that takes them ("2d" or "")."""
    _check_class_target(input, target)
    shape = tuple(input.shape)
    if len(shape) <= 2 or len(shape) == 4:
        return input, target, "2d" if len(shape) == 4 else ""
    rest = math.prod(shape[2:])
    return (input.reshape(shape[0], shape[1], rest, 1), target.reshape(shape[0], rest, 1), "2d")


def _class_dimension(shape):
    """The class dimension of a class-axis input shape: 1, or 0 of a 1-d shape; 0-d raises."""
    if len(shape) == 0:
        raise ShapeError(_PARAM_INVALID, "input must have a class dimension: (C), (N, C) or "
                         "(N, C, d1, ..., dk), not a 0-d tensor")
    return 0 if len(shape) == 1 else 1


def _positions(shape):
    """A class-axis input shape without its class dimension: the shape of class-index targets
    and of a loss per position."""
    shape = tuple(shape)
    return shape[:_class_dimension(shape)] + shape[2:]


def _check_class_target(input, target):
    expected = _positions(input.shape)
    if tuple(target.shape) != expected:
        raise ShapeError(_PARAM_INVALID, f"target shape {list(target.shape)} must be input "
                         f"shape {list(input.shape)} without its class dimension, "
                         f"{list(expected)}")


def _nll_loss(input, target, weight, ignore_index, code):
    """aclnnNLLLoss(2d) into new results of input's kind and dtype: the loss and the total
    weight (0-d)."""
    x, t, variant = _class_axis(input, target)
    classes = input.shape[_class_dimension(input.shape)]
    if weight is None:
        weight = _result(input, input, (classes,))
        weight[...] = 1
    loss = _result(input, input, t.shape if code == 0 and input.ndim > 1 else ())
    total = _result(input, input, ())
    _binding.run("aclnnNLLLoss" + variant, (x, t, weight, loss, total), code,
                 (float(ignore_index),))
    if code == 0 and input.ndim > 1:
        loss = loss.reshape(target.shape)
    return loss, total


def _nll_loss_backward(grad_output, input, target, weight, ignore_index, code, total):
    """aclnnNLLLoss(2d)Backward into a new result of input's kind, shape and dtype."""
    x, t, variant = _class_axis(input, target)
    if code == 0 and input.ndim > 1:
        grad_output = grad_output.reshape(t.shape)
    out = _result(input, input, x.shape)
    _binding.run("aclnnNLLLoss" + variant + "Backward",
                 (grad_output, x, t, weight, total, out), code, (float(ignore_index),))
    return out.reshape(input.shape)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """The cross entropy of logits, as torch.nn.functional.cross_entropy: with lp = log_softmax(x)
    along the class dimension (dimension 1; 0 of a 1-d input) and eps = label_smoothing,
    per position ``l = -sum_c w[c] q[c] lp[c]``, q the target smoothed: for class index t,
    ``q[c] = (1 - eps) [c = t] + eps / C`` (0 where t == ignore_index); for probabilities p,
    ``q = (1 - eps) p + eps / C``. The mean divides the sum by the total weight ``w[t]`` of the
    class indices that count, or by the number of positions for probabilities.

    Args:
        input: logits x of shape (C), (N, C) or (N, C, d1, ..., dk), float32, float16 or
            bfloat16 (float16 too, which torch 1.13's CPU kernels lack).
        target: class indices of input's shape without the class dimension, int64 (or int32,
            which torch refuses), each in [0, C) or equal to ignore_index; or probabilities,
            input's shape and dtype (torch promotes mixed dtypes instead).
        weight: one weight per class, (C), input's dtype; None: all 1.
        size_average, reduce: torch's deprecated pair (see :func:`mse_loss`).
        ignore_index: the class index that counts for nothing (negative ones too); with
            probabilities it must be negative, as in torch.
        reduction: "none" (input's shape without the class dimension), "mean" or "sum" (0-d).
        label_smoothing: eps in [0, 1]; outside it raises (torch reads a negative or NaN eps
            as 0 and raises only above 1).

    Returns:
        The loss, of input's kind and dtype. Of class indices (the library's CrossEntropyLoss
        on the positions as rows (M, C): an input with dimensions after C is copied into them),
        each value, sum and mean is the exact one rounded once. Of probabilities (the library
        has no such op), the library's float32 log-probabilities (of the exactly widened logits
        for float16 and bfloat16), each the exact one rounded once, are weighted and summed in
        float64 and the sum is rounded once to input's dtype: not always the exact value
        rounded once, but within about an ulp of it for non-negative weights (and nearly always
        it in float16 and bfloat16).

        With torch tensors that require grad it is differentiable with respect to input, and
        target where it holds probabilities (``-(1 - eps) w[c] lp[c]``, in float64 from the
        same float32 log-probabilities, rounded once), twice as torch's is (the second
        derivatives are torch's own float64 formulas; a third derivative raises). The input
        gradient of class indices is the library's CrossEntropyLossGrad in float32: the exact
        gradient for the forward's float32 log-probabilities, rounded once (to float32; for
        float16 and bfloat16 inputs then rounded again to theirs). It is not exact with
        respect to the logits: ``exp(lp)`` of a log-probability rounded to float32 is off by up
        to ``|lp| 2^-24`` relatively. Of probabilities: ``(sum_c w[c] q[c]) exp(lp) - w q``
        per position, in float64 from those log-probabilities, rounded once. A weight that
        requires grad raises Error (as torch's for class indices; torch differentiates it for
        probabilities).

    Raises:
        TargetError: a class index outside [0, C) that is not ignore_index (an IndexError, as
            torch's).
        ShapeError: an input of rank 0, a target of another shape, a weight not of shape (C)
            (a ValueError).
        DtypeError: a dtype other than float32/float16/bfloat16, a weight or probabilities of
            another dtype than input's, class indices not int64/int32 (a TypeError).
        ArgumentError: an unknown reduction, label_smoothing outside [0, 1], ignore_index >= 0
            with probabilities (a ValueError).

    Example::

        >>> x = np.float32([[0.0, 0.0], [2.0, 0.0]])
        >>> float(openaclnn.cross_entropy(x, np.int64([1, 0]), reduction="sum"))
        0.8200752139091492
    """
    input, target, weight = _natives(input, target, weight)
    code = _legacy_reduction(size_average, reduce, reduction)
    params = _cross_entropy_params(input, target, weight, code, ignore_index, label_smoothing)
    if _needs_autograd(input, target, weight):
        from ._torch import cross_entropy_with_autograd
        return cross_entropy_with_autograd(input, target, weight, params)
    return _cross_entropy(input, target, weight, params)[0]


class _CrossEntropyParams(NamedTuple):
    """cross_entropy's arguments past its operands (checked); `probabilities`: whether target
    holds probabilities (input's shape, as torch tells them apart) or class indices."""
    code: int
    ignore_index: int
    label_smoothing: float
    probabilities: bool


def _cross_entropy_params(input, target, weight, code, ignore_index, label_smoothing):
    """The checked _CrossEntropyParams, with torch's exception kinds and messages where the
    library's would not be (the probabilities' checks, which no op of it makes)."""
    if not 0 <= label_smoothing <= 1:
        raise ArgumentError(_PARAM_INVALID, "label_smoothing must be between 0.0 and 1.0. Got: "
                            f"{label_smoothing}")
    classes = input.shape[_class_dimension(input.shape)]
    if weight is not None and tuple(weight.shape) != (classes,):
        raise ShapeError(_PARAM_INVALID, f"weight tensor should be defined either for all "
                         f"{classes} classes or no classes but got weight tensor of shape: "
                         f"{list(weight.shape)}")
    if weight is not None:
        _check_dtype_is_inputs("weight", weight, input)
    probabilities = tuple(input.shape) == tuple(target.shape)
    if not probabilities:
        _check_class_target(input, target)
        return _CrossEntropyParams(code, int(ignore_index), float(label_smoothing), False)
    if _dtype_name(target) not in _FLOATS:
        raise DtypeError(_PARAM_INVALID, "Expected floating point type for target with class "
                         f"probabilities, got {_dtype_name(target)}")
    _check_dtype_is_inputs("target", target, input)
    if ignore_index >= 0:
        raise ArgumentError(_PARAM_INVALID, "ignore_index is not supported for floating point "
                            "target")
    return _CrossEntropyParams(code, int(ignore_index), float(label_smoothing), True)


def _check_dtype_is_inputs(name, operand, input):
    if _dtype_name(operand) != _dtype_name(input):
        raise DtypeError(_PARAM_INVALID, f"{name} dtype {_dtype_name(operand)} must be input's, "
                         f"{_dtype_name(input)}")


def _cross_entropy(input, target, weight, params, keep_log_prob=False):
    """The loss into a new result of input's kind and dtype, and the float32 log-probabilities
    of input's rows (M, C) where computed (always for probabilities; with keep_log_prob for
    class indices, for the gradient), else None."""
    rows, weight = _rows(input), _widened(weight)
    shape = _positions(input.shape) if params.code == 0 else ()
    if params.probabilities:
        log_prob = _log_probabilities(_widened(rows))
        loss = _soft_target_loss(log_prob, _rows(target), weight, params)
        return _rounded(loss.reshape(shape), input), log_prob
    loss = _result(input, input, (rows.shape[0],) if params.code == 0 else ())
    log_prob = _result(input, input, rows.shape)
    _run_cross_entropy(rows, target.reshape(-1), weight, params, loss, log_prob)
    if not keep_log_prob:
        log_prob = None
    elif _dtype_name(input) != "float32":  # float16's would put |lp| 2^-11 into exp(lp)
        log_prob = _log_probabilities(_widened(rows))
    return loss.reshape(shape), log_prob


def _run_cross_entropy(rows, target, weight, params, loss, log_prob):
    """aclnnCrossEntropyLoss on rows (M, C) and targets (M) into loss and log_prob; its zloss
    outputs, required but never written, are empty."""
    unused = _result(rows, rows, (0,))
    _binding.run("aclnnCrossEntropyLoss", (rows, target, weight, loss, log_prob, unused, unused),
                 params.code, (float(params.ignore_index), params.label_smoothing, 0.0, 0.0))


def _log_probabilities(rows):
    """The log-probabilities of rows (M, C), by the library: every row's target is the
    ignoreIndex, so no loss is computed, only them."""
    target = _empty(rows, (rows.shape[0],), "int64")
    target[...] = -1
    log_prob = _result(rows, rows, rows.shape)
    _run_cross_entropy(rows, target, None, _CrossEntropyParams(0, -1, 0.0, False),
                       _result(rows, rows, (rows.shape[0],)), log_prob)
    return log_prob


def _soft_target_loss(log_prob, target, weight, params):
    """-sum_c w q lp per row (M) in float64 NumPy, or its sum or mean (0-d), of the float32
    log-probabilities and probability targets (M, C)."""
    weighted = _smoothed_targets(target, weight, params)
    with np.errstate(invalid="ignore"):  # 0 * -inf is NaN, as torch gives it
        loss = -(weighted * _float64(log_prob)).sum(axis=1)
    if params.code == 0:
        return loss
    total = loss.sum()
    with np.errstate(invalid="ignore", divide="ignore"):  # no positions: NaN, as torch
        return total / np.float64(loss.shape[0]) if params.code == 1 else total


def _smoothed_targets(target, weight, params):
    """w q (M, C) in float64 NumPy: q the label-smoothed probabilities, w (C) or all 1."""
    eps = params.label_smoothing
    smoothed = _float64(target) * (1 - eps) + eps / target.shape[1]
    return smoothed if weight is None else smoothed * _float64(weight)


def _rows(a):
    """A class-axis operand (input, or probability targets) as rows (M, C): the class dimension
    last, the positions flattened in order (a view where the layout allows, else a copy)."""
    if a.ndim <= 2:
        return a.reshape(1, a.shape[0]) if a.ndim == 1 else a
    order = (0, *range(2, a.ndim), 1)
    return _permuted(a, order).reshape(math.prod(_positions(a.shape)), a.shape[1])


def _unrows(rows, shape):
    """Rows (M, C) back in a class-axis shape, as a view: _rows' inverse."""
    shape = tuple(shape)
    if len(shape) <= 2:
        return rows.reshape(shape)
    moved = rows.reshape(shape[:1] + shape[2:] + shape[1:2])
    return _permuted(moved, (0, len(shape) - 1, *range(1, len(shape) - 1)))


def _permuted(a, order):
    return a.transpose(order) if isinstance(a, np.ndarray) else a.permute(order)


def _widened(a):
    """a float16 or bfloat16 operand in float32 (exactly), others as they are (the C API's
    weight is float32, and float32 log-probabilities lose less)."""
    if a is None or _dtype_name(a) not in ("float16", "bfloat16"):
        return a
    return a.astype(np.float32) if isinstance(a, np.ndarray) else a.float()


def _float64(a):
    """A torch CPU tensor or NumPy value as a float64 NumPy array."""
    tensor = _torch_tensor_type()
    if tensor is not None and isinstance(a, tensor):
        return a.detach().double().numpy()
    return np.asarray(a, dtype=np.float64)


# Per dtype: bits of precision (the hidden one included), the smallest normal exponent and the
# largest finite value.
_FORMATS = {"float32": (24, -126, float(np.finfo(np.float32).max)),
            "float16": (11, -14, 65504.0),
            "bfloat16": (8, -126, float.fromhex("0x1.fep127"))}


def _rounded(values, like):
    """float64 values (NumPy or torch) rounded once, to nearest even, into a new result of
    like's kind and dtype (torch's own casts of float64 to float16 and bfloat16 round twice,
    through float32)."""
    values = _float64(values)
    precision, emin, largest = _FORMATS[_dtype_name(like)]
    _, exponent = np.frexp(values)  # values = m 2^exponent, 0.5 <= |m| < 1
    quantum = np.ldexp(1.0, np.maximum(exponent - precision, emin - precision + 1))
    with np.errstate(invalid="ignore"):  # infinities and NaN pass through
        rounded = np.rint(values / quantum) * quantum  # exact scalings; rint ties to even
        rounded = np.where(np.abs(rounded) > largest, np.copysign(np.inf, values), rounded)
    if isinstance(like, np.ndarray):
        return rounded.astype(like.dtype)
    return sys.modules["torch"].from_numpy(rounded).to(like.dtype)  # exact: on like's grid


for _function in (mse_loss, l1_loss, smooth_l1_loss):
    _function.__doc__ = _function.__doc__.replace("    {shapes}", _SHAPES_ARGUMENTS[1:])
del _function


def _legacy_reduction(size_average, reduce, reduction):
    """torch's reading of the deprecated size_average and reduce (either given: they decide,
    with torch's warning), else of reduction."""
    if size_average is None and reduce is None:
        return _reduction_code(reduction)
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  f"reduction='{reduction}' instead.", stacklevel=3)
    return _REDUCTIONS[reduction]


def _warn_if_sizes_differ(input, target):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _elementwise(loss, input, target, code, attributes):
    if (not loss.target_differentiable and getattr(target, "requires_grad", False)
            and sys.modules["torch"].is_grad_enabled()):
        raise Error(_PARAM_INVALID, f"The function '{loss.name}' is not differentiable with "
                    "respect to argument 'target'. This input cannot have requires_grad True.")
    if _needs_autograd(input, target):
        from ._torch import elementwise_with_autograd
        return elementwise_with_autograd(loss, input, target, code, attributes)
    return _elementwise_loss(loss, code, attributes, *_natives(input, target))


def _elementwise_loss(loss, code, attributes, x, t):
    """The loss into a new result of x's kind, in the promoted dtype: B's shape for none, 0-d
    for a reduction."""
    shape = _broadcast_shape(x.shape, t.shape) if code == 0 else ()
    out = _empty(x, shape, _promoted(x, t))
    _binding.run(loss.loss, (x, t, out), code, attributes)
    return out


def _broadcast_shape(*shapes):
    try:
        return tuple(np.broadcast_shapes(*(tuple(shape) for shape in shapes)))
    except ValueError:
        raise ShapeError(_PARAM_INVALID, "shapes " + ", ".join(str(list(s)) for s in shapes) +
                         " cannot broadcast (right-aligned, each pair of dimensions equal or "
                         "one of them 1)") from None


_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _promoted(*operands):
    """The dtype name torch promotes the operands' dtypes to (as torch.promote_types: a float
    wins over integers and bool, float16 with bfloat16 is float32; NumPy's rules for integers,
    which are torch's)."""
    names = [_dtype_name(a) for a in operands]
    result = names[0]
    for name in names[1:]:
        if name == result:
            continue
        if result in _FLOATS and name in _FLOATS:
            pair = {result, name}
            result = ("float32" if pair == {"float16", "bfloat16"}
                      else max(pair, key=_FLOATS.index))
        elif name in _FLOATS:
            result = name
        elif result not in _FLOATS:
            try:
                result = np.promote_types(result, name).name
            except TypeError:
                pass  # complex and the like: the library names the dtype it refuses
    return result


def _empty(input, shape, name):
    """An uninitialised result of input's kind, dtype `name` and `shape` (bfloat16: torch)."""
    tensor = _torch_tensor_type()
    if tensor is None or not isinstance(input, tensor):
        try:
            return np.empty(shape, dtype=np.dtype(name))
        except TypeError:
            pass  # NumPy has no bfloat16: such results are torch tensors
    import torch
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise DtypeError(_PARAM_INVALID, f"the operands promote to {name}, which torch lacks")
    return torch.empty(shape, dtype=dtype)


def __getattr__(name):
    # The nn.Modules need torch; NumPy users never pay for importing it.
    if name in _MODULES:
        from . import _torch
        return getattr(_torch, name)
    raise AttributeError(f"module 'openaclnn' has no attribute {name!r}")


def __dir__():
    # The API and the module's dunder names only: no imported modules (np, sys), submodules
    # (_binding, _torch) or helpers.
    return sorted(set(__all__) | {name for name in globals()
                                  if name.startswith("__") and name.endswith("__")})


def _gradient(run, grad_output, input, target, weight, pos_weight, reduction):
    return _gradient_of_code(run, grad_output, input, target, weight, pos_weight,
                             _reduction_code(reduction))


def _gradient_of_code(run, grad_output, input, target, weight, pos_weight, code):
    """`run` (the binding's backward or target_backward) into a new result of input's kind."""
    grad_output, input, target, weight, pos_weight = _natives(grad_output, input, target, weight,
                                                              pos_weight)
    out = _result(input, target, input.shape)
    run(grad_output, input, target, weight, pos_weight, code, out)
    return out


def _probabilities_gradient(code, grad_output, input, target, weight):
    """aclnnBinaryCrossEntropyBackward into a new result of input's kind, shape and dtype."""
    grad_output, input, target, weight = _natives(grad_output, input, target, weight)
    out = _result(input, input, input.shape)
    _binding.binary_cross_entropy_backward(grad_output, input, target, weight, code, out)
    return out


def _reduction_code(reduction, codes=_REDUCTIONS):
    """aclnn's code of a reduction string; torch's deprecated 'elementwise_mean' is 'mean' with
    torch's warning; anything else raises ArgumentError (a ValueError, as torch's)."""
    code = codes.get(reduction)
    if code is None:
        if reduction == "elementwise_mean":
            warnings.warn("reduction='elementwise_mean' is deprecated, please use "
                          "reduction='mean' instead.", stacklevel=3)
            return 1
        names = ", ".join(repr(name) for name in codes)
        raise ArgumentError(_PARAM_INVALID,
                            f"reduction must be one of {names}, not {reduction!r}")
    return code


def _torch_tensor_type():
    torch = sys.modules.get("torch")
    return torch.Tensor if torch is not None else None


def _needs_autograd(*operands):
    if not any(getattr(a, "requires_grad", False) for a in operands):
        return False
    import torch
    return isinstance(operands[0], torch.Tensor) and torch.is_grad_enabled()


def _natives(*operands):
    for a in operands:
        if type(a) not in _DIRECT:
            return tuple(map(_native, operands))
    return operands  # all of a type read as it is (autograd's calls): no call per operand


# Types the binding reads as they are (torch.Tensor joins once torch is imported).
_DIRECT = {type(None), np.ndarray}


def _native(a):
    """A NumPy array or torch tensor as it is; any other __dlpack__ producer as a zero-copy
    NumPy view (torch where NumPy lacks the dtype)."""
    if type(a) in _DIRECT or isinstance(a, np.ndarray):
        return a
    tensor = _torch_tensor_type()
    if tensor is not None and isinstance(a, tensor):
        _DIRECT.add(tensor)
        return a
    if hasattr(a, "__dlpack__"):
        try:
            return np.from_dlpack(a)
        except (BufferError, TypeError, RuntimeError):
            import torch.utils.dlpack
            return torch.utils.dlpack.from_dlpack(a)
    try:
        return np.asarray(memoryview(a))  # a buffer-protocol object, zero-copy
    except TypeError:
        raise Error(_PARAM_INVALID, "operands must be NumPy arrays, PyTorch CPU tensors or "
                    f"objects with __dlpack__, not {type(a).__name__}") from None


def _dtype_name(a):
    """'float32', 'float16', 'bfloat16', ... of a NumPy array or torch tensor."""
    dtype = a.dtype
    return dtype.name if isinstance(dtype, np.dtype) else str(dtype).rsplit(".", 1)[-1]


def _result(input, like, shape):
    """An uninitialised result of input's kind, `like`'s dtype and `shape`."""
    tensor = _torch_tensor_type()
    if tensor is not None and isinstance(input, tensor) and isinstance(like, tensor):
        # The common cases, kept short (a dtype argument costs a tenth of the call).
        if like is input:
            return input.new_empty(shape)
        return input.new_empty(shape, dtype=like.dtype)
    if isinstance(like, np.ndarray) and not (tensor is not None and isinstance(input, tensor)):
        return np.empty(shape, dtype=like.dtype)
    name = _dtype_name(like)
    if tensor is None or not isinstance(input, tensor):
        try:
            return np.empty(shape, dtype=np.dtype(name))
        except TypeError:
            pass  # NumPy has no bfloat16: such results are torch tensors
    import torch
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise DtypeError(_PARAM_INVALID, f"an operand has dtype {name}; the ops take float32, "
                         "float16 and bfloat16")
    return torch.empty(shape, dtype=dtype)
