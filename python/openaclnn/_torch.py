"""PyTorch integration: the autograd functions and the nn.Modules (imported on first use)."""
import math
from typing import Callable, NamedTuple

import torch

from . import _binding
from . import _gradient_of_code, _natives, _probabilities_gradient, _reduction_code, _result
from . import (_KL_REDUCTIONS, _REDUCTIONS, _elementwise_loss, _legacy_reduction, _nll_loss,
               _nll_loss_backward, _promoted)
from . import _class_dimension, _cross_entropy, _rounded, _rows, _unrows, _widened
from ._error import Error


class _BCEWithLogits(torch.autograd.Function):
    """The loss, differentiable for input, target, weight and pos_weight. The input gradient
    (for grad_output = 1) comes out of the forward's one pass, so a plain backward reads no
    inputs again; it is scaled by grad_output only when that is not 1. The target gradient is
    TargetBackward's. Under create_graph=True both come from the library through _Gradient,
    which makes them differentiable in turn; the weight and pos_weight gradients, which the C
    API does not compute, are torch expressions (differentiable as they are)."""

    @staticmethod
    def forward(ctx, input, target, weight, pos_weight, code):
        x, t, w, p = _natives(input, target, weight, pos_weight)
        loss = _result(x, t, () if code else x.shape)
        ctx.grad_input = None
        if ctx.needs_input_grad[0]:
            ctx.grad_input = _result(x, t, x.shape)
            _binding.forward_and_grad(x, t, w, p, code, loss, ctx.grad_input)
        else:
            _binding.forward(x, t, w, p, code, loss)
        # References, not copies: the target gradient reads them, and so does a second backward
        # through a retained graph (the first one hands the one-pass gradient on).
        ctx.save_for_backward(input, target, weight, pos_weight)
        ctx.code = code
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        operands = ctx.saved_tensors
        needs = ctx.needs_input_grad
        grad_input = grad_target = None
        if torch.is_grad_enabled():  # create_graph=True: the gradients must be differentiable
            if needs[0]:
                grad_input = _Gradient.apply(_LOGITS_INPUT, ctx.code, grad_output, *operands)
            if needs[1]:
                grad_target = _Gradient.apply(_LOGITS_TARGET, ctx.code, grad_output, *operands)
        else:
            if needs[0] and ctx.grad_input is not None:
                # ctx lets go of the gradient, so that autograd can hand this tensor itself to
                # input.grad: while ctx holds it, AccumulateGrad copies it into fresh memory (a
                # page fault per 4 KiB; 2.6 ms of a 4 ms step at N = 1e6).
                grad_input, ctx.grad_input = _scaled(ctx.grad_input, grad_output), None
            elif needs[0]:  # a second backward through a retained graph
                grad_input = _library_gradient(_INPUT, ctx.code, grad_output, *operands)
            if needs[1]:
                grad_target = _library_gradient(_TARGET, ctx.code, grad_output, *operands)
        grad_weight, grad_pos_weight = _weight_gradients(ctx.code, grad_output, operands,
                                                         needs[2], needs[3])
        return grad_input, grad_target, grad_weight, grad_pos_weight, None


_INPUT, _TARGET = 0, 1


def _library_gradient(which, code, grad_output, input, target, weight, pos_weight):
    run = _binding.backward if which == _INPUT else _binding.target_backward
    return _gradient_of_code(run, grad_output, input, target, weight, pos_weight, code)


class _LibraryGradient(NamedTuple):
    """A gradient of a loss, both ways, each called as (code, grad_output, *the loss's
    operands): `library` computes it with the library, `expression` writes it as a torch
    expression (which autograd can differentiate)."""
    library: Callable
    expression: Callable


