#!/usr/bin/env python3
"""The golden and comparison step of `openaclnn atk` (one process per ATK file).

Reads DIR/manifest.json and DIR/data.bin written by the C++ tool and computes each case's golden
in float64 on the very inputs the library received. The golden is the op's formula as the
library's contract (docs/contract/) defines it, one entry of OPS per API: for the binary cross
entropies PyTorch's own float64 functions (or their autograd gradients); for the element-wise
losses the pointwise formula of their family, then the reduction or a gradient's divisor and the
gradient summed back to its operand's shape, all generic (`elementwise`); for the NLL gradients
(class-axis: along self's class dimension) -g w[t] at each counted position's target class; for
the cross entropy its log-probabilities and loss, and its gradient from given log-probabilities,
written with log1p and expm1 where float64 would lose digits. Where the contract departs from
CANN's kernels and from PyTorch, the golden follows the contract, and FORMULAS says where:
sign(NaN) = NaN in the L1 and smooth L1 gradients (both give 0), the smooth L1 gradient at
beta = 0 and d = 0 is 0 (PyTorch: -g; CANN: NaN), the soft margin loss and gradient in their stable
forms (PyTorch's overflow to inf and NaN), KL divergence's target gradient NaN at t = 0; a
mean's divisor is numel(broadcast(self, target)) and batchmean's self.size(0) (1 for a 0-D self)
in every op, the forward's, which equals CANN's in every ATK case.

It compares each output the case judges (the manifest's "outputs"; a golden with several returns
them by role) with ATK's "high_precision" single-benchmark standard:
    rel = |actual - golden| / (|golden| + 1e-7);  MERE = mean(rel) < T,  MARE = max(rel) < 10 T
with T = 2^-13 (fp32), 2^-10 (fp16), 2^-7 (bf16) for the output dtype, the golden rounded once
to that dtype (`round_to`); an int64 result (the L1 loss of integers, which wraps as PyTorch's
does) must equal the golden. Equal values (infinities of one sign, or NaN against NaN) count as
rel = 0. For information it also evaluates PyTorch's own function in the case's own dtypes (fp32
where this PyTorch lacks a CPU kernel) and reports the library against it, and it against
float64, and the library against the unrounded float64 golden. Cases are read from data.bin one
at a time, so the memory it needs is that of the largest case. Writes DIR/results.json.

Usage: atk_golden.py DIR
"""
import functools
import json
import math
import os
import sys
import warnings

import numpy as np
import torch

F = torch.nn.functional
THRESHOLD = {"fp32": 2.0**-13, "fp16": 2.0**-10, "bf16": 2.0**-7, "int64": 0.0, "int32": 0.0}
TORCH_DTYPE = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
               "int64": torch.int64, "int32": torch.int32}
REDUCTION = {0: "none", 1: "mean", 2: "sum", 3: "batchmean"}
EPSILON_FP32 = float(np.float32(1e-12))
LARGE_CASE = 1 << 20  # elements


