"""PyTorch integration: the autograd function and the nn.Module (imported on first use)."""
import torch

from . import _binding
from . import _gradient_of_code, _natives, _reduction_code, _result


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
                grad_input = _Gradient.apply(_INPUT, ctx.code, grad_output, *operands)
            if needs[1]:
                grad_target = _Gradient.apply(_TARGET, ctx.code, grad_output, *operands)
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


class _Gradient(torch.autograd.Function):
    """The library's input (or target) gradient as a differentiable function of grad_output,
    input, target, weight and pos_weight: its value is the library's; its own derivatives are
    those of the same gradient written as a torch expression (_gradient_expression), which is
    what torch's double backward differentiates too. A third derivative raises (torch's
    once_differentiable) instead of being silently zero."""

    @staticmethod
    def forward(ctx, which, code, grad_output, input, target, weight, pos_weight):
        ctx.which, ctx.code = which, code
        ctx.save_for_backward(grad_output, input, target, weight, pos_weight)
        return _library_gradient(which, code, grad_output, input, target, weight, pos_weight)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_gradient):
        wanted = ctx.needs_input_grad[2:]
        with torch.enable_grad():
            leaves = [None if a is None else a.detach().requires_grad_(need)
                      for a, need in zip(ctx.saved_tensors, wanted)]
            gradient = _gradient_expression(ctx.which, ctx.code, *leaves)
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