class _Gradient(torch.autograd.Function):
    """A _LibraryGradient as a differentiable function of grad_output and the loss's operands:
    its value is the library's; its own derivatives are those of its torch expression, which is
    what torch's double backward differentiates too. A third derivative raises (torch's
    once_differentiable) instead of being silently zero."""

    @staticmethod
    def forward(ctx, gradient, code, grad_output, *operands):
        ctx.gradient, ctx.code = gradient, code
        ctx.save_for_backward(grad_output, *operands)
        return gradient.library(code, grad_output, *operands)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_gradient):
        wanted = ctx.needs_input_grad[2:]
        with torch.enable_grad():
            leaves = [None if a is None else a.detach().requires_grad_(need)
                      for a, need in zip(ctx.saved_tensors, wanted)]
            gradient = ctx.gradient.expression(ctx.code, *leaves)
            inputs = [a for a, need in zip(leaves, wanted) if need]
            found = iter(torch.autograd.grad(gradient, inputs, grad_gradient.to(gradient.dtype),
                                             allow_unused=True))
        return (None, None) + tuple(next(found) if need else None for need in wanted)


def _float32(*tensors):
    """float16/bfloat16 operands as float32 (differentiably): torch's CPU sigmoid lacks float16,
    and the derivatives lose less; the gradients flow back to the operands in their dtypes."""
    return tuple(a.float() if a is not None and a.dtype in _NARROW else a for a in tensors)


_NARROW = (torch.float16, torch.bfloat16)


def _gradient_expression(which, code, grad_output, x, t, w, p):
    """d loss / d x (or d t) times grad_output, as torch autograd can differentiate it: torch's
    own backward formulas, in sigmoid and log-sigmoid, smooth everywhere."""
    grad_output, x, t, w, p = _float32(grad_output, x, t, w, p)
    if which == _INPUT:
        coefficient = 1 if p is None else 1 + (p - 1) * t
        scaled_target = t if p is None else p * t
        gradient = coefficient * torch.sigmoid(x) - scaled_target
    else:
        gradient = -x if p is None else -((p - 1) * torch.nn.functional.logsigmoid(x) + x)
    if w is not None:
        gradient = gradient * w
    gradient = gradient * grad_output
    return gradient / x.numel() if code == 1 else gradient.expand(x.shape)


_LOGITS_INPUT = _LibraryGradient(
    lambda *operands: _library_gradient(_INPUT, *operands),
    lambda *operands: _gradient_expression(_INPUT, *operands))
_LOGITS_TARGET = _LibraryGradient(
    lambda *operands: _library_gradient(_TARGET, *operands),
    lambda *operands: _gradient_expression(_TARGET, *operands))


def _loss_expression(code, x, t, w, p):
    """The loss as a torch expression (for the weight and pos_weight gradients)."""
    x, t, w, p = _float32(x, t, w, p)
    coefficient = 1 if p is None else 1 + (p - 1) * t
    loss = (1 - t) * x - coefficient * torch.nn.functional.logsigmoid(x)
    if w is not None:
        loss = loss * w
    return loss.mean() if code == 1 else loss.sum() if code == 2 else loss


def _weight_gradients(code, grad_output, operands, need_weight, need_pos_weight):
    """(d loss / d weight, d loss / d pos_weight) where asked for: autograd of the loss's torch
    expression, on the saved operands themselves so that, under create_graph, the results are
    differentiable with respect to all of them."""
    if not (need_weight or need_pos_weight):
        return None, None
    _, _, weight, pos_weight = operands
    inputs = [a for a, need in ((weight, need_weight), (pos_weight, need_pos_weight)) if need]
    create_graph = torch.is_grad_enabled()
    with torch.enable_grad():
        loss = _loss_expression(code, *operands)
        found = iter(torch.autograd.grad(loss, inputs, grad_output.to(loss.dtype),
                                         create_graph=create_graph))
    return (next(found) if need_weight else None, next(found) if need_pos_weight else None)


def _scaled(gradient, grad_output):
    """gradient * grad_output, skipped when grad_output is one value equal to 1 (a scalar, or a
    scalar expanded to the loss's shape as autograd hands it down from a sum)."""
    if grad_output.numel() == 1 or not any(grad_output.stride()):
        if grad_output.as_strided((), ()).item() == 1:
            return gradient
    return gradient * grad_output


