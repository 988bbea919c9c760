"""ctypes bindings to OpenACLNN's C API, used by the conformance suites.

Everything goes through the public C API exactly as a user program would: aclInit,
aclrtSetDevice, aclrtCreateStream, aclrtMalloc + aclrtMemcpy, aclCreateTensor with explicit
strides / offset / storage shape, the two phases of an op, aclrtSynchronizeStream, copy back,
destroy and free.

The library is the file named by $OPENACLNN_LIBRARY, else <repo>/build/lib64/libopenaclnn.so.

Host-side values are float64 numpy arrays; `View` describes one operand as a strided view
(shape, strides, offset, all in elements) over a flat storage of raw fp32/fp16/bf16 bits.
Rounding helpers (`round_to`) implement IEEE round-to-nearest-even from float64 in one step,
with overflow to infinity, for the three formats; they do not depend on the library.
"""
import atexit
import ctypes
import os

import numpy as np

# ----------------------------------------------------------------------------------------------
# Library and runtime

_HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_LIB = os.path.join(_HERE, "..", "..", "build", "lib64", "libopenaclnn.so")
LIBRARY_PATH = os.path.abspath(os.environ.get("OPENACLNN_LIBRARY") or _DEFAULT_LIB)

lib = ctypes.CDLL(LIBRARY_PATH)

c_void_p = ctypes.c_void_p
c_i64 = ctypes.c_int64
c_u64 = ctypes.c_uint64
c_int = ctypes.c_int
I64P = ctypes.POINTER(c_i64)

ACL_FLOAT, ACL_FLOAT16, ACL_BF16 = 0, 1, 27
ACL_FORMAT_ND = 2
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_MEM_MALLOC_HUGE_FIRST = 0

ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002


def _fn(name, restype, argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = argtypes
    return f


aclInit = _fn("aclInit", c_int, [ctypes.c_char_p])
aclFinalize = _fn("aclFinalize", c_int, [])
aclrtSetDevice = _fn("aclrtSetDevice", c_int, [ctypes.c_int32])
aclrtResetDevice = _fn("aclrtResetDevice", c_int, [ctypes.c_int32])
aclrtCreateStream = _fn("aclrtCreateStream", c_int, [ctypes.POINTER(c_void_p)])
aclrtDestroyStream = _fn("aclrtDestroyStream", c_int, [c_void_p])
aclrtSynchronizeStream = _fn("aclrtSynchronizeStream", c_int, [c_void_p])
aclrtMalloc = _fn("aclrtMalloc", c_int, [ctypes.POINTER(c_void_p), ctypes.c_size_t, c_int])
aclrtFree = _fn("aclrtFree", c_int, [c_void_p])
aclrtMemcpy = _fn("aclrtMemcpy", c_int,
                  [c_void_p, ctypes.c_size_t, c_void_p, ctypes.c_size_t, c_int])
aclGetRecentErrMsg = _fn("aclGetRecentErrMsg", ctypes.c_char_p, [])
aclCreateTensor = _fn("aclCreateTensor", c_void_p,
                      [I64P, c_u64, c_int, I64P, c_i64, c_int, I64P, c_u64, c_void_p])
aclDestroyTensor = _fn("aclDestroyTensor", c_int, [c_void_p])


# op name -> number of tensor inputs before `reduction` (all ops: ..., reduction, out, ws, exec)
OPS = {
    "aclnnBinaryCrossEntropyWithLogits": ("self", "target", "weight", "pos_weight"),
    "aclnnBinaryCrossEntropyWithLogitsBackward":
        ("grad_output", "self", "target", "weight", "pos_weight"),
    "aclnnBinaryCrossEntropyWithLogitsTargetBackward":
        ("grad_output", "self", "target", "weight", "pos_weight"),
}
FORWARD, BACKWARD, TARGET_BACKWARD = list(OPS)


def _bind_op(name):
    n = len(OPS[name])
    ws = _fn(name + "GetWorkspaceSize", c_int,
             [c_void_p] * n + [c_i64, c_void_p, ctypes.POINTER(c_u64),
                               ctypes.POINTER(c_void_p)])
    run = _fn(name, c_int, [c_void_p, c_u64, c_void_p, c_void_p])
    return ws, run


_ops = {}


def _op(name):
    if name not in _ops:
        _ops[name] = _bind_op(name)
    return _ops[name]


class AclError(RuntimeError):
    pass


def _check(rc, what):
    if rc != 0:
        msg = aclGetRecentErrMsg()
        raise AclError(f"{what} returned {rc}: {msg.decode() if msg else ''}")


_stream = None


def stream():
    """Initialises the runtime once per process and returns the stream every op runs on."""
    global _stream
    if _stream is None:
        _check(aclInit(None), "aclInit")
        _check(aclrtSetDevice(0), "aclrtSetDevice")
        s = c_void_p()
        _check(aclrtCreateStream(ctypes.byref(s)), "aclrtCreateStream")
        _stream = s
        atexit.register(_shutdown)
    return _stream


def _shutdown():
    global _stream
    if _stream is not None:
        aclrtDestroyStream(_stream)
        aclrtResetDevice(0)
        aclFinalize()
        _stream = None


# ----------------------------------------------------------------------------------------------
# Formats and exact rounding (independent of the library)

# name: (acl dtype, numpy storage dtype, precision p (bits incl. hidden), emin, largest finite)
FORMATS = {
    "fp32": (ACL_FLOAT, np.float32, 24, -126, float(np.finfo(np.float32).max)),
    "fp16": (ACL_FLOAT16, np.float16, 11, -14, 65504.0),
    "bf16": (ACL_BF16, np.uint16, 8, -126, float.fromhex("0x1.fep127")),
}
DTYPES = tuple(FORMATS)


def round_to(values, dtype):
    """IEEE round-to-nearest-even of float64 values to `dtype` (one rounding, overflow -> inf),
    returned as float64."""
    _, _, p, emin, fmax = FORMATS[dtype]
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
    _, _, p, emin, _ = FORMATS[dtype]
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

    def __init__(self, dtype, storage, shape, strides=None, offset=0, storage_shape=None):
        self.dtype = dtype
        self.storage = np.ascontiguousarray(storage)
        self.shape = tuple(int(s) for s in shape)
        if strides is None:
            strides = contiguous_strides(self.shape)
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)
        self.storage_shape = (tuple(storage_shape) if storage_shape is not None
                              else (self.storage.size,))
        assert int(np.prod(self.storage_shape)) == self.storage.size

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
        return View(dtype, to_storage(values.reshape(-1), dtype), values.shape,
                    storage_shape=values.shape if values.ndim else (1,))


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


