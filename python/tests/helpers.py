"""Shared inputs and references for the package's tests: PyTorch in float64 on exactly the
values the library reads (low-precision inputs widened exactly)."""
import numpy as np
import torch

import openaclnn

F = torch.nn.functional
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
REDUCTIONS = ("none", "mean", "sum")
# Relative error allowed against the float64 reference: the contract's 4 ulp of the output
# dtype (results rounded once), plus the reduction's few ulp for mean/sum.
EPS = {torch.float32: 2.0**-23, torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}


def rand(gen, shape, low=-4.0, high=4.0, dtype=torch.float32):
    return (torch.rand(shape, generator=gen, dtype=torch.float64) * (high - low) + low).to(dtype)


def wide(a):
    """float64 copy of a torch tensor or NumPy array (exact for every input dtype)."""
    if a is None:
        return None
    if isinstance(a, np.ndarray):
        return torch.from_numpy(a.astype(np.float64))
    return a.detach().to(torch.float64)


def reference_loss(x, t, w=None, p=None, reduction="mean"):
    return F.binary_cross_entropy_with_logits(wide(x), wide(t), wide(w), reduction=reduction,
                                              pos_weight=wide(p))


def reference_grads(x, t, w=None, p=None, reduction="mean", grad_output=None):
    """(d loss / d x, d loss / d t) from float64 autograd."""
    xx = wide(x).requires_grad_()
    tt = wide(t).requires_grad_()
    loss = F.binary_cross_entropy_with_logits(xx, tt, wide(w), reduction=reduction,
                                              pos_weight=wide(p))
    g = torch.ones_like(loss) if grad_output is None else wide(grad_output)
    return torch.autograd.grad(loss, (xx, tt), g)


def assert_close(got, ref, dtype, scale=None):
    """|got - ref| <= 8 eps (|ref| + scale): relative, with an absolute floor where the value
    passes near zero (scale: the size of the terms that cancel there)."""
    got = wide(got)
    ref = ref.detach().to(torch.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    floor = ref.abs().mean() if scale is None else scale
    bound = 8 * EPS[dtype] * (ref.abs() + floor)
    assert bool(((got - ref).abs() <= bound).all()), float(((got - ref).abs() - bound).max())


def layouts(gen, shape, dtype, low=-4.0, high=4.0):
    """Values in several layouts: (name, contiguous copy, the view itself)."""
    base = rand(gen, shape, low, high, dtype)
    yield "contiguous", base, base
    t = rand(gen, shape[::-1], low, high, dtype).t()  # a transposed view of fresh memory
    yield "transposed", t.contiguous(), t
    big = rand(gen, (shape[0] * 2, shape[1] * 3), low, high, dtype)
    s = big[1::2, ::3]
    yield "stepped", s.contiguous(), s


def error_of(call):
    try:
        call()
    except openaclnn.Error as error:
        return error
    raise AssertionError("no openaclnn.Error raised")


# (precision in bits with the hidden one, smallest normal exponent, largest finite) per format.
FORMATS = {torch.float32: (24, -126, float(np.finfo(np.float32).max)),
           torch.float16: (11, -14, 65504.0),
           torch.bfloat16: (8, -126, float.fromhex("0x1.fep127"))}


def round_to(values, dtype):
    """float64 values rounded once to nearest-even in `dtype`, as float64 (torch's own casts
    from float64 to float16/bfloat16 pass through float32: two roundings)."""
    precision, emin, largest = FORMATS[dtype]
    v = np.asarray(values, dtype=np.float64)
    _, exponent = np.frexp(v)  # v = m 2^exponent, 0.5 <= |m| < 1
    quantum = np.ldexp(1.0, np.maximum(exponent - precision, emin - precision + 1))
    rounded = np.rint(v / quantum) * quantum  # exact scalings; rint ties to even
    # past the largest finite by half an ulp or more: infinity
    overflow = np.abs(rounded) > largest
    return np.where(overflow, np.copysign(np.inf, v), rounded)


def assert_correctly_rounded(got, ref, dtype, rel=2.0**-40):
    """got is `ref` (a float64 reference good to `rel`) rounded once to dtype: bitwise where
    the reference is clearly off a rounding boundary, else one of the two values it lies
    between (NaN where the reference is NaN)."""
    got = wide(got).numpy()
    ref = ref.detach().to(torch.float64).numpy()
    assert got.shape == ref.shape, (got.shape, ref.shape)
    low, high = round_to(ref - np.abs(ref) * rel, dtype), round_to(ref + np.abs(ref) * rel, dtype)
    nan = np.isnan(ref)
    ok = (got == low) | (got == high) | (nan & np.isnan(got))
    assert ok.all(), (got[~ok], ref[~ok])