def loss_with_autograd(input, target, weight, pos_weight, reduction):
    return _BCEWithLogits.apply(input, target, weight, pos_weight, _reduction_code(reduction))


class _BinaryCrossEntropy(torch.autograd.Function):
    """The loss of probabilities, differentiable for input and target. The input gradient is
    the library's Backward (under create_graph=True through _Gradient, differentiable in turn);
    the target gradient, which the C API does not compute, is a torch expression
    (_probabilities_target_gradient). weight is not differentiable, as in torch 1.13."""

    @staticmethod
    def forward(ctx, input, target, weight, code):
        x, t, w = _natives(input, target, weight)
        loss = _result(x, x, () if code else x.shape)
        _binding.binary_cross_entropy(x, t, w, code, loss)
        ctx.save_for_backward(input, target, weight)
        ctx.code = code
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        operands = ctx.saved_tensors
        needs = ctx.needs_input_grad
        grad_input = grad_target = None
        if needs[0] and torch.is_grad_enabled():  # create_graph=True
            grad_input = _Gradient.apply(_PROBABILITIES_INPUT, ctx.code, grad_output, *operands)
        elif needs[0]:
            grad_input = _probabilities_gradient(ctx.code, grad_output, *operands)
        if needs[1]:
            grad_target = _probabilities_target_gradient(ctx.code, grad_output, *operands)
        return grad_input, grad_target, None, None


# fl32(1e-12): the floor of x (1 - x) in the input gradient (CANN and torch apply 1e-12 in fp32).
_GRADIENT_FLOOR = float(torch.tensor(1e-12, dtype=torch.float32))


def _clamped_logs(x):
    """(max(log(x), -100), max(log(1 - x), -100)), differentiable, in float64."""
    x = x.double()
    return torch.clamp(torch.log(x), min=-100), torch.clamp(torch.log1p(-x), min=-100)


def _reduced_gradient(gradient, code, grad_output, x):
    """gradient times grad_output, divided by N for mean, in x's shape and dtype."""
    gradient = gradient * grad_output.double()
    gradient = gradient / x.numel() if code == 1 else gradient
    return gradient.expand(x.shape).to(x.dtype)


def _probabilities_input_expression(code, grad_output, x, t, w):
    """d loss / d x times grad_output as a torch expression (for its own derivatives)."""
    xx = x.double()
    gradient = (xx - t.double()) / torch.clamp(xx * (1 - xx), min=_GRADIENT_FLOOR)
    if w is not None:
        gradient = gradient * w.double()
    return _reduced_gradient(gradient, code, grad_output, x)


def _probabilities_target_gradient(code, grad_output, x, t, w):
    """d loss / d t times grad_output: w (max(log(1 - x), -100) - max(log(x), -100)), the
    derivative of the clamped loss the library computes (torch 1.13 leaves the logs unclamped:
    +-inf at x = 0 or 1 where this gives +-100 w), in float64 cast to x's dtype, and
    differentiable."""
    log_x, log_1mx = _clamped_logs(x)
    gradient = log_1mx - log_x
    if w is not None:
        gradient = gradient * w.double()
    return _reduced_gradient(gradient, code, grad_output, x)


_PROBABILITIES_INPUT = _LibraryGradient(_probabilities_gradient, _probabilities_input_expression)


def probabilities_loss_with_autograd(input, target, weight, reduction):
    code = _reduction_code(reduction)
    if weight is not None and weight.requires_grad:
        raise Error(161002, "binary_cross_entropy is not differentiable with respect to argument "
                    "'weight' (as in torch): pass weight.detach()")
    return _BinaryCrossEntropy.apply(input, target, weight, code)


