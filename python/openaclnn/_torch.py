"""PyTorch integration: the autograd function and the nn.Module (imported on first use)."""
import torch

from . import _binding
from . import Error, _PARAM_INVALID, _gradient_of_code, _natives, _reduction_code, _result


class _BCEWithLogits(torch.autograd.Function):
    """The loss, differentiable for input and target. The input gradient (for grad_output = 1)
    comes out of the forward's one pass, so backward reads no inputs again; it is scaled by
    grad_output only when that is not 1. The target gradient is TargetBackward's."""

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
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_output):
        grad_input = grad_target = None
        if ctx.needs_input_grad[0] and ctx.grad_input is not None:
            # ctx lets go of the gradient, so that autograd can hand this tensor itself to
            # input.grad: while ctx holds it, AccumulateGrad copies it into fresh memory (a page
            # fault per 4 KiB; 2.6 ms of a 4 ms step at N = 1e6).
            grad_input, ctx.grad_input = _scaled(ctx.grad_input, grad_output), None
        elif ctx.needs_input_grad[0]:  # a second backward through a retained graph
            grad_input = _gradient_of_code(_binding.backward, grad_output, *ctx.saved_tensors,
                                           ctx.code)
        if ctx.needs_input_grad[1]:
            grad_target = _gradient_of_code(_binding.target_backward, grad_output,
                                            *ctx.saved_tensors, ctx.code)
        return grad_input, grad_target, None, None, None


def _scaled(gradient, grad_output):
    """gradient * grad_output, skipped when grad_output is one value equal to 1 (a scalar, or a
    scalar expanded to the loss's shape as autograd hands it down from a sum)."""
    if grad_output.numel() == 1 or not any(grad_output.stride()):
        if grad_output.as_strided((), ()).item() == 1:
            return gradient
    return gradient * grad_output


def loss_with_autograd(input, target, weight, pos_weight, reduction):
    for name, tensor in (("weight", weight), ("pos_weight", pos_weight)):
        if getattr(tensor, "requires_grad", False):
            raise Error(_PARAM_INVALID, f"{name} requires grad; openaclnn differentiates the "
                        "loss with respect to input and target only")
    return _BCEWithLogits.apply(input, target, weight, pos_weight, _reduction_code(reduction))


class BCEWithLogitsLoss(torch.nn.Module):
    """torch.nn.BCEWithLogitsLoss computed by OpenACLNN; weight and pos_weight are buffers (they
    follow the module's .to() and state_dict), as in torch."""

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
