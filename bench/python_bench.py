"""The Python package against PyTorch, as ratios measured side by side in one run:

- per-call cost at N = 1e3 (the mean loss of fp32 torch tensors, and of NumPy arrays);
- a training step, `loss = f(x, t); loss.backward()`, fp32, N = 1e6 and 1e7, 2 threads;
- binary_cross_entropy (probabilities) against torch.nn.functional.binary_cross_entropy, fp32,
  N = 1e3, 1e5, 1e6 and 1e7, 2 threads: the mean loss, its backward alone through autograd, and
  the training step;
- the same three rows for each element-wise loss the package has (mse_loss, l1_loss,
  smooth_l1_loss, huber_loss, soft_margin_loss, kl_div) against torch.nn.functional's function
  of that name; a function the package does not have yet is named as missing, not measured.

Each figure is the best of several interleaved repetitions (neighbours on a shared machine only
ever slow a run down). Prints a Markdown table for docs/performance.md.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py
"""
import os
import timeit
import warnings

THREADS = 2
os.environ["OPENACLNN_NUM_THREADS"] = str(THREADS)  # read when the library loads

import torch  # noqa: E402

import openaclnn  # noqa: E402

F = torch.nn.functional


def best_seconds(fn, number, repeat=7):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def side_by_side(theirs, ours, number, rounds=3):
    """Best per-call seconds of each, alternating rounds so both see the same neighbours."""
    t_best = o_best = float("inf")
    for _ in range(rounds):
        t_best = min(t_best, best_seconds(theirs, number))
        o_best = min(o_best, best_seconds(ours, number))
    return t_best, o_best


def per_call_rows(n=1000):
    gen = torch.Generator().manual_seed(0)
    x, t = torch.randn(n, generator=gen), torch.rand(n, generator=gen)
    xn, tn = x.numpy(), t.numpy()
    torch_s, ours_s = side_by_side(lambda: F.binary_cross_entropy_with_logits(x, t),
                                   lambda: openaclnn.binary_cross_entropy_with_logits(x, t),
                                   2000)
    _, numpy_s = side_by_side(lambda: None,
                              lambda: openaclnn.binary_cross_entropy_with_logits(xn, tn), 2000)
    return [("per call, mean loss, torch tensors", n, torch_s, ours_s),
            ("per call, mean loss, NumPy arrays", n, torch_s, numpy_s)]


def training_step(loss_fn, x, t):
    def step():
        loss = loss_fn(x, t)
        loss.backward()
        x.grad = None
    return step


def training_rows():
    rows = []
    for n in (10**6, 10**7):
        gen = torch.Generator().manual_seed(1)
        x = torch.randn(n, generator=gen).requires_grad_()
        t = torch.rand(n, generator=gen)
        number = max(1, 10**7 // n)
        torch_s, ours_s = side_by_side(
            training_step(F.binary_cross_entropy_with_logits, x, t),
            training_step(openaclnn.binary_cross_entropy_with_logits, x, t), number)
        rows.append(("training step (loss + backward), fp32", n, torch_s, ours_s))
    return rows


def rows_of(name, theirs_fn, ours_fn, draw):
    """`name`'s forward (mean), backward alone (autograd, the forward outside the timing) and
    training step at 1e3 to 1e7, inputs from draw(n, generator) -> (x, t)."""
    rows = []
    for n in (10**3, 10**5, 10**6, 10**7):
        gen = torch.Generator().manual_seed(2)
        x, t = draw(n, gen)
        x.requires_grad_()
        number = max(1, 10**7 // n) if n > 10**3 else 2000
        with torch.no_grad():
            forward = side_by_side(lambda: theirs_fn(x, t), lambda: ours_fn(x, t), number)
        theirs_loss, ours_loss = theirs_fn(x, t), ours_fn(x, t)
        backward = side_by_side(
            lambda: torch.autograd.grad(theirs_loss, x, retain_graph=True),
            lambda: torch.autograd.grad(ours_loss, x, retain_graph=True), number)
        step = side_by_side(training_step(theirs_fn, x, t), training_step(ours_fn, x, t), number)
        rows += [(name + ", mean loss, fp32", n, *forward),
                 (name + ", backward alone, fp32", n, *backward),
                 (name + ", training step, fp32", n, *step)]
    return rows


def uniform(low, high):
    return lambda n, gen: torch.rand(n, generator=gen) * (high - low) + low


# Each loss the Python benchmark times, its inputs (x, t) as bench/op_bench.cc draws them:
# probabilities in (0, 1) for binary_cross_entropy; predictions in [-2, 2) against targets in
# [0, 1); logits against labels in [-1, 1); log-probabilities against probabilities.
LOSSES = [
    ("binary_cross_entropy",
     lambda n, gen: (uniform(0.0005, 0.9995)(n, gen), torch.rand(n, generator=gen))),
    ("mse_loss", lambda n, gen: (uniform(-2, 2)(n, gen), torch.rand(n, generator=gen))),
    ("l1_loss", lambda n, gen: (uniform(-2, 2)(n, gen), torch.rand(n, generator=gen))),
    ("smooth_l1_loss", lambda n, gen: (uniform(-2, 2)(n, gen), torch.rand(n, generator=gen))),
    ("huber_loss", lambda n, gen: (uniform(-2, 2)(n, gen), torch.rand(n, generator=gen))),
    ("soft_margin_loss", lambda n, gen: (uniform(-8, 8)(n, gen), uniform(-1, 1)(n, gen))),
    ("kl_div", lambda n, gen: (uniform(-8, 0)(n, gen), uniform(0.0005, 1)(n, gen))),
]


def loss_rows():
    """The rows of every loss of LOSSES the package has; the others named as missing (their
    functions are written apart from this script, which times them once they exist)."""
    rows = []
    for name, draw in LOSSES:
        if not hasattr(openaclnn, name):
            print(f"openaclnn has no {name} yet: its rows are not measured")
            continue
        rows += rows_of(name, getattr(F, name), getattr(openaclnn, name), draw)
    return rows


def main():
    torch.set_num_threads(THREADS)
    warnings.filterwarnings("ignore", category=UserWarning)  # kl_div's advice on 'mean'
    rows = per_call_rows() + training_rows() + loss_rows()
    print(f"openaclnn {openaclnn.__version__}, PyTorch {torch.__version__}, {THREADS} threads")
    print()
    print("| case | N | PyTorch | openaclnn | openaclnn / PyTorch time | speed-up |")
    print("|---|---|---|---|---|---|")
    for case, n, theirs, ours in rows:
        print(f"| {case} | {n:.0e} | {theirs * 1e6:.1f} us | {ours * 1e6:.1f} us | "
              f"{ours / theirs:.2f} | {theirs / ours:.1f}x |")


if __name__ == "__main__":
    main()