class BCELoss(torch.nn.Module):
    """torch.nn.BCELoss computed by OpenACLNN.

    Args:
        weight: w, broadcastable to the input's shape, or None.
        reduction: "none", "mean" (default) or "sum".

    weight is a buffer (it follows the module's .to() and state_dict), as in torch. Calling it
    is :func:`openaclnn.binary_cross_entropy` (formula, shapes, dtypes, errors, values outside
    [0, 1] and derivatives there); an unknown reduction raises openaclnn.Error here, at
    construction.

    Example::

        >>> criterion = openaclnn.BCELoss(weight=torch.tensor([2.0, 1.0]))
        >>> x = torch.tensor([0.5, 0.25], requires_grad=True)
        >>> criterion(x, torch.tensor([1.0, 0.0])).backward()
        >>> x.grad
        tensor([-2.0000,  0.6667])
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__()
        _reduction_code(reduction)
        self.register_buffer("weight", weight)
        self.reduction = reduction

    def forward(self, input, target):
        from . import binary_cross_entropy
        return binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(torch.nn.Module):
    """torch.nn.BCEWithLogitsLoss computed by OpenACLNN.

    Args:
        weight: w, broadcastable to the input's shape, or None.
        reduction: "none", "mean" (default) or "sum".
        pos_weight: p, broadcastable to the input's shape, or None.

    weight and pos_weight are buffers (they follow the module's .to() and state_dict), as in
    torch. Calling it is :func:`openaclnn.binary_cross_entropy_with_logits` (formula, shapes,
    dtypes, errors and second derivatives there); an unknown reduction raises openaclnn.Error
    here, at construction.

    Example::

        >>> criterion = openaclnn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
        >>> x = torch.zeros(2, requires_grad=True)
        >>> criterion(x, torch.tensor([1.0, 0.0])).backward()
        >>> x.grad
        tensor([-0.5000,  0.2500])
    """

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__()
        _reduction_code(reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)
        self.reduction = reduction

    def forward(self, input, target):
        from . import binary_cross_entropy_with_logits
        return binary_cross_entropy_with_logits(input, target, self.weight, self.pos_weight,
                                                self.reduction)


# ---------------------------------------------------------------------------------------------
# The element-wise losses (mse_loss, l1_loss, smooth_l1_loss, huber_loss, soft_margin_loss,
# kl_div): one autograd function for all, their gradients the library's.

class _Elementwise(torch.autograd.Function):
    """An element-wise loss, differentiable for input and target (where torch 1.13 is). The
    gradients are the library's (under create_graph=True through _Gradient, whose own
    derivatives are those of _elementwise_expression)."""

    @staticmethod
    def forward(ctx, loss, params, input, target):
        code, attributes = params
        result = _elementwise_loss(loss, code, attributes, input, target)
        ctx.save_for_backward(input, target)
        ctx.loss, ctx.params = loss, params
        return result

    @staticmethod
    def backward(ctx, grad_output):
        operands = ctx.saved_tensors
        gradients = (_applied(_elementwise_gradient(ctx.loss, which) if need else None,
                              ctx.params, grad_output, operands)
                     for which, need in ((_INPUT, ctx.needs_input_grad[2]),
                                         (_TARGET, ctx.needs_input_grad[3])))
        return (None, None, *gradients)


def _applied(gradient, params, grad_output, operands):
    """A _LibraryGradient's value (None for None): the library's, differentiable through
    _Gradient under create_graph=True."""
    if gradient is None:
        return None
    if torch.is_grad_enabled():
        return _Gradient.apply(gradient, params, grad_output, *operands)
    return gradient.library(params, grad_output, *operands)


def elementwise_with_autograd(loss, input, target, code, attributes):
    return _Elementwise.apply(loss, (code, attributes), input, _tensor(target))


_ELEMENTWISE_GRADIENTS = {}


def _elementwise_gradient(loss, which):
    """The _LibraryGradient of `loss` for input or target."""
    key = (loss.name, which)
    if key not in _ELEMENTWISE_GRADIENTS:
        _ELEMENTWISE_GRADIENTS[key] = _LibraryGradient(
            lambda params, *operands: _elementwise_library_gradient(loss, which, params,
                                                                    *operands),
            lambda params, *operands: _elementwise_expression(loss, which, params, *operands))
    return _ELEMENTWISE_GRADIENTS[key]


def _elementwise_library_gradient(loss, which, params, grad_output, x, t):
    """d loss / d x (or d t) times grad_output, by the library, in that operand's shape and
    dtype. KL divergence's APIs sum back into it themselves; the others' Backward (with x and t
    swapped for the target) has the broadcast shape of the three: where that is larger, it is
    computed in float32 and summed in float64 (the one place with a second rounding)."""
    code, attributes = params
    wrt = x if which == _INPUT else t
    if loss.target_backward is not None:  # the KL divergence
        api = loss.backward if which == _INPUT else loss.target_backward
        out = wrt.new_empty(wrt.shape)
        _binding.run(api, (grad_output, x, t, out), code, attributes)
        return out
    if which == _TARGET:
        x, t = t, x
    shape = torch.broadcast_shapes(grad_output.shape, x.shape, t.shape)
    if shape == x.shape:
        out = x.new_empty(shape)
    else:
        out = x.new_empty(shape, dtype=torch.float32)
    operands = (grad_output, x, t)
    if loss.name == "mse_loss":  # its Backward takes one dtype: the promoted one, exactly
        dtype = getattr(torch, _promoted(*operands))
        operands = tuple(a.to(dtype) for a in operands)
    _binding.run(loss.backward, operands + (out,), code, attributes)
    if shape == x.shape:
        return out
    return out.double().sum_to_size(x.shape).to(x.dtype)


def _elementwise_expression(loss, which, params, grad_output, x, t):
    """The same gradient as a torch expression (for its own derivatives): torch's formulas, in
    float32 for float16 and bfloat16 operands, summed to the operand's shape and cast to its
    dtype."""
    code, attributes = params
    wrt = x if which == _INPUT else t
    shape = torch.broadcast_shapes(x.shape, t.shape)
    g, xx, tt = _float32(grad_output, x, t)
    if loss.name == "kl_div":
        if attributes[0]:  # log_target
            gradient = -torch.exp(tt) if which == _INPUT else torch.exp(tt) * (tt - xx + 1)
        else:
            gradient = -tt if which == _INPUT else torch.log(tt) + 1 - xx
    elif loss.name == "soft_margin_loss":
        gradient = -tt * torch.sigmoid(-tt * xx)
    else:
        d = xx - tt if which == _INPUT else tt - xx
        if loss.name == "mse_loss":
            gradient = 2 * d
        elif loss.name == "l1_loss" or (loss.name == "smooth_l1_loss" and attributes[0] == 0):
            gradient = torch.sign(d)
        elif loss.name == "smooth_l1_loss":
            gradient = torch.clamp(d / attributes[0], -1, 1)
        else:  # huber_loss
            gradient = torch.clamp(d, -attributes[0], attributes[0])
    gradient = gradient * g
    if code == 1:
        gradient = gradient / math.prod(shape)
    elif code == 3:
        gradient = gradient / (x.shape[0] if x.dim() else 1)
    return gradient.expand(torch.broadcast_shapes(gradient.shape, shape)).sum_to_size(
        wrt.shape).to(wrt.dtype)


class _Loss(torch.nn.Module):
    """The modules' base, as torch.nn.modules.loss._Loss: the deprecated size_average and
    reduce, when given, set reduction (with torch's warning); an unknown reduction raises
    ArgumentError here, at construction."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", reductions=None):
        super().__init__()
        if size_average is not None or reduce is not None:
            code = _legacy_reduction(size_average, reduce, reduction)
            reduction = ("none", "mean", "sum")[code]
        else:
            _reduction_code(reduction, reductions or _REDUCTIONS)
        self.reduction = reduction


