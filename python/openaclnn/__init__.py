"""OpenACLNN's binary cross-entropy with logits for NumPy and PyTorch.

Every function takes NumPy arrays, PyTorch CPU tensors or any object with ``__dlpack__``, hands
their memory to the library as strided views (no copies, on any layout with non-negative
strides) and returns a result of ``input``'s kind (a torch tensor for a torch input, a NumPy
array otherwise; bfloat16 results, which NumPy cannot hold, are torch tensors) in ``target``'s
dtype. The dtypes are the C API's: float32, float16, bfloat16; anything else raises
:class:`Error` with status 161002, never a silent cast. The GIL is released while the library
computes; calls from many threads are safe and give the serial results bitwise.

``reduction`` is ``"none"``, ``"mean"`` or ``"sum"``, as in torch.
"""
import sys

import numpy as np

from ._error import Error
from ._version import __version__
from . import _binding

__all__ = [
    "__version__",
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy_with_logits_backward",
    "binary_cross_entropy_with_logits_target_backward",
    "binary_cross_entropy_with_logits_and_grad",
    "BCEWithLogitsLoss",
    "Error",
]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
# aclnn's status for an invalid parameter, used for what the binding rejects itself.
_PARAM_INVALID = 161002


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    """The loss, as torch.nn.functional.binary_cross_entropy_with_logits. Differentiable with
    respect to ``input`` and ``target`` when they are torch tensors that require grad."""
    if _needs_autograd(input, target):
        from ._torch import loss_with_autograd
        return loss_with_autograd(input, target, weight, pos_weight, reduction)
    code = _reduction_code(reduction)
    input, target, weight, pos_weight = _natives(input, target, weight, pos_weight)
    out = _result(input, target, () if code else input.shape)
    _binding.forward(input, target, weight, pos_weight, code, out)
    return out


def binary_cross_entropy_with_logits_backward(grad_output, input, target, weight=None,
                                              pos_weight=None, reduction="mean"):
    """d loss / d input for ``grad_output`` (one element for mean/sum; for none, anything that
    broadcasts into input's shape)."""
    return _gradient(_binding.backward, grad_output, input, target, weight, pos_weight,
                     reduction)


def binary_cross_entropy_with_logits_target_backward(grad_output, input, target, weight=None,
                                                     pos_weight=None, reduction="mean"):
    """d loss / d target for ``grad_output`` (as for the input gradient)."""
    return _gradient(_binding.target_backward, grad_output, input, target, weight, pos_weight,
                     reduction)


def binary_cross_entropy_with_logits_and_grad(input, target, weight=None, pos_weight=None,
                                              reduction="mean"):
    """(loss, d loss / d input for grad_output = 1) in one pass over the inputs; bitwise what
    the forward and the input gradient give."""
    code = _reduction_code(reduction)
    input, target, weight, pos_weight = _natives(input, target, weight, pos_weight)
    loss = _result(input, target, () if code else input.shape)
    grad = _result(input, target, input.shape)
    _binding.forward_and_grad(input, target, weight, pos_weight, code, loss, grad)
    return loss, grad


def __getattr__(name):
    # The nn.Module needs torch; NumPy users never pay for importing it.
    if name == "BCEWithLogitsLoss":
        from ._torch import BCEWithLogitsLoss
        return BCEWithLogitsLoss
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


def _reduction_code(reduction):
    code = _REDUCTIONS.get(reduction)
    if code is None:
        raise Error(_PARAM_INVALID,
                    f"reduction must be 'none', 'mean' or 'sum', not {reduction!r}")
    return code


def _torch_tensor_type():
    torch = sys.modules.get("torch")
    return torch.Tensor if torch is not None else None


def _needs_autograd(input, target):
    if not (getattr(input, "requires_grad", False) or getattr(target, "requires_grad", False)):
        return False
    import torch
    return isinstance(input, torch.Tensor) and torch.is_grad_enabled()


def _natives(*operands):
    return tuple(map(_native, operands))


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


def _result(input, target, shape):
    """An uninitialised result of input's kind, target's dtype and `shape`."""
    tensor = _torch_tensor_type()
    if tensor is not None and isinstance(input, tensor) and isinstance(target, tensor):
        return input.new_empty(shape, dtype=target.dtype)  # the common cases, kept short
    if isinstance(target, np.ndarray) and not (tensor is not None and isinstance(input, tensor)):
        return np.empty(shape, dtype=target.dtype)
    name = _dtype_name(target)
    if tensor is None or not isinstance(input, tensor):
        try:
            return np.empty(shape, dtype=np.dtype(name))
        except TypeError:
            pass  # NumPy has no bfloat16: such results are torch tensors
    import torch
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise Error(_PARAM_INVALID, f"target has dtype {name}; the ops take float32, float16 "
                    "and bfloat16")
    return torch.empty(shape, dtype=dtype)
