"""The conformance suites' view of OpenACLNN: operands as strided views over raw storages, run
through the openaclnn package's binding (the one binding of the C API; its phases, stream and
synchronisation as a user program runs them), plus exact rounding helpers.

The package is found on PYTHONPATH (ctest sets <build>/python).

Host-side values are float64 numpy arrays; `View` describes one operand as a strided view
(shape, strides, offset, all in elements) over a flat storage of raw fp32/fp16/bf16 bits.
Rounding helpers (`round_to`) implement IEEE round-to-nearest-even from float64 in one step,
with overflow to infinity, for the three formats; they do not depend on the library.
"""
import numpy as np
import torch

import openaclnn
from openaclnn import _binding

# The library's op table (the binding's `ops()`): op name -> its operands' names here, in the C
# API's order, inputs then outputs. Names here are by role: an op's own parameter names
# ("weightOptional") differ between ops.
_ROLE_NAMES = ("self", "target", "weight", "pos_weight", "grad_output", "out", "grad_self_out",
               "total_weight", "total_weight_out", "log_prob_out", "zloss_out",
               "lse_for_zloss_out", "grad_zloss", "lse_for_zloss")
OPS = {op["api"]: tuple(_ROLE_NAMES[operand["role"]] for operand in op["operands"])
       for op in _binding.ops()}
FORWARD = "aclnnBinaryCrossEntropyWithLogits"
BACKWARD = "aclnnBinaryCrossEntropyWithLogitsBackward"
TARGET_BACKWARD = "aclnnBinaryCrossEntropyWithLogitsTargetBackward"
AND_GRAD = "aclnnBinaryCrossEntropyWithLogitsAndGrad"
assert {FORWARD, BACKWARD, TARGET_BACKWARD, AND_GRAD} <= set(OPS), sorted(OPS)


# ----------------------------------------------------------------------------------------------
# Formats and exact rounding (independent of the library)

# name: (numpy storage dtype, precision p (bits incl. hidden), emin, largest finite)
FORMATS = {
    "fp32": (np.float32, 24, -126, float(np.finfo(np.float32).max)),
    "fp16": (np.float16, 11, -14, 65504.0),
    "bf16": (np.uint16, 8, -126, float.fromhex("0x1.fep127")),
}
DTYPES = tuple(FORMATS)


def round_to(values, dtype):
    """IEEE round-to-nearest-even of float64 values to `dtype` (one rounding, overflow -> inf),
    returned as float64."""
    _, p, emin, fmax = FORMATS[dtype]
    v = np.asarray(values, dtype=np.float64)
    out = v.copy()
    fin = np.isfinite(v) & (v != 0)
    if np.any(fin):
        x = v[fin]
        _, e = np.frexp(x)  # x = m * 2^e, 0.5 <= |m| < 1: leading bit 2^(e-1)
        q = np.maximum(e - 1, emin) - (p - 1)  # exponent of the quantum
        r = np.ldexp(np.rint(np.ldexp(x, -q)), q)  # np.rint: ties to even; scaling is exact
        r = np.where(np.abs(r) > fmax, np.copysign(np.inf, x), r)
        out[fin] = r
    return out


def ulp(values, dtype):
    """Spacing of `dtype` at |values| (the quantum of the binade, subnormal floor included)."""
    _, p, emin, _ = FORMATS[dtype]
    v = np.abs(np.asarray(values, dtype=np.float64))
    _, e = np.frexp(np.where(~np.isfinite(v), 1.0, v))  # frexp(0) gives e = 0: floor applies
    e = np.where(v == 0, emin + 1, e)
    return np.ldexp(1.0, np.maximum(e - 1, emin) - (p - 1))


def to_storage(values, dtype):
    """float64 values (rounded to dtype here) -> raw storage array of dtype."""
    r = round_to(values, dtype)
    if dtype == "fp32":
        return r.astype(np.float32)
    if dtype == "fp16":
        return r.astype(np.float16)  # exact: r is representable
    bits = r.astype(np.float32).view(np.uint32)  # exact: bf16 values are fp32 values
    return (bits >> 16).astype(np.uint16)


def from_storage(raw, dtype):
    """raw storage array -> float64 values (exact)."""
    raw = np.asarray(raw)
    if dtype == "bf16":
        wide = np.atleast_1d(raw).astype(np.uint32) << 16
        return wide.view(np.float32).astype(np.float64).reshape(raw.shape)
    return raw.astype(np.float64)


def bits_of(raw):
    """Integer bit patterns of a raw storage array (for bitwise comparisons)."""
    raw = np.asarray(raw)
    return raw.view({4: np.uint32, 2: np.uint16}[raw.dtype.itemsize])