class MSELoss(_Loss):
    """torch.nn.MSELoss computed by OpenACLNN: calling it is :func:`openaclnn.mse_loss`.

    Args:
        size_average, reduce: torch's deprecated pair.
        reduction: "none", "mean" (default) or "sum".

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> openaclnn.MSELoss()(x, torch.zeros(2)).backward()
        >>> x.grad
        tensor([1., 2.])
    """

    def forward(self, input, target):
        from . import mse_loss
        return mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """torch.nn.L1Loss computed by OpenACLNN: calling it is :func:`openaclnn.l1_loss`.

    Args:
        size_average, reduce: torch's deprecated pair.
        reduction: "none", "mean" (default) or "sum".

    Example::

        >>> x = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> openaclnn.L1Loss(reduction="sum")(x, torch.zeros(2)).backward()
        >>> x.grad
        tensor([ 1., -1.])
    """

    def forward(self, input, target):
        from . import l1_loss
        return l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """torch.nn.SmoothL1Loss computed by OpenACLNN: calling it is
    :func:`openaclnn.smooth_l1_loss`.

    Args:
        size_average, reduce: torch's deprecated pair.
        reduction: "none", "mean" (default) or "sum".
        beta: the threshold between the quadratic and the linear part, >= 0.

    Example::

        >>> x = torch.tensor([0.5, 3.0], requires_grad=True)
        >>> openaclnn.SmoothL1Loss(reduction="sum")(x, torch.zeros(2)).backward()
        >>> x.grad
        tensor([0.5000, 1.0000])
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        from . import smooth_l1_loss
        return smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """torch.nn.HuberLoss computed by OpenACLNN: calling it is :func:`openaclnn.huber_loss`.

    Args:
        reduction: "none", "mean" (default) or "sum".
        delta: the threshold between the quadratic and the linear part, > 0.

    Example::

        >>> x = torch.tensor([0.5, 3.0], requires_grad=True)
        >>> openaclnn.HuberLoss(reduction="sum", delta=2.0)(x, torch.zeros(2)).backward()
        >>> x.grad
        tensor([0.5000, 2.0000])
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        from . import huber_loss
        return huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SoftMarginLoss(_Loss):
    """torch.nn.SoftMarginLoss computed by OpenACLNN: calling it is
    :func:`openaclnn.soft_margin_loss`.

    Args:
        size_average, reduce: torch's deprecated pair.
        reduction: "none", "mean" (default) or "sum".

    Example::

        >>> x = torch.tensor([0.0, 0.0], requires_grad=True)
        >>> openaclnn.SoftMarginLoss(reduction="sum")(x, torch.tensor([1.0, -1.0])).backward()
        >>> x.grad
        tensor([-0.5000,  0.5000])
    """

    def forward(self, input, target):
        from . import soft_margin_loss
        return soft_margin_loss(input, target, reduction=self.reduction)


