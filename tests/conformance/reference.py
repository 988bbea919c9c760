"""Independent references for the conformance suites: float64 numpy formulas written to be
accurate (no cancellation in the loss for t in [0,1], w, p >= 0), the magnitude of the largest
term of each formula (for error bounds where the exact value can cancel), and PyTorch's own
float64 / float32 evaluations. Nothing here calls OpenACLNN."""
import numpy as np
import torch
import torch.nn.functional as F

EPS32 = 2.0 ** -23  # fp32 ulp at 1
EPS64 = 2.0 ** -52
REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _f64(a):
    return np.asarray(a, dtype=np.float64)


def softplus(z):
    """log(1 + exp(z)) in float64, relative error a few ulp for every z (both terms >= 0)."""
    z = _f64(z)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))


def sigmoid(x):
    x = _f64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def log_sigmoid(x):
    x = _f64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))


def ones_if_none(a):
    return 1.0 if a is None else _f64(a)


# ----------------------------------------------------------------------------------------------
# Forward


def loss(x, t, w=None, p=None):
    """w * (p*t*softplus(-x) + (1-t)*softplus(x)), float64."""
    x, t, w, p = _f64(x), _f64(t), ones_if_none(w), ones_if_none(p)
    with np.errstate(invalid="ignore", over="ignore"):
        return w * (p * t * softplus(-x) + (1.0 - t) * softplus(x))


def loss_largest_term(x, t, w=None, p=None):
    x, t, w, p = _f64(x), _f64(t), ones_if_none(w), ones_if_none(p)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.maximum(np.abs(w * p * t * softplus(-x)), np.abs(w * (1.0 - t) * softplus(x)))


def in_domain(t, w=None, p=None):
    t, w, p = _f64(t), ones_if_none(w), ones_if_none(p)
    return (t >= 0) & (t <= 1) & (w >= 0) & (p >= 0)


def loss_formula_ieee(x, t, w=None, p=None):
    """((1-t)*x - (1+(p-1)*t)*log_sigmoid(x))*w in float64 IEEE: decides the class (NaN, +-inf)
    of the result for non-finite inputs."""
    x, t, w, p = _f64(x), _f64(t), ones_if_none(w), ones_if_none(p)
    with np.errstate(invalid="ignore", over="ignore"):
        return ((1.0 - t) * x - ((p - 1.0) * t + 1.0) * log_sigmoid(x)) * w


def torch_forward(x, t, w=None, p=None, reduction=0, dtype=torch.float64):
    """PyTorch's binary_cross_entropy_with_logits on the given (already dtype-rounded) values."""
    def tt(a):
        return None if a is None else torch.tensor(_f64(a), dtype=dtype)
    with torch.no_grad():
        r = F.binary_cross_entropy_with_logits(tt(x), tt(t), weight=tt(w), pos_weight=tt(p),
                                               reduction=REDUCTIONS[reduction])
    return r.double().numpy()


def torch64_forward_slack(x, t, w=None, p=None):
    """A bound on the absolute error of PyTorch's float64 forward (it evaluates
    (1-t)*x + lw*(log(exp(-m) + exp(-x-m)) + m), m = max(-x, 0), which cancels)."""
    x, t, w, p = _f64(x), _f64(t), ones_if_none(w), ones_if_none(p)
    lw = np.abs((p - 1.0) * t) + 1.0
    with np.errstate(invalid="ignore", over="ignore"):
        return 16 * EPS64 * np.abs(w) * (np.abs((1.0 - t) * x) + lw * (np.abs(x) + 1.0))


# ----------------------------------------------------------------------------------------------
# Gradients


def grad_self(g, x, t, w=None, p=None, n=1):
    """g*w*((1 + (p-1)*t)*sigmoid(x) - p*t) / n, float64 (written as (1-t)s(x) - p t s(-x))."""
    g, x, t, w, p = _f64(g), _f64(x), _f64(t), ones_if_none(w), ones_if_none(p)
    with np.errstate(invalid="ignore", over="ignore"):
        return g * w * ((1.0 - t) * sigmoid(x) - p * t * sigmoid(-x)) / n


def grad_self_largest_term(g, x, t, w=None, p=None, n=1):
    g, x, t, w, p = _f64(g), _f64(x), _f64(t), ones_if_none(w), ones_if_none(p)
    s = sigmoid(x)
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.maximum.reduce([np.abs(p * t), s, np.abs((p - 1.0) * t * s),
                               np.abs(((p - 1.0) * t + 1.0) * s)])
        return np.abs(g * w) * m / n


def grad_self_formula_ieee(g, x, t, w=None, p=None, n=1):
    g, x, t, w, p = _f64(g), _f64(x), _f64(t), ones_if_none(w), ones_if_none(p)
    with np.errstate(invalid="ignore", over="ignore"):
        s = np.where(np.isnan(x), np.nan, sigmoid(x))
        return g * w * (((p - 1.0) * t + 1.0) * s - p * t) / n


def grad_target(g, x, w=None, p=None, n=1):
    """g*w*(p*softplus(-x) - softplus(x)) / n, float64."""
    g, x, w, p = _f64(g), _f64(x), ones_if_none(w), ones_if_none(p)
    with np.errstate(invalid="ignore", over="ignore"):
        return g * w * (p * softplus(-x) - softplus(x)) / n


def grad_target_largest_term(g, x, w=None, p=None, n=1):
    g, x, w, p = _f64(g), _f64(x), ones_if_none(w), ones_if_none(p)
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.maximum.reduce([np.abs(p) * softplus(-x), softplus(x), softplus(-x)])
        return np.abs(g * w) * m / n


grad_target_formula_ieee = grad_target  # softplus already gives IEEE limits at +-inf / NaN


def torch_grad(which, g, x, t, w=None, p=None, reduction=0, dtype=torch.float64):
    """PyTorch autograd: d/d`which` ('self' or 'target') of BCE-with-logits, backpropagating
    gradOutput g (full-shaped for none, one element for mean/sum)."""
    def tt(a, grad=False):
        if a is None:
            return None
        return torch.tensor(_f64(a), dtype=dtype, requires_grad=grad)
    xt = tt(x, which == "self")
    tgt = tt(t, which == "target")
    lo = F.binary_cross_entropy_with_logits(xt, tgt, weight=tt(w), pos_weight=tt(p),
                                            reduction=REDUCTIONS[reduction])
    gt = tt(g)
    if reduction != 0:
        gt = gt.reshape(())
    lo.backward(gt)
    return (xt if which == "self" else tgt).grad.double().numpy()