# ----------------------------------------------------------------------------------------------
# Strided views over a storage


class View:
    """One operand: a view (shape, strides, offset; elements) over a flat raw storage."""

    def __init__(self, dtype, storage, shape, strides=None, offset=0):
        self.dtype = dtype
        self.storage = np.ascontiguousarray(storage)
        self.shape = tuple(int(s) for s in shape)
        if strides is None:
            strides = contiguous_strides(self.shape)
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)

    @property
    def numel(self):
        return int(np.prod(self.shape)) if self.shape else 1

    def indices(self):
        """Flat storage index of every view element, as an array of the view's shape."""
        idx = np.full(self.shape, self.offset, dtype=np.int64)
        for d, (n, s) in enumerate(zip(self.shape, self.strides)):
            shp = [1] * len(self.shape)
            shp[d] = n
            idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shp)
        return idx

    def values(self, storage=None):
        """float64 values of the view (of `storage` if given, e.g. an output copied back)."""
        st = self.storage if storage is None else storage
        return from_storage(st[self.indices()], self.dtype)

    @staticmethod
    def contiguous(values, dtype):
        values = np.asarray(values, dtype=np.float64)
        return View(dtype, to_storage(values.reshape(-1), dtype), values.shape)


def contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(strides))


def random_layout(rng, shape, transpose=True, slice_=True, broadcast=False):
    """A random (strides, offset, storage_size) realising `shape`: the dimensions laid out in a
    random physical order, each with a step of 1-3 and a start inside a padded extent, plus a
    leading offset. With broadcast=True some size-1-or-more dims may get stride 0 (inputs only).
    """
    r = len(shape)
    order = list(rng.permutation(r)) if transpose else list(range(r))
    steps = [int(rng.integers(1, 4)) if slice_ else 1 for _ in range(r)]
    starts = [int(rng.integers(0, 3)) if slice_ else 0 for _ in range(r)]
    ext = [max(shape[d], 1) * steps[d] + starts[d] + (int(rng.integers(0, 2)) if slice_ else 0)
           for d in range(r)]
    strides = [0] * r
    acc = 1
    base = int(rng.integers(0, 5)) if slice_ else 0
    offset = base
    for d in reversed(order):
        strides[d] = acc * steps[d]
        offset += starts[d] * acc
        acc *= ext[d]
    if broadcast:
        for d in range(r):
            if rng.random() < 0.25:
                strides[d] = 0
    extent = offset + sum((n - 1) * s for n, s in zip(shape, strides) if n > 0) + 1
    size = max(extent + int(rng.integers(0, 3)), acc + base, 1)
    return tuple(strides), offset, size


def strided_view(values, dtype, strides, offset, size, fill=np.nan):
    """A View of `values` (float64, rounded to dtype) placed at (strides, offset) in a storage of
    `size` elements whose other elements hold `fill` (NaN by default: reading one shows)."""
    values = np.asarray(values, dtype=np.float64)
    v = View(dtype, to_storage(np.full(size, fill), dtype), values.shape, strides, offset)
    if values.size:
        v.storage[v.indices()] = to_storage(values, dtype)
    return v


def random_view(rng, values, dtype, kind=None, out=False):
    """`values` placed in a random layout: kind in {contiguous, transposed, sliced, both,
    broadcast}; chosen at random when None. Outputs never get zero strides."""
    values = np.asarray(values, dtype=np.float64)
    kinds = ["contiguous", "transposed", "sliced", "both"] + ([] if out else ["broadcast"])
    if kind is None:
        kind = kinds[int(rng.integers(0, len(kinds)))]
    if kind == "contiguous":
        if rng.random() < 0.5:
            return View.contiguous(values, dtype)
        strides, offset, size = contiguous_strides(values.shape), 0, max(values.size, 1)
    else:
        t = kind in ("transposed", "both")
        s = kind in ("sliced", "both")
        strides, offset, size = random_layout(rng, values.shape, t, s)
    if kind == "broadcast":
        # zero strides may only repeat one value: make the values constant along those dims
        strides = list(strides)
        for d, n in enumerate(values.shape):
            if rng.random() < 0.3:
                strides[d] = 0
                values = np.repeat(np.take(values, [0], axis=d), n, axis=d) if n else values
        extent = offset + sum((n - 1) * st for n, st in zip(values.shape, strides) if n > 0) + 1
        size = max(size, extent)
    return strided_view(values, dtype, strides, offset, size)


def output_view(rng, shape, dtype, kind=None, sentinel=-7.25):
    """A strided output view over a storage pre-filled with `sentinel` everywhere."""
    zeros = np.zeros(shape)
    v = random_view(rng, zeros, dtype, kind=kind, out=True)
    v.storage[:] = to_storage(np.full(v.storage.size, sentinel), dtype)
    return v