class KLDivLoss(_Loss):
    """torch.nn.KLDivLoss computed by OpenACLNN: calling it is :func:`openaclnn.kl_div`.

    Args:
        size_average, reduce: torch's deprecated pair.
        reduction: "none", "mean" (default, with torch's warning when called), "batchmean" or
            "sum".
        log_target: whether the target holds log-probabilities.

    Example::

        >>> x = torch.log(torch.tensor([[0.5, 0.5]])).requires_grad_()
        >>> criterion = openaclnn.KLDivLoss(reduction="batchmean")
        >>> criterion(x, torch.tensor([[0.25, 0.75]])).backward()
        >>> x.grad
        tensor([[-0.2500, -0.7500]])
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction, _KL_REDUCTIONS)
        self.log_target = log_target

    def forward(self, input, target):
        from . import kl_div
        return kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class _NllLoss(torch.autograd.Function):
    """The negative log likelihood, differentiable for input. Its gradient is the library's
    (under create_graph=True through _NllGradient, linear in grad_output)."""

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, code):
        loss, total = _nll_loss(input, target, weight, ignore_index, code)
        ctx.save_for_backward(input, target, weight, total)
        ctx.ignore_index, ctx.code = ignore_index, code
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        input, target, weight, total = ctx.saved_tensors
        if torch.is_grad_enabled():  # create_graph=True
            gradient = _NllGradient.apply(grad_output, input, target, weight, total,
                                          ctx.ignore_index, ctx.code)
        else:
            gradient = _nll_loss_backward(grad_output.contiguous(), input, target, weight,
                                          ctx.ignore_index, ctx.code, total)
        return gradient, None, None, None, None


class _NllGradient(torch.autograd.Function):
    """The library's gradient -g w[t] (/ total weight) as a function of grad_output g, whose
    derivative is the loss's own form applied to the incoming gradient gg: d/dg of sum gg * out
    is -w[t] gg[t] per position (a sum over positions for one g, divided by the total weight for
    a mean); input's derivative is 0."""

    @staticmethod
    def forward(ctx, grad_output, input, target, weight, total, ignore_index, code):
        ctx.save_for_backward(target, weight, total)
        ctx.ignore_index, ctx.code = ignore_index, code
        return _nll_loss_backward(grad_output.contiguous(), input, target, weight, ignore_index,
                                  code, total)

    @staticmethod
    def backward(ctx, grad_gradient):
        target, weight, total = ctx.saved_tensors
        per_position = _nll_loss(grad_gradient.detach().contiguous(), target, weight,
                                 ctx.ignore_index, 0 if ctx.code == 0 else 2)[0]
        if ctx.code == 1:
            per_position = per_position / total
        return per_position, None, None, None, None, None, None


