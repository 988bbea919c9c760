"""The class-axis section of bench/perf_table.py: BUILD/bench/class_axis_bench's cross entropy and
NLL cases (forward, and forward + backward, reduction mean, fp32) beside PyTorch's F.cross_entropy
and F.nll_loss (autograd's backward) on the same problems and thread count, best of the
repetitions, wall clock."""
import json, os, subprocess, time

SHAPES = [(4096, 1000), (256, 32000), (100000, 10)]


def ours(build, threads, repetitions):
    """{(op, pass, N, C): best milliseconds} from class_axis_bench."""
    env = dict(os.environ, OPENACLNN_NUM_THREADS=str(threads))
    cmd = [os.path.join(build, "bench", "class_axis_bench"), "--benchmark_format=json",
           "--benchmark_min_time=0.1s", "--benchmark_repetitions=%d" % repetitions]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    best = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        op, which, n, c = b["run_name"].split("/")[:4]
        key = (op, which, int(n), int(c))
        best[key] = min(best.get(key, float("inf")), b["real_time"])
    return best


def inputs(torch, n, c):
    """class_axis_bench's problem: a ramp of logits in [-8, 8), targets 7n mod C, and the NLL's
    log-probabilities -1 - x^2 / 8."""
    i = torch.arange(n * c)
    x = (-8.0 + 16.0 * ((i * 7919) % 1000).float() / 1000.0).reshape(n, c)
    return x, (torch.arange(n) * 7) % c, -1.0 - x * x / 8.0


def best_ms(call, repetitions):
    best = float("inf")
    for _ in range(repetitions):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def theirs(torch, threads, repetitions):
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    times = {}
    for n, c in SHAPES:
        x, t, lp = inputs(torch, n, c)
        xg, lpg = x.clone().requires_grad_(), lp.clone().requires_grad_()
        times[("cross_entropy", "forward", n, c)] = best_ms(lambda: F.cross_entropy(x, t),
                                                            repetitions)
        times[("cross_entropy", "forward_backward", n, c)] = best_ms(
            lambda: F.cross_entropy(xg, t).backward(), repetitions)
        times[("nll_loss", "forward", n, c)] = best_ms(lambda: F.nll_loss(lp, t), repetitions)
        times[("nll_loss", "forward_backward", n, c)] = best_ms(
            lambda: F.nll_loss(lpg, t).backward(), repetitions)
    return times


def class_axis_section(build, threads, repetitions):
    """The section's markdown lines ([] where the build has no class_axis_bench)."""
    if not os.path.exists(os.path.join(build, "bench", "class_axis_bench")):
        return []
    import torch
    mine, torch_ms = ours(build, threads, repetitions), theirs(torch, threads, max(repetitions, 5))
    lines = ["| op | pass | (N, C) | OpenACLNN ms | PyTorch ms | speed-up |", "|" + "---|" * 6]
    for key in sorted(mine):
        if key in torch_ms:
            op, which, n, c = key
            lines.append("| %s | %s | (%d, %d) | %.3f | %.3f | %.2f |" % (
                op, which.replace("_", " + "), n, c, mine[key], torch_ms[key],
                torch_ms[key] / mine[key]))
    return ["The class-axis ops on %d threads (fp32, reduction mean, no weights; wall clock, best "
            "of the repetitions), class_axis_bench beside F.cross_entropy and F.nll_loss "
            "(forward + backward: autograd's backward of the loss):" % threads, ""] + lines
