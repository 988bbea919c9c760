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
import sys

import numpy as np

from ._error import DtypeError, Error, ShapeError
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
    "Error",
    "ShapeError",
    "DtypeError",
]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
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


def __getattr__(name):
    # The nn.Modules need torch; NumPy users never pay for importing it.
    if name in ("BCEWithLogitsLoss", "BCELoss"):
        from . import _torch
        return getattr(_torch, name)
    raise AttributeError(f"module 'openaclnn' has no attribute {name!r}")


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


def _reduction_code(reduction):
    code = _REDUCTIONS.get(reduction)
    if code is None:
        raise Error(_PARAM_INVALID,
                    f"reduction must be 'none', 'mean' or 'sum', not {reduction!r}")
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