def nll_loss_with_autograd(input, target, weight, ignore_index, code):
    _refuse_weight_gradient(weight, "nll_loss")
    if weight is None:
        weight = input.detach().new_ones(input.shape[_class_dimension(input.shape)])
    return _NllLoss.apply(input, _tensor(target), _tensor(weight), ignore_index, code)


def _refuse_weight_gradient(weight, name):
    if getattr(weight, "requires_grad", False):
        raise Error(161002, f"the derivative for 'weight' is not implemented (as torch's "
                    f"{name}): weight cannot have requires_grad True")


def _tensor(a):
    """a torch tensor, a NumPy array as one (a view of its memory)."""
    return a if isinstance(a, torch.Tensor) else torch.as_tensor(a)


class NLLLoss(_Loss):
    """torch.nn.NLLLoss computed by OpenACLNN: calling it is :func:`openaclnn.nll_loss`.

    Args:
        weight: one weight per class (C), or None (all 1).
        size_average, reduce: torch's deprecated pair.
        ignore_index: the target value that counts for nothing.
        reduction: "none", "mean" (default) or "sum".

    Example::

        >>> x = torch.log(torch.tensor([[0.25, 0.75]])).requires_grad_()
        >>> openaclnn.NLLLoss()(x, torch.tensor([1])).backward()
        >>> x.grad
        tensor([[ 0., -1.]])
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def forward(self, input, target):
        from . import nll_loss
        return nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                        reduction=self.reduction)


# ---------------------------------------------------------------------------------------------
# The cross entropy: one autograd function for class indices and probabilities.

class _CrossEntropy(torch.autograd.Function):
    """The cross entropy, differentiable for input and (probabilities) target. The forward
    keeps the float32 log-probabilities of input's rows, from which every gradient is computed
    (_cross_entropy_input_gradient, _cross_entropy_target_gradient); under create_graph=True
    they pass through _Gradient, whose own derivatives are torch's float64 ones."""

    @staticmethod
    def forward(ctx, params, input, target, weight):
        loss, log_prob = _cross_entropy(input, target, weight, params, keep_log_prob=True)
        ctx.save_for_backward(input, target, weight, log_prob)
        ctx.params = params
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        operands = ctx.saved_tensors
        needs = ctx.needs_input_grad
        return (None,
                _applied(_CROSS_ENTROPY_INPUT if needs[1] else None, ctx.params, grad_output,
                         operands),
                _applied(_CROSS_ENTROPY_TARGET if needs[2] else None, ctx.params, grad_output,
                         operands),
                None)