# ----------------------------------------------------------------------------------------------
# Running an op


def as_tensor(view, storage=None):
    """A torch tensor over `storage` (view.storage by default) with the view's shape, strides
    and offset: the memory itself, no copy (bf16 bits reinterpreted)."""
    storage = view.storage if storage is None else storage
    flat = torch.from_numpy(storage.view(np.int16) if view.dtype == "bf16" else storage)
    if view.dtype == "bf16":
        flat = flat.view(torch.bfloat16)
    return flat.as_strided(view.shape, view.strides, view.offset)


class OpResult:
    def __init__(self, status, out_storage, out_view, message):
        self.status = status
        self.storage = out_storage  # raw storage of out after the run (None if it failed)
        self.view = out_view
        self.message = message

    def values(self):
        """float64 values of out's view."""
        return self.view.values(self.storage)

    def raw(self):
        """raw elements of out's view (for bitwise checks)."""
        return self.storage[self.view.indices()]


def run_op(name, inputs, reduction, out):
    """Runs op `name` with `inputs` (dict: operand name -> View or None) into a copy of `out`'s
    storage (`out` itself keeps its contents for comparisons). Returns an OpResult; status != 0
    means the C API rejected the call."""
    result = out.storage.copy()
    operands = []
    for operand in OPS[name]:
        if operand == "out":
            operands.append(as_tensor(out, result))
        else:
            operands.append(None if inputs.get(operand) is None else as_tensor(inputs[operand]))
    try:
        _binding.run(name, tuple(operands), reduction)
    except openaclnn.Error as error:
        return OpResult(error.status, None, out, str(error))
    return OpResult(0, result, out, "")


def forward(x, t, w=None, p=None, reduction=0, out=None, out_dtype=None):
    """aclnnBinaryCrossEntropyWithLogits. x, t, w, p: View or (values, dtype) tuples."""
    x, t, w, p = (_as_view(a) for a in (x, t, w, p))
    if out is None:
        out = View.contiguous(np.zeros(x.shape if reduction == 0 else ()), out_dtype or t.dtype)
    return run_op(FORWARD, {"self": x, "target": t, "weight": w, "pos_weight": p}, reduction,
                  out)


def backward(name, g, x, t, w=None, p=None, reduction=0, out=None):
    """The two gradient ops (name = BACKWARD or TARGET_BACKWARD)."""
    g, x, t, w, p = (_as_view(a) for a in (g, x, t, w, p))
    if out is None:
        out = View.contiguous(np.zeros(x.shape), t.dtype)
    return run_op(name, {"grad_output": g, "self": x, "target": t, "weight": w,
                         "pos_weight": p}, reduction, out)


def _as_view(a):
    if a is None or isinstance(a, View):
        return a
    values, dtype = a
    return View.contiguous(values, dtype)


# ----------------------------------------------------------------------------------------------
# Checking helpers


def within_rounded_interval(got, exact, tol, dtype):
    """Elementwise: got (float64 values of dtype) lies in [RN(exact - tol), RN(exact + tol)],
    i.e. got is what one rounding to dtype of some value within tol of exact gives.
    Non-finite exacts must match in class (NaN / +inf / -inf)."""
    got = np.asarray(got, dtype=np.float64)
    exact = np.asarray(exact, dtype=np.float64)
    tol = np.broadcast_to(np.asarray(tol, dtype=np.float64), exact.shape)
    ok = np.zeros(exact.shape, dtype=bool)
    fin = np.isfinite(exact)
    lo = round_to(exact - tol, dtype)
    hi = round_to(exact + tol, dtype)
    ok[fin] = (got[fin] >= lo[fin]) & (got[fin] <= hi[fin])
    nf = ~fin
    ok[nf] = same_class(got[nf], exact[nf])
    return ok


def same_class(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return (np.isnan(a) & np.isnan(b)) | ((a == b) & np.isinf(a)) | (
        np.isfinite(a) & np.isfinite(b))


def value_class(a):
    a = np.asarray(a, dtype=np.float64)
    return np.where(np.isnan(a), "nan", np.where(a == np.inf, "+inf",
                                                 np.where(a == -np.inf, "-inf", "finite")))


def ulp_error(got, exact, dtype="fp32"):
    """|got - exact| in units of dtype's ulp at exact (finite values only)."""
    got = np.asarray(got, dtype=np.float64)
    exact = np.asarray(exact, dtype=np.float64)
    return np.abs(got - exact) / ulp(exact, dtype)