def load_tensor(blob, spec):
    """The dumped tensor: float64 for the float dtypes (exact: every fp32/fp16/bf16 value is a
    float64), an integer dtype as itself."""
    raw = blob[spec["offset"]:spec["offset"] + spec["nbytes"]]
    if spec["dtype"] == "int64":
        return torch.from_numpy(raw.view("<i8").astype(np.int64).reshape(spec["shape"]))
    if spec["dtype"] == "int32":
        return torch.from_numpy(raw.view("<i4").astype(np.int32).reshape(spec["shape"]))
    if spec["dtype"] == "fp32":
        values = raw.view("<f4")
    elif spec["dtype"] == "fp16":
        values = raw.view("<f2")
    else:  # bf16: the upper half of an fp32
        values = (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
    return torch.from_numpy(values.astype(np.float64).reshape(spec["shape"]))


# --- The binary cross entropies: PyTorch's float64 functions (tensors by role) ---

def with_logits(case, tensors, out_shape=None):
    """ATK's executor: the forward loss, or the gradient autograd gives for self/target."""
    kind, reduction = case["kind"], case["reduction"]
    x, y = tensors["self"], tensors["target"]
    w, p = tensors.get("weight"), tensors.get("pos_weight")
    if kind == "loss":
        return torch.ops.aten.binary_cross_entropy_with_logits(x, y, w, p, reduction)
    x = x.detach().clone().requires_grad_(kind == "grad_self")
    y = y.detach().clone().requires_grad_(kind == "grad_target")
    loss = torch.nn.BCEWithLogitsLoss(weight=w, pos_weight=p, reduction=REDUCTION[reduction])(x, y)
    grad = tensors["grad_output"]
    loss.backward(grad if reduction == 0 else grad.mean() if reduction == 1 else grad.sum())
    return x.grad if kind == "grad_self" else y.grad


def probabilities_in_torch(case, tensors, out_shape=None):
    """PyTorch's binary_cross_entropy, or its autograd gradient for self."""
    reduction = case["reduction"]
    x, y, w = tensors["self"], tensors["target"], tensors.get("weight")
    if case["kind"] == "loss":
        return F.binary_cross_entropy(x, y, w, reduction=REDUCTION[reduction])
    x = x.detach().clone().requires_grad_(True)
    loss = F.binary_cross_entropy(x, y, w, reduction=REDUCTION[reduction])
    grad = tensors["grad_output"]
    loss.backward(grad if reduction == 0 else grad.reshape(()).to(loss.dtype))
    return x.grad


def probabilities_exact(case, tensors, out_shape=None):
    """The probability family's golden: PyTorch's loss in float64, and the gradient's formula with
    CANN's fl32(1e-12) floor (PyTorch's float64 backward would floor at 1e-12 itself)."""
    if case["kind"] == "loss":
        return probabilities_in_torch(case, tensors)
    x, y, w = tensors["self"], tensors["target"], tensors.get("weight")
    grad = tensors["grad_output"] * (x - y) / torch.clamp(x * (1 - x), min=EPSILON_FP32)
    if w is not None:
        grad = grad * w
    return grad / x.numel() if case["reduction"] == 1 else grad


class Explicit:
    """An op whose golden and PyTorch evaluation are functions of (case, tensors, out_shape)."""

    def __init__(self, golden, in_torch):
        self.golden, self.in_torch = golden, in_torch


# --- The element-wise losses: a pointwise formula per family, reduced generically ---

def sign(d):
    """sign(d) with sign(NaN) = NaN (torch.sign gives 0): the contract hides no NaN input."""
    return torch.where(torch.isnan(d), d, torch.sign(d))


class Formulas:
    """A family's pointwise loss l(x, t), and g times its derivative with respect to self and to
    target, in float64 on broadcast tensors (a = the op's attributes by API name); `torch` is
    PyTorch's function for the family, f(x, t, reduction name, a), for the information column."""

    def __init__(self, loss, grad_self, grad_target, torch_loss):
        self.loss, self.grad_self, self.grad_target = loss, grad_self, grad_target
        self.torch_loss = torch_loss


def smooth_l1_loss(x, t, a):
    d, beta = x - t, a["beta"]
    # beta = 0: |d| < 0 never holds, the L1 loss (the quadratic branch's 0/0 is discarded).
    return torch.where(d.abs() < beta, 0.5 * d * d / beta, d.abs() - 0.5 * beta)


def smooth_l1_grad(x, t, g, a):
    """g d / beta inside, g sign(d) outside: beta = 0 at d = 0 gives g sign(0) = 0, the contract's
    (PyTorch's kernel gives -g, CANN's NaN)."""
    d, beta = x - t, a["beta"]
    return torch.where(d.abs() < beta, g * d / beta, g * sign(d))


def huber_loss(x, t, a):
    d, delta = x - t, a["delta"]
    return torch.where(d.abs() < delta, 0.5 * d * d, delta * (d.abs() - 0.5 * delta))


def huber_grad(x, t, g, a):
    d, delta = x - t, a["delta"]
    return torch.where(d.abs() < delta, g * d, g * delta * sign(d))


def soft_margin_loss(x, t, a):
    """log(1 + exp(-z)), z = x t, in the stable form: finite wherever the maths is (PyTorch's
    literal form overflows to inf for -z > 88.7 in fp32)."""
    z = x * t
    return torch.clamp(-z, min=0) + torch.log1p(torch.exp(-z.abs()))


def soft_margin_grad(x, t, g, a):
    """-t g sigmoid(-z): no inf / inf (PyTorch's and CANN's NaN where exp(-z) overflows)."""
    return -t * g * torch.sigmoid(-(x * t))


def log_of_target(t):
    """ln t with ln 0 taken as 0 (t ln t = 0 at t = 0, as CANN's kernels and xlogy)."""
    return torch.where(t == 0, torch.zeros_like(t), torch.log(t))


def kl_div_loss(x, t, a):
    if a["logTarget"]:
        return torch.exp(t) * (t - x)
    return t * (log_of_target(t) - x)


def kl_div_grad_self(x, t, g, a):
    return -g * (torch.exp(t) if a["logTarget"] else t)


def kl_div_grad_target(x, t, g, a):
    """g (ln t - x + 1), NaN at t = 0 (the derivative does not exist at the domain's edge; CANN
    and PyTorch give NaN there too), or g e^t (t - x + 1) for log targets."""
    if a["logTarget"]:
        return g * torch.exp(t) * (t - x + 1)
    grad = g * (torch.log(t) - x + 1)
    return torch.where(t == 0, torch.full_like(grad, float("nan")), grad)


FORMULAS = {
    "mse_loss": Formulas(
        lambda x, t, a: (x - t) * (x - t),
        lambda x, t, g, a: 2 * g * (x - t),
        lambda x, t, g, a: -2 * g * (x - t),
        lambda x, t, r, a: F.mse_loss(x, t, reduction=r)),
    "l1_loss": Formulas(
        lambda x, t, a: (x - t).abs(),  # int64: wraps, |INT64_MIN| = INT64_MIN, as PyTorch's
        lambda x, t, g, a: g * sign(x - t),
        lambda x, t, g, a: -g * sign(x - t),
        lambda x, t, r, a: F.l1_loss(x, t, reduction=r)),
    "smooth_l1_loss": Formulas(
        smooth_l1_loss, smooth_l1_grad, lambda x, t, g, a: -smooth_l1_grad(x, t, g, a),
        lambda x, t, r, a: F.smooth_l1_loss(x, t, reduction=r, beta=a["beta"])),
    "huber_loss": Formulas(
        huber_loss, huber_grad, lambda x, t, g, a: -huber_grad(x, t, g, a),
        lambda x, t, r, a: F.huber_loss(x, t, reduction=r, delta=a["delta"])),
    "soft_margin_loss": Formulas(
        soft_margin_loss, soft_margin_grad, None,
        lambda x, t, r, a: F.soft_margin_loss(x, t, reduction=r)),
    "kl_div": Formulas(
        kl_div_loss, kl_div_grad_self, kl_div_grad_target,
        lambda x, t, r, a: F.kl_div(x, t, reduction=r, log_target=bool(a["logTarget"]))),
}


def batch_size(x):
    """batchmean's divisor: self.size(0), 1 for a 0-D self (as PyTorch)."""
    return x.shape[0] if x.dim() > 0 else 1


def reduce_loss(loss, case, x):
    """The forward's result: none; a one-element mean, sum or batchmean; or, where the output
    drops dimension 0 (aclnnMseLossOut), the mean or sum over dimension 0 (a 0-D loss as it is).
    An empty mean is NaN (0 / 0), a sum 0, a batchmean NaN only where self.size(0) is 0."""
    reduction = case["reduction"]
    if reduction == 0:
        return loss
    if case["out_reduced"] == "first_dim":
        if loss.dim() == 0:
            return loss
        return loss.mean(0) if reduction == 1 else loss.sum(0)
    total = loss.sum()
    if reduction == 1:
        return total / loss.numel()
    return total / batch_size(x) if reduction == 3 else total


def sum_to(values, shape):
    """A gradient over the broadcast shape summed back to its operand's shape, as autograd does
    (KL divergence's gradients have self's or target's shape)."""
    shape = tuple(shape)
    if tuple(values.shape) == shape:
        return values
    lead = values.dim() - len(shape)
    if lead > 0:
        values = values.sum(dim=tuple(range(lead)))
    kept = tuple(i for i, n in enumerate(shape) if n == 1 and values.shape[i] != 1)
    if kept:
        values = values.sum(dim=kept, keepdim=True)
    return values.reshape(shape)


class Elementwise:
    """An element-wise loss op: its family's Formulas, reduced by the generic rules."""

    def __init__(self, formulas):
        self.formulas = formulas

    def golden(self, case, tensors, out_shape):
        x, t, a = tensors["self"], tensors["target"], case["attributes"]
        broadcast = torch.broadcast_shapes(x.shape, t.shape)
        if case["kind"] == "loss":
            return reduce_loss(self.formulas.loss(x, t, a).expand(broadcast), case, x)
        g = tensors["grad_output"]
        derivative = self.formulas.grad_self if case["kind"] == "grad_self" \
            else self.formulas.grad_target
        grad = derivative(x, t, g, a).expand(torch.broadcast_shapes(broadcast, g.shape))
        reduction = case["reduction"]
        if reduction == 1:
            grad = grad / int(np.prod(broadcast))
        elif reduction == 3:
            grad = grad / batch_size(x)
        return sum_to(grad, out_shape)

    def in_torch(self, case, tensors, out_shape=None):
        """PyTorch's function on the case's tensors; autograd's gradient for a Backward."""
        x, t, a = tensors["self"], tensors["target"], case["attributes"]
        reduction, kind = case["reduction"], case["kind"]
        first_dim = case["out_reduced"] == "first_dim" and reduction != 0

        def forward(x, t):
            if first_dim:  # aclnnMseLossOut: PyTorch has no such function
                loss = self.formulas.torch_loss(x, t, "none", a)
                return loss if loss.dim() == 0 else loss.mean(0) if reduction == 1 else loss.sum(0)
            return self.formulas.torch_loss(x, t, REDUCTION[reduction], a)

        if kind == "loss":
            return forward(x, t)
        # The gradient of sum(g * loss) over the unreduced loss, divided as the reduction divides:
        # autograd's gradient of the reduced loss where g is one element, and what CANN's
        # executors compute where g is full-shaped (MseLossBackward's mean cases).
        x = x.detach().clone().requires_grad_(kind == "grad_self")
        t = t.detach().clone().requires_grad_(kind == "grad_target")
        loss = self.formulas.torch_loss(x, t, "none", a)
        g = tensors["grad_output"].to(loss.dtype)
        shape = torch.broadcast_shapes(loss.shape, g.shape)
        grad = torch.autograd.grad(loss.expand(shape), x if kind == "grad_self" else t,
                                   g.expand(shape))[0]
        if reduction == 1:
            return grad / loss.numel()
        return grad / batch_size(x) if reduction == 3 else grad


# --- The class-axis losses: self is (C), (N, C) or (N, C, d1, ...), target self's shape without
# the class dimension ---

def class_dimension(x):
    """The dimension of self that holds the classes: 0 of a 1-D self, else 1."""
    return 0 if x.dim() == 1 else 1


def nll_grad_self(case, tensors, out_shape=None):
    """The NLL Backwards' gradient (docs/contract/numerics-nll-loss.md): -g w[t] at each counted
    position's target class t (g one element for mean and sum, per position for none), divided by
    totalWeight as given for mean; 0 elsewhere, and a row of zeros where t is ignoreIndex (of any
    value). g w is exact in float64, so the quotient is rounded once."""
    x, t = tensors["self"], tensors["target"].long()
    classes = x.shape[class_dimension(x)]
    counted = t != int(case["attributes"]["ignoreIndex"])
    index = torch.where(counted, t, torch.zeros_like(t))
    g = tensors["grad_output"]
    grad = -(g if case["reduction"] == 0 else g.reshape(())) * tensors["weight"].reshape(-1)[index]
    if case["reduction"] == 1:
        grad = grad / tensors["total_weight"].reshape(())
    grad = torch.where(counted, grad, torch.zeros_like(grad))
    rows = torch.zeros(t.shape + (classes,), dtype=grad.dtype)
    rows.scatter_(-1, index.unsqueeze(-1), grad.unsqueeze(-1))
    return rows.movedim(-1, class_dimension(x))


def nll_grad_self_in_torch(case, tensors, out_shape=None):
    """PyTorch's own kernel (aten's nll_loss2d_backward for a 4-D self): it takes int64 targets
    and divides g by totalWeight before multiplying by w (two roundings)."""
    x = tensors["self"]
    backward = torch.ops.aten.nll_loss2d_backward if x.dim() == 4 else \
        torch.ops.aten.nll_loss_backward
    return backward(tensors["grad_output"], x, tensors["target"].long(),
                    tensors["weight"].reshape(-1), case["reduction"],
                    int(case["attributes"]["ignoreIndex"]), tensors["total_weight"].reshape(()))


# --- The cross entropy: self (N, C) logits (the forward) or log-probabilities (the gradient) ---

def exact_sum(values):
    """The sum of a float64 tensor rounded once (math.fsum), so that a total of mixed signs near 0
    (the gradient files' normal weights) keeps its digits; IEEE's where a value is not finite."""
    values = values.flatten()
    if not torch.isfinite(values).all():
        return values.sum()
    return torch.tensor(math.fsum(values.tolist()), dtype=torch.float64)


def class_weights(tensors, classes):
    return tensors["weight"].reshape(-1) if "weight" in tensors else \
        torch.ones(classes, dtype=torch.float64)


def counted_targets(case, target):
    """(counted, index): the rows whose target is not ignoreIndex (of any value, negative ones
    too: D67), and each row's target with the ignored ones at class 0, to gather with."""
    counted = target != int(case["attributes"]["ignoreIndex"])
    return counted, torch.where(counted, target, torch.zeros_like(target))


def log_softmax_parts(x):
    """a = m - x >= 0 (m the row's maximum) and L = log1p(sum over c != top of e^-a), so that
    lp = -(a + L) (docs/contract/numerics-cross-entropy.md): the sum leaves out the maximum's 1,
    so L keeps its relative precision however close the maximum's probability is to 1. Rows with
    a NaN or +inf logit, or every logit -inf, are the third part: their lp and loss are NaN."""
    m, top = x.max(dim=1)
    special = ~torch.isfinite(m)
    a = m.unsqueeze(1) - x
    terms = torch.exp(-a)
    terms.scatter_(1, top.unsqueeze(1), 0.0)
    return a, torch.log1p(terms.sum(dim=1)), special


def cross_entropy_loss(case, tensors, out_shape=None):
    """lossOut and logProbOut: per counted row (1 - eps) w_t (a_t + L) + eps/C sum_c w_c (a_c + L),
    0 for an ignored row, NaN for a special one; none, sum, or sum / W with W = sum of w_t over the
    counted rows."""
    x, t = tensors["self"], tensors["target"].long()
    classes = x.shape[1]
    w, eps = class_weights(tensors, classes), case["attributes"]["labelSmoothing"]
    a, log1p_rest, special = log_softmax_parts(x)
    lp = -(a + log1p_rest.unsqueeze(1))
    counted, index = counted_targets(case, t)
    loss = w[index] * (a.gather(1, index.unsqueeze(1)).squeeze(1) + log1p_rest)
    if eps != 0:
        smooth = (w * (a + log1p_rest.unsqueeze(1))).sum(dim=1)
        loss = (1 - eps) * loss + eps / classes * smooth
    loss = torch.where(special, torch.full_like(loss, float("nan")), loss)
    loss = torch.where(counted, loss, torch.zeros_like(loss))
    lp = torch.where(special.unsqueeze(1), torch.full_like(lp, float("nan")), lp)
    reduction = case["reduction"]
    if reduction != 0:
        loss = exact_sum(loss)
        if reduction == 1:
            loss = loss / exact_sum(w[index][counted])
    return {"out": loss, "log_prob_out": lp}


def cross_entropy_loss_in_torch(case, tensors, out_shape=None):
    x, t = tensors["self"], tensors["target"].long()
    a = case["attributes"]
    loss = F.cross_entropy(x, t, tensors.get("weight"), ignore_index=int(a["ignoreIndex"]),
                           reduction=REDUCTION[case["reduction"]],
                           label_smoothing=a["labelSmoothing"])
    return {"out": loss, "log_prob_out": F.log_softmax(x, dim=1)}


def cross_entropy_grad(case, tensors, out_shape=None):
    """(a (E - [c = t]) + b (Omega E - w_c)) / D per counted row, E = e^lp, a = s (1 - eps) w_t,
    b = s eps / C, D = W for a mean, else 1; zeros for an ignored row. E - 1 at the target is
    expm1(lp) (lp reaches -1e-9); s w_t is exact in float64."""
    lp, t = tensors["self"], tensors["target"].long()
    classes = lp.shape[1]
    w, eps = class_weights(tensors, classes), case["attributes"]["labelSmoothing"]
    counted, index = counted_targets(case, t)
    reduction = case["reduction"]
    g = tensors["grad_output"]
    s = g.reshape(-1) if reduction == 0 else g.reshape(())
    a = (s * w[index] * (1 - eps)).unsqueeze(1)
    e = torch.exp(lp)
    grad = a * e
    grad.scatter_(1, index.unsqueeze(1), a * torch.expm1(lp.gather(1, index.unsqueeze(1))))
    if eps != 0:
        b = (s * (eps / classes)).reshape(-1, 1) if reduction == 0 else s * (eps / classes)
        grad = grad + b * (exact_sum(w) * e - w)
    if reduction == 1:
        grad = grad / exact_sum(w[index][counted])
    return torch.where(counted.unsqueeze(1), grad, torch.zeros_like(grad))


def cross_entropy_grad_in_torch(case, tensors, out_shape=None):
    """PyTorch's backward of cross_entropy from its log-probabilities: autograd's gradient of the
    loss with respect to lp (nll_loss's, and the label smoothing's as cross_entropy adds it),
    then log_softmax's backward given lp as its output."""
    lp = tensors["self"].detach().clone().requires_grad_(True)
    t, w = tensors["target"].long(), tensors.get("weight")
    a, reduction = case["attributes"], case["reduction"]
    ignore, eps = int(a["ignoreIndex"]), a["labelSmoothing"]
    loss = (1 - eps) * F.nll_loss(lp, t, w, ignore_index=ignore, reduction=REDUCTION[reduction])
    if eps != 0:
        counted = t != ignore
        weighted = lp if w is None else lp * w
        smooth = torch.where(counted, -weighted.sum(dim=1), torch.zeros_like(lp[:, 0]))
        if reduction == 1:
            smooth = smooth.sum() / (counted.sum() if w is None else w[t[counted]].sum())
        loss = loss + eps / lp.shape[1] * (smooth.sum() if reduction == 2 else smooth)
    g = tensors["grad_output"]
    grad_lp = torch.autograd.grad(loss, lp, g if reduction == 0 else g.reshape(()))[0]
    return torch.ops.aten._log_softmax_backward_data(grad_lp, lp, 1, lp.dtype)


# Per API (the manifest's "api"): how its golden and PyTorch's own result are computed.
WITH_LOGITS = Explicit(with_logits, with_logits)
PROBABILITIES = Explicit(probabilities_exact, probabilities_in_torch)
OPS = {
    "aclnnBinaryCrossEntropyWithLogits": WITH_LOGITS,
    "aclnnBinaryCrossEntropyWithLogitsBackward": WITH_LOGITS,
    "aclnnBinaryCrossEntropyWithLogitsTargetBackward": WITH_LOGITS,
    "aclnnBinaryCrossEntropy": PROBABILITIES,
    "aclnnBinaryCrossEntropyBackward": PROBABILITIES,
    "aclnnNLLLossBackward": Explicit(nll_grad_self, nll_grad_self_in_torch),
    "aclnnNLLLoss2dBackward": Explicit(nll_grad_self, nll_grad_self_in_torch),
    "aclnnCrossEntropyLoss": Explicit(cross_entropy_loss, cross_entropy_loss_in_torch),
    "aclnnCrossEntropyLossGrad": Explicit(cross_entropy_grad, cross_entropy_grad_in_torch),
}
for api, family in [("aclnnMseLoss", "mse_loss"), ("aclnnMseLossOut", "mse_loss"),
                    ("aclnnMseLossBackward", "mse_loss"), ("aclnnL1Loss", "l1_loss"),
                    ("aclnnL1LossBackward", "l1_loss"), ("aclnnSmoothL1Loss", "smooth_l1_loss"),
                    ("aclnnSmoothL1LossBackward", "smooth_l1_loss"),
                    ("openaclnnHuberLoss", "huber_loss"),
                    ("openaclnnHuberLossBackward", "huber_loss"),
                    ("aclnnSoftMarginLoss", "soft_margin_loss"),
                    ("aclnnSoftMarginLossBackward", "soft_margin_loss"),
                    ("aclnnKlDiv", "kl_div"), ("aclnnKlDivBackward", "kl_div"),
                    ("aclnnKlDivTargetBackward", "kl_div")]:
    OPS[api] = Elementwise(FORMULAS[family])


def by_role(result):
    """A golden's or PyTorch's results by output role: an op with one output returns it alone."""
    return result if isinstance(result, dict) else {"out": result}


def evaluate_in_dtype(op, case, tensors, dtypes):
    """PyTorch's results by role in the inputs' own dtypes; where this build lacks the kernel
    (fp16 on CPU in 1.13, some mixed-dtype combinations) in the promoted dtype, then in fp32.
    ({}, "none") where it evaluates the case in no dtype (e.g. a gradOutput larger than the
    loss)."""
    attempts = [dtypes]
    promoted = functools.reduce(torch.promote_types, dtypes.values())
    attempts.append({name: promoted for name in dtypes})
    attempts.append({name: torch.float32 for name in dtypes})
    for attempt in attempts:
        try:
            cast = {name: t.to(attempt[name]) for name, t in tensors.items()}
            results = by_role(op.in_torch(case, cast))
            return results, str(results["out"].dtype).replace("torch.", "")
        except RuntimeError:
            continue
    return {}, "none"


def round_to(golden, dtype):
    """The float64 golden rounded once to the output dtype (nearest, ties to even). PyTorch's
    float64 -> fp16 and -> bf16 conversions go through fp32, rounding twice: one unit off where
    the fp32 value lands on a 16-bit midpoint (in the cross entropy gradient's files, one value in
    10^4), which at an fp16 subnormal alone exceeds the thresholds. numpy converts to fp16
    directly; for bf16, rounding to fp32 by round-to-odd keeps the bits a second rounding
    needs."""
    if dtype == "fp16":
        with np.errstate(over="ignore"):  # beyond fp16's range: inf, as it should
            return torch.from_numpy(golden.numpy().astype(np.float16))
    if dtype != "bf16":
        return golden.to(TORCH_DTYPE[dtype])
    single = golden.to(torch.float32)
    widened = single.double()
    inexact = widened != golden
    even = (single.view(torch.int32) & 1) == 0
    toward = torch.where(golden > widened, torch.full_like(single, math.inf),
                         torch.full_like(single, -math.inf))
    odd = torch.where(inexact & even & torch.isfinite(single), torch.nextafter(single, toward),
                      single)
    return odd.to(torch.bfloat16)


def metrics(actual, golden):
    """(MERE, MARE) of actual against golden, in float64; equal values (infinities of one sign)
    and NaN against NaN count as 0."""
    if golden is None:
        return float("inf"), float("inf")
    a, g = actual.double().flatten(), golden.detach().double().flatten()
    if a.numel() == 0:
        return 0.0, 0.0
    rel = (a - g).abs_().div_(g.abs().add_(1e-7))  # in place: the large cases' memory
    rel.masked_fill_((a == g) | (torch.isnan(a) & torch.isnan(g)), 0.0)
    rel.masked_fill_(torch.isnan(rel), float("inf"))
    return rel.mean().item(), rel.max().item()


def compare_case(case, blob):
    """One result per output the case judges."""
    specs = {spec["role"]: spec for spec in case["tensors"]}
    tensors = {role: load_tensor(blob, spec) for role, spec in specs.items()}
    if case["api"] not in OPS:
        raise SystemExit("atk_golden.py: no golden for %s" % case["api"])
    op = OPS[case["api"]]
    # The op's result (role "out") comes first: its shape is the one a gradient is summed to.
    goldens = by_role(op.golden(case, tensors, case["outputs"][0]["shape"]))
    in_dtype, torch_dtype = evaluate_in_dtype(
        op, case, tensors, {role: TORCH_DTYPE[spec["dtype"]] for role, spec in specs.items()})
    return [judge(case, spec, load_tensor(blob, spec), goldens[spec["role"]],
                  in_dtype.get(spec["role"]), torch_dtype, specs.get("self", spec))
            for spec in case["outputs"]]


def judge(case, out_spec, actual, golden, in_dtype, torch_dtype, self_spec):
    """The output's metrics against its golden, rounded to its dtype, and PyTorch's."""
    threshold = THRESHOLD[out_spec["dtype"]]
    result = {"id": case["id"], "output": out_spec["name"], "dtype": out_spec["dtype"],
              "reduction": case["reduction"], "shape": self_spec["shape"],
              "threshold": threshold, "torch_dtype": torch_dtype, "note": ""}
    if tuple(actual.shape) != tuple(golden.shape):
        result.update(mere=float("inf"), mare=float("inf"), passed=False,
                      note="output shape %s, golden shape %s" % (list(actual.shape),
                                                                 list(golden.shape)))
    else:
        # Judged against the float64 golden rounded to the output dtype: the best answer that
        # dtype can hold. Against the unrounded golden a correctly rounded fp16 result can miss
        # the thresholds by itself (gradients near 1e-7 are fp16 subnormals, 6e-8 apart).
        rounded = round_to(golden.detach(), out_spec["dtype"])
        result["mere"], result["mare"] = metrics(actual, rounded)
        if threshold == 0:  # an integer result: equal or not
            result["passed"] = bool(torch.equal(actual, rounded))
        else:
            result["passed"] = result["mere"] < threshold and result["mare"] < 10 * threshold
    same_size = in_dtype is not None and actual.numel() == in_dtype.numel()
    result["vs_torch"] = metrics(actual.reshape(in_dtype.shape), in_dtype) \
        if same_size else [float("inf")] * 2
    result["torch_vs_exact"] = metrics(in_dtype.reshape(golden.shape), golden) \
        if in_dtype is not None and in_dtype.numel() == golden.numel() else [float("inf")] * 2
    # Information only: against the unrounded float64 golden.
    result["vs_rounded"] = metrics(actual.reshape(golden.shape), golden) \
        if actual.numel() == golden.numel() else [float("inf")] * 2
    return result


def strict_json(value):
    """`value` with every non-finite float as None: JSON has no NaN or infinity, and the tool's
    reader takes a null metric for an unbounded error."""
    if isinstance(value, float):
        return value if np.isfinite(value) else None
    if isinstance(value, dict):
        return {key: strict_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(item) for item in value]
    return value


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    # PyTorch's size-mismatch and 'mean'-of-kl_div advice: the cases ask for both on purpose.
    warnings.filterwarnings("ignore", category=UserWarning)
    directory = sys.argv[1]
    with open(directory + "/manifest.json") as f:
        manifest = json.load(f)
    # Mapped, not read: each tensor is copied out when its case comes.
    blob = np.memmap(directory + "/data.bin", dtype=np.uint8, mode="r") \
        if os.path.getsize(directory + "/data.bin") > 0 else np.zeros(0, np.uint8)
    results = []
    for case in manifest["cases"]:
        if case["error"] is None and case.get("skipped") is None:
            # Threads only add start-up cost to the many tiny cases; the large ones use them all.
            elements = max(int(np.prod(spec["shape"]))
                           for spec in case["tensors"] + case["outputs"])
            torch.set_num_threads((os.cpu_count() or 1) if elements >= LARGE_CASE else 1)
            results.extend(compare_case(case, blob))
    with open(directory + "/results.json", "w") as f:
        json.dump(strict_json({"torch": torch.__version__, "cases": results}), f, allow_nan=False)


if __name__ == "__main__":
    main()
