"""Seeded random case generation shared by the differential suites."""
import numpy as np

import aclnn as A

MAX_SMALL_NUMEL = 96


def random_shape(rng, rank=None, big=False):
    if rank is None:
        rank = int(rng.integers(0, 9))
    if big:  # crosses the library's 4096-element reduction blocks
        n = int(rng.integers(4097, 12000))
        shape = [1] * rank if rank else []
        if rank:
            shape[int(rng.integers(0, rank))] = n
        return tuple(shape)
    while True:
        hi = 6 if rank <= 3 else (4 if rank <= 5 else 3)
        shape = tuple(int(rng.integers(1, hi + 1)) for _ in range(rank))
        if int(np.prod(shape)) <= MAX_SMALL_NUMEL:
            return shape


def broadcast_shape(rng, shape, mode):
    """A shape that broadcasts into `shape`: full, trailing dims, [C], size-1 dims, rank 0."""
    r = len(shape)
    if mode == "full" or r == 0 and mode != "scalar":
        return tuple(shape)
    if mode == "scalar":
        return ()
    if mode == "trailing":
        return tuple(shape[int(rng.integers(0, r + 1)):])
    if mode == "C":
        return (shape[-1],)
    # "ones": some dims set to 1, some leading dims dropped
    s = [1 if rng.random() < 0.5 else n for n in shape]
    return tuple(s[int(rng.integers(0, r + 1)):]) if rng.random() < 0.5 else tuple(s)


WEIGHT_MODES = ["absent", "full", "trailing", "C", "ones", "scalar"]


def random_x(rng, shape):
    kind = rng.integers(0, 4)
    if kind == 0:
        return rng.normal(0.0, 3.0, shape)
    if kind == 1:
        return rng.uniform(-30.0, 30.0, shape)
    if kind == 2:
        return rng.normal(0.0, 0.5, shape)
    return rng.choice([-12.0, -3.5, -0.25, 0.0, 0.75, 2.0, 9.0], size=shape) + \
        rng.normal(0.0, 1e-3, shape)


def random_target(rng, shape, in_domain=True):
    if not in_domain:
        return rng.uniform(-1.0, 2.0, shape)
    kind = rng.integers(0, 3)
    if kind == 0:
        return rng.uniform(0.0, 1.0, shape)
    if kind == 1:
        return rng.integers(0, 2, shape).astype(np.float64)
    return np.clip(rng.choice([0.0, 1.0, 0.5], size=shape) + rng.normal(0, 0.05, shape), 0, 1)


def random_weight(rng, shape, in_domain=True):
    if not in_domain:
        return rng.uniform(-2.0, 3.0, shape)
    w = rng.uniform(0.0, 3.0, shape)
    if w.size and rng.random() < 0.3:
        w.flat[int(rng.integers(0, w.size))] = 0.0
    return w


def pick_dtype(rng):
    return A.DTYPES[int(rng.integers(0, 3))]


def x_sweep():
    """fp32 x values: every binade (both signs, several mantissas), subnormals, zero, the
    largest finite values, and a dense uniform grid over [-120, 120] where the tails live."""
    rng = np.random.default_rng(42)
    mant = np.concatenate([[1.0, 1.5, 2.0 - 2.0 ** -23], rng.uniform(1.0, 2.0, 3)])
    e = np.arange(-126, 128)
    binades = (mant[None, :] * np.ldexp(1.0, e)[:, None]).reshape(-1)
    sub = np.ldexp(np.array([1.0, 2.0, 3.0, 1000.0, 2.0 ** 22, 2.0 ** 23 - 1]), -149)
    big = np.array([float(np.finfo(np.float32).max), 3.0e38, 1.0e38])
    dense = rng.uniform(-120.0, 120.0, 20000)
    mid = rng.uniform(-20.0, 20.0, 6000)
    pos = np.concatenate([binades, sub, big])
    x = np.concatenate([pos, -pos, [0.0], dense, mid])
    x = A.round_to(x, "fp32")
    assert np.isfinite(x).all()
    return x


def random_operands(rng, shape, in_domain):
    """self and target over `shape`, and weight and pos_weight each absent, full or broadcast,
    every one in a random dtype and a random strided view."""
    x = A.random_view(rng, random_x(rng, shape), pick_dtype(rng))
    t = A.random_view(rng, random_target(rng, shape, in_domain), pick_dtype(rng))
    weights = []
    for _ in ("weight", "pos_weight"):
        mode = WEIGHT_MODES[int(rng.integers(0, len(WEIGHT_MODES)))]
        if mode == "absent":
            weights.append(None)
            continue
        wshape = broadcast_shape(rng, shape, mode)
        weights.append(A.random_view(rng, random_weight(rng, wshape, in_domain), pick_dtype(rng)))
    return x, t, weights[0], weights[1]
