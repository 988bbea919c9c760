"""The Python package against PyTorch, as ratios measured side by side in one run:

- per-call cost at N = 1e3 (the mean loss of fp32 torch tensors, and of NumPy arrays);
- a training step, `loss = f(x, t); loss.backward()`, fp32, N = 1e6 and 1e7, 2 threads;
- binary_cross_entropy (probabilities) against torch.nn.functional.binary_cross_entropy, fp32,
  N = 1e3, 1e5, 1e6 and 1e7, 2 threads: the mean loss, its backward alone through autograd, and
  the training step.

Each figure is the best of several interleaved repetitions (neighbours on a shared machine only
ever slow a run down). Prints a Markdown table for docs/performance.md.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py
"""
import os
import timeit

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


def probability_rows():
    """binary_cross_entropy's forward (mean), backward alone (autograd, the forward outside the
    timing) and training step, x in (0, 1)."""
    rows = []
    for n in (10**3, 10**5, 10**6, 10**7):
        gen = torch.Generator().manual_seed(2)
        x = (torch.rand(n, generator=gen) * 0.999 + 0.0005).requires_grad_()
        t = torch.rand(n, generator=gen)
        number = max(1, 10**7 // n) if n > 10**3 else 2000
        theirs_fn, ours_fn = F.binary_cross_entropy, openaclnn.binary_cross_entropy
        with torch.no_grad():
            forward = side_by_side(lambda: theirs_fn(x, t), lambda: ours_fn(x, t), number)
        theirs_loss, ours_loss = theirs_fn(x, t), ours_fn(x, t)
        backward = side_by_side(
            lambda: torch.autograd.grad(theirs_loss, x, retain_graph=True),
            lambda: torch.autograd.grad(ours_loss, x, retain_graph=True), number)
        step = side_by_side(training_step(theirs_fn, x, t), training_step(ours_fn, x, t), number)
        rows += [("binary_cross_entropy, mean loss, fp32", n, *forward),
                 ("binary_cross_entropy, backward alone, fp32", n, *backward),
                 ("binary_cross_entropy, training step, fp32", n, *step)]
    return rows


def main():
    torch.set_num_threads(THREADS)
    rows = per_call_rows() + training_rows()
    if hasattr(openaclnn, "binary_cross_entropy"):
        rows += probability_rows()
    print(f"openaclnn {openaclnn.__version__}, PyTorch {torch.__version__}, {THREADS} threads")
    print()
    print("| case | N | PyTorch | openaclnn | openaclnn / PyTorch time | speed-up |")
    print("|---|---|---|---|---|---|")
    for case, n, theirs, ours in rows:
        print(f"| {case} | {n:.0e} | {theirs * 1e6:.1f} us | {ours * 1e6:.1f} us | "
              f"{ours / theirs:.2f} | {theirs / ours:.1f}x |")


if __name__ == "__main__":
    main()