def _cross_entropy_input_gradient(params, grad_output, input, target, weight, log_prob):
    """d loss / d input times grad_output, in input's shape and dtype: the library's
    CrossEntropyLossGrad in float32 for class indices; in float64 for probabilities, (sum_c
    w q) exp(lp) - w q per row, rounded once."""
    if params.probabilities:
        weighted, scale = _soft_target_factors(params, grad_output, target, weight, log_prob)
        gradient = (weighted.sum(1, keepdim=True) * log_prob.double().exp() - weighted) * scale
        return _rounded(_unrows(gradient, input.shape), input)
    g = grad_output.float().contiguous()
    out = torch.empty_like(log_prob)
    _binding.run("aclnnCrossEntropyLossGrad",
                 (g.reshape(-1) if params.code == 0 else g, log_prob, target.reshape(-1),
                  _widened(weight), None, None, out),
                 params.code, (float(params.ignore_index), params.label_smoothing, 0.0))
    return _unrows(out, input.shape).to(input.dtype)


def _cross_entropy_target_gradient(params, grad_output, input, target, weight, log_prob):
    """d loss / d target times grad_output: -(1 - eps) w lp, in float64, rounded once."""
    _, scale = _soft_target_factors(params, grad_output, target, weight, log_prob)
    w = 1 if weight is None else weight.double()
    gradient = -(1 - params.label_smoothing) * w * log_prob.double() * scale
    return _rounded(_unrows(gradient, target.shape), target)


def _soft_target_factors(params, grad_output, target, weight, log_prob):
    """(w q, grad_output / divisor) of probability targets as float64 rows: q the smoothed
    targets (M, C); grad_output per row (M, 1), or one value, divided by M for a mean."""
    eps = params.label_smoothing
    weighted = _rows(target).double() * (1 - eps) + eps / log_prob.shape[1]
    if weight is not None:
        weighted = weighted * weight.double()
    scale = grad_output.double()
    if params.code == 0:
        scale = scale.reshape(-1, 1)
    elif params.code == 1:
        scale = scale / log_prob.shape[0]
    return weighted, scale


def _cross_entropy_expression(which, params, grad_output, input, target, weight, log_prob):
    """d loss / d input (or target) times grad_output as torch's float64 autograd of
    F.cross_entropy gives it, differentiable (for the second derivatives)."""
    x = input.double()
    t = target.double() if params.probabilities else target
    wrt = x if which == _INPUT else t
    if not wrt.requires_grad:
        wrt.requires_grad_()  # a new float64 copy: the gradient needs a graph through it
    loss = torch.nn.functional.cross_entropy(
        x, t, None if weight is None else weight.double(), ignore_index=params.ignore_index,
        reduction=("none", "mean", "sum")[params.code], label_smoothing=params.label_smoothing)
    return torch.autograd.grad(loss, wrt, grad_output.double(), create_graph=True)[0]


_CROSS_ENTROPY_INPUT = _LibraryGradient(
    _cross_entropy_input_gradient,
    lambda *operands: _cross_entropy_expression(_INPUT, *operands))
_CROSS_ENTROPY_TARGET = _LibraryGradient(
    _cross_entropy_target_gradient,
    lambda *operands: _cross_entropy_expression(_TARGET, *operands))


def cross_entropy_with_autograd(input, target, weight, params):
    _refuse_weight_gradient(weight, "cross_entropy of class indices")
    return _CrossEntropy.apply(params, input, _tensor(target),
                               None if weight is None else _tensor(weight))


class CrossEntropyLoss(_Loss):
    """torch.nn.CrossEntropyLoss computed by OpenACLNN: calling it is
    :func:`openaclnn.cross_entropy`.

    Args:
        weight: one weight per class (C), or None (all 1); a buffer (it follows the module's
            .to() and state_dict), as in torch.
        size_average, reduce: torch's deprecated pair.
        ignore_index: the class index that counts for nothing.
        reduction: "none", "mean" (default) or "sum".
        label_smoothing: eps in [0, 1].

    Example::

        >>> x = torch.zeros(1, 2, requires_grad=True)
        >>> openaclnn.CrossEntropyLoss()(x, torch.tensor([1])).backward()
        >>> x.grad
        tensor([[ 0.5000, -0.5000]])
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        from . import cross_entropy
        return cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                             reduction=self.reduction, label_smoothing=self.label_smoothing)
