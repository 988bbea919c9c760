"""Property-based: random shapes, broadcast weights and layouts (permuted and stepped NumPy
views) give PyTorch's float64 loss on the same values."""
import numpy as np
import torch
from hypothesis import given, settings, strategies as st

import openaclnn
from helpers import assert_close, reference_loss


@st.composite
def problems(draw):
    rank = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)

    def view(values):
        # the values at a random permutation and step of a larger array
        order = rng.permutation(values.ndim)
        steps = tuple(int(s) for s in rng.integers(1, 3, values.ndim))
        big_shape = tuple(values.shape[d] * steps[d] for d in order)
        big = np.full(big_shape, np.nan, np.float32)
        inverse = np.argsort(order)
        v = big.transpose(inverse)[tuple(slice(None, None, s) for s in steps) + (...,)]
        v[...] = values
        return v

    x = view(rng.uniform(-20, 20, shape).astype(np.float32))
    t = view(rng.uniform(0, 1, shape).astype(np.float32))
    # weights broadcast into shape from any suffix, with 1s anywhere
    w_rank = draw(st.integers(0, rank))
    w_shape = tuple(1 if draw(st.booleans()) else n for n in shape[rank - w_rank:])
    w = rng.uniform(0, 2, w_shape).astype(np.float32) if draw(st.booleans()) else None
    p = view(rng.uniform(0, 3, shape).astype(np.float32)) if draw(st.booleans()) else None
    reduction = draw(st.sampled_from(["none", "mean", "sum"]))
    return x, t, w, p, reduction


@settings(max_examples=150, deadline=None, database=None)  # nothing written to the tree
@given(problems())
def test_random_problems_match_torch_float64(problem):
    x, t, w, p, reduction = problem
    loss = openaclnn.binary_cross_entropy_with_logits(x, t, w, p, reduction)
    assert isinstance(loss, np.ndarray)
    ref = reference_loss(x.copy(), t.copy(), w, None if p is None else p.copy(), reduction)
    assert_close(torch.from_numpy(np.asarray(loss, np.float64)), ref, torch.float32,
                 ref.abs().max() if ref.numel() else 0)