class _Device:
    """Device copies of the storages of a set of views, freed on exit."""

    def __init__(self):
        self.ptrs = []

    def upload(self, view):
        nbytes = max(view.storage.nbytes, 1)
        p = c_void_p()
        _check(aclrtMalloc(ctypes.byref(p), nbytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
        self.ptrs.append(p)
        if view.storage.nbytes:
            _check(aclrtMemcpy(p, nbytes, view.storage.ctypes.data_as(c_void_p),
                               view.storage.nbytes, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy H2D")
        return p

    def download(self, p, view):
        host = np.empty_like(view.storage)
        if host.nbytes:
            _check(aclrtMemcpy(host.ctypes.data_as(c_void_p), host.nbytes, p, host.nbytes,
                               ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy D2H")
        return host

    def free(self):
        for p in self.ptrs:
            aclrtFree(p)
        self.ptrs = []


def _arr(vals):
    vals = list(vals)
    return (c_i64 * max(len(vals), 1))(*vals)


def create_tensor(view, ptr):
    shape, strides, sshape = _arr(view.shape), _arr(view.strides), _arr(view.storage_shape)
    t = aclCreateTensor(shape, len(view.shape), FORMATS[view.dtype][0], strides, view.offset,
                        ACL_FORMAT_ND, sshape, len(view.storage_shape), ptr)
    if not t:
        raise AclError("aclCreateTensor failed: " + (aclGetRecentErrMsg() or b"").decode())
    return t


class OpResult:
    def __init__(self, status, out_storage, out_view, workspace_size, message):
        self.status = status
        self.storage = out_storage  # raw storage of out after the run (None if phase 1 failed)
        self.view = out_view
        self.workspace_size = workspace_size
        self.message = message

    def values(self):
        """float64 values of out's view."""
        return self.view.values(self.storage)

    def raw(self):
        """raw elements of out's view (for bitwise checks)."""
        return self.storage[self.view.indices()]


def run_op(name, inputs, reduction, out):
    """Runs op `name` with `inputs` (dict: operand name -> View or None) and `out` (View).
    Returns an OpResult; status != 0 means phase 1 (or 2) rejected the call."""
    ws_fn, run_fn = _op(name)
    s = stream()
    dev = _Device()
    tensors = []
    try:
        args = []
        for operand in OPS[name]:
            v = inputs.get(operand)
            if v is None:
                args.append(None)
            else:
                t = create_tensor(v, dev.upload(v))
                tensors.append(t)
                args.append(t)
        out_ptr = dev.upload(out)
        out_t = create_tensor(out, out_ptr)
        tensors.append(out_t)
        ws_size = c_u64(0)
        executor = c_void_p()
        rc = ws_fn(*args, reduction, out_t, ctypes.byref(ws_size), ctypes.byref(executor))
        if rc != 0:
            return OpResult(rc, None, out, None, (aclGetRecentErrMsg() or b"").decode())
        ws_ptr = c_void_p()
        if ws_size.value > 0:
            _check(aclrtMalloc(ctypes.byref(ws_ptr), ws_size.value, ACL_MEM_MALLOC_HUGE_FIRST),
                   "aclrtMalloc(workspace)")
            dev.ptrs.append(ws_ptr)
        rc = run_fn(ws_ptr, ws_size.value, executor, s)
        if rc != 0:
            return OpResult(rc, None, out, ws_size.value, (aclGetRecentErrMsg() or b"").decode())
        _check(aclrtSynchronizeStream(s), "aclrtSynchronizeStream")
        return OpResult(0, dev.download(out_ptr, out), out, ws_size.value, "")
    finally:
        for t in tensors:
            aclDestroyTensor(t)
        dev.free()


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
