#!/usr/bin/python3
"""The performance table: OpenACLNN against the memory-bandwidth limit and PyTorch, in one run.

Usage: /usr/bin/python3 bench/perf_table.py BUILD_DIR [--threads 2[,1...]] [--repetitions 3]
                                            [--cases REGEX] [--markdown OUT.md] [--plot OUT.png]
Runs BUILD_DIR/bench/op_bench (its cases are the table's: every name reads
op/layout/dtype/reduction/weights/N) with OPENACLNN_NUM_THREADS set, times PyTorch's function of
each op on the same problems with the same thread count (binary_cross_entropy_with_logits,
binary_cross_entropy, mse_loss, l1_loss, smooth_l1_loss, huber_loss, soft_margin_loss, kl_div; a
Backward against autograd's backward alone), and divides each rate by the limit of that case's
own memory traffic at the STREAM triad bandwidth that the same op_bench run measured: every
operand the op must read once, plus the output (STREAM's convention: no write-allocate traffic).
Every rate is the best of --repetitions runs: on a shared machine neighbours only ever slow a run
down. (To compare two builds on a busy machine, read op_bench's own cpu_ns_per_elem counter
instead: CPU time barely moves with the neighbours.)

A second op_bench run on one thread sets each rational loss (MSE, L1, smooth L1, Huber, and
their gradients) at 1e4 and 1e5 elements, in cache, beside a plain fp32 kernel of the same formula
compiled in the same build (op_bench's plain/... cases, bench/plain_fp32_kernels.h): the
"correct rounding's cost" section, by CPU time. A last section times the class-axis ops
(bench/class_axis_table.py: class_axis_bench beside F.cross_entropy and F.nll_loss).

--plot draws the same run's figure (no second run): one panel per op and thread count, element
rate against N on log-log axes for the contiguous fp32 cases without weights, reduction none and
mean: OpenACLNN, PyTorch and the bandwidth limit of that case's traffic at the run's triad
bandwidth (all wall clock). It needs matplotlib (Debian: python3-matplotlib); the table does not.

The table's first line states the run: machine (CPU model), the SIMD target the kernels dispatch
to (BUILD_DIR/tools/openaclnn info), the commit the build was configured from (with "-dirty"
where tracked files differ from it), the date (UTC), PyTorch's version and the triad bandwidth.
"""
import argparse, json, os, subprocess, sys, time, warnings

from class_axis_table import class_axis_section
from run_stamp import cpu_model, source_commit, stamp

ELEM = {"fp32": 4, "fp16": 2, "bf16": 2}
# The binary cross entropies' ops and rows (op_bench's names).
OP_TITLE = {"bce": "loss", "grad_self": "grad self", "grad_target": "grad target",
            "fused": "loss + grad, one pass", "two_calls": "loss + grad, two calls",
            "binary_cross_entropy": "BCE (probabilities) loss",
            "binary_cross_entropy_backward": "BCE (probabilities) grad self"}
# The binary cross entropy's ops (self holds probabilities) and the with-logits op each mirrors.
PROBABILITY_OPS = {"binary_cross_entropy": "bce", "binary_cross_entropy_backward": "grad_self"}


class Elementwise:
    """An element-wise loss op of op_bench: what it computes ("loss", "grad_self",
    "grad_target"), PyTorch's function of its family f(x, t, reduction) and the ranges op_bench
    draws self and target from."""

    def __init__(self, title, kind, function, self_range, target_range):
        self.title, self.kind, self.function = title, kind, function
        self.self_range, self.target_range = self_range, target_range


def mse_loss_out(x, t, reduction):
    """aclnnMseLossOut: the loss reduced over dimension 0 only (PyTorch has no such function)."""
    loss = torch_module().nn.functional.mse_loss(x, t, reduction="none")
    return loss if reduction == "none" else loss.mean(0) if reduction == "mean" else loss.sum(0)


def torch_module():
    import torch
    return torch


def functional(name, **keywords):
    """torch.nn.functional.<name>(x, t, reduction=..., **keywords), imported when called."""
    return lambda x, t, reduction: getattr(torch_module().nn.functional, name)(
        x, t, reduction=reduction, **keywords)


# op_bench's ranges (bench/op_bench.cc, kOps): predictions against targets in [0, 1), logits
# against labels in [-1, 1), log-probabilities against probabilities.
PREDICTIONS, UNIT, LOGITS, LABELS = (-2, 2), (0, 1), (-8, 8), (-1, 1)
LOG_PROBABILITIES, PROBABILITIES = (-8, 0), (0.0005, 1)
ELEMENTWISE = {}
for name, title, function, self_range, target_range in [
        ("mse_loss", "MSE", functional("mse_loss"), PREDICTIONS, UNIT),
        ("l1_loss", "L1", functional("l1_loss"), PREDICTIONS, UNIT),
        ("smooth_l1_loss", "smooth L1", functional("smooth_l1_loss"), PREDICTIONS, UNIT),
        ("huber_loss", "Huber", functional("huber_loss"), PREDICTIONS, UNIT),
        ("soft_margin_loss", "soft margin", functional("soft_margin_loss"), LOGITS, LABELS),
        ("kl_div", "KL div", functional("kl_div"), LOG_PROBABILITIES, PROBABILITIES)]:
    ELEMENTWISE[name] = Elementwise(title + " loss", "loss", function, self_range, target_range)
    backward = name + "_backward"
    ELEMENTWISE[backward] = Elementwise(title + " grad self", "grad_self", function, self_range,
                                        target_range)
ELEMENTWISE["mse_loss_out"] = Elementwise("MSE loss over dim 0 (MseLossOut)", "loss",
                                          mse_loss_out, PREDICTIONS, UNIT)
ELEMENTWISE["kl_div_target_backward"] = Elementwise(
    "KL div grad target", "grad_target", functional("kl_div"), LOG_PROBABILITIES, PROBABILITIES)
OP_TITLE.update({name: op.title for name, op in ELEMENTWISE.items()})
# The rational losses, whose rate per core in cache is set beside a plain fp32 kernel's.
RATIONAL = ["mse_loss", "mse_loss_backward", "l1_loss", "l1_loss_backward", "smooth_l1_loss",
            "smooth_l1_loss_backward", "huber_loss", "huber_loss_backward"]
IN_CACHE = [10000, 100000]


def rate(benchmark):
    """What a benchmark reports per second: elements, or bytes for the triad probe."""
    return benchmark.get("items_per_second") or benchmark.get("bytes_per_second", 0)


def run_bench(build, threads, repetitions, cases, plain=False):
    """{name: (best wall-clock rate, best CPU-time rate)}, per second: elements, or bytes for the
    triad probe. The CPU-time rate is the work of `threads` threads per CPU second of the process
    (all its threads), which the neighbours on a shared machine barely change."""
    env = dict(os.environ, OPENACLNN_NUM_THREADS=str(threads))
    # The table's run: the triad and the cases (the plain kernels, matched too, go unread: the
    # filter is a POSIX regular expression, without a negation); or (plain) only `cases`.
    selected = cases if plain else "stream|" + cases
    cmd = [os.path.join(build, "bench", "op_bench"), "--benchmark_format=json",
           "--benchmark_filter=" + selected,
           "--benchmark_min_time=0.05", "--benchmark_repetitions=%d" % repetitions]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    results = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        name = b["name"]
        case = parse(name)
        used = threads_used(case, threads) if case and not case["plain"] else 1 if case else threads
        cpu = used / (b.get("cpu_ns_per_elem") or b["cpu_ns_per_byte"]) * 1e9
        wall, best_cpu = results.get(name, (0.0, 0.0))
        results[name] = (max(wall, rate(b)), max(best_cpu, cpu))
    return results


def threads_used(case, threads):
    """Threads the kernel runs on: at least two 4096-element blocks each (loss_kernels_cpu.cc)."""
    blocks = -(-case["n"] // 4096)
    return max(1, min(threads, blocks // 2))


def parse(name):
    """[plain/]op/layout/dtype/reduction/weights/N/real_time -> a dict, or None for the triad
    probe."""
    parts = name.split("/")
    if parts[0] == "stream":
        return None
    plain = parts[0] == "plain"
    if parts[0] in ("loss_and_grad", "plain"):  # loss_and_grad/{fused,two_calls}/layout/...
        parts = parts[1:]
    op, layout, dtype, reduction, weights, n = parts[:6]
    return dict(op=op, layout=layout, dtype=dtype, reduction=reduction, weights=weights, n=int(n),
                plain=plain)


def bytes_per_element(case):
    """The traffic the op cannot avoid: self; target (not for the with-logits target gradient,
    which does not depend on it); a full weight; a full gradOutput (none); the output (none, and
    gradients; a loss reduced over dimension 0 writes a row, nothing per element). The loss and
    gradient together (one pass, or two calls) read self, target and weight once and write the
    gradient and, for none, the loss: its gradOutput is all ones (a null pointer)."""
    if case["op"] in ("fused", "two_calls"):
        return ELEM[case["dtype"]] * (2 + (case["weights"] == "full") + 1 +
                                      (case["reduction"] == "none"))
    if case["op"] in ELEMENTWISE:
        gradient = ELEMENTWISE[case["op"]].kind != "loss"
        reads = 2 + (gradient and case["reduction"] == "none")
        return ELEM[case["dtype"]] * (reads + (gradient or case["reduction"] == "none"))
    op = PROBABILITY_OPS.get(case["op"], case["op"])
    reads = 1 + (op != "grad_target") + (case["weights"] == "full")
    reads += op != "bce" and case["reduction"] == "none"
    writes = op != "bce" or case["reduction"] == "none"
    return ELEM[case["dtype"]] * (reads + writes)


def time_call(call, n, case, threads, repetitions):
    """(wall-clock, CPU-time) rates of `call` over n elements, best of `repetitions`."""
    best, best_cpu = 0.0, 0.0
    for _ in range(repetitions):
        reps, elapsed = 1, 0.0
        while elapsed < 0.05:
            start, cpu_start = time.perf_counter(), time.process_time()
            for _ in range(reps):
                call()
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            reps *= 2
        best = max(best, (reps // 2) * n / elapsed / 1e9)
        best_cpu = max(best_cpu, threads_used(case, threads) * (reps // 2) * n / cpu / 1e9)
    return best, best_cpu


def elementwise_call(torch, case, op):
    """PyTorch's call for an element-wise op's case on [N/100, 100] inputs of op_bench's ranges:
    the loss, or autograd's gradient alone (the forward outside the timing)."""
    tdt = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[case["dtype"]]
    shape = (case["n"] // 100, 100)
    (x_low, x_high), (t_low, t_high) = op.self_range, op.target_range
    x = (torch.rand(shape) * (x_high - x_low) + x_low).to(tdt)
    t = (torch.rand(shape) * (t_high - t_low) + t_low).to(tdt)
    if op.kind == "loss":
        return lambda: op.function(x, t, case["reduction"])
    wrt = x if op.kind == "grad_self" else t
    wrt.requires_grad_(True)
    loss = op.function(x, t, case["reduction"])
    g = torch.rand(loss.shape, dtype=tdt) + 0.5
    return lambda: torch.autograd.grad(loss, wrt, g, retain_graph=True)


def torch_rate(torch, case, threads, repetitions):
    """PyTorch's (wall-clock, CPU-time) rates for the forward, or for autograd's backward alone
    (the forward it needs runs once, outside the timing); None where PyTorch cannot run the case
    (fp16 on the CPU). The element-wise losses take their family's torch.nn.functional function;
    the binary cross entropy's cases take probabilities in (0, 1) and binary_cross_entropy, whose
    per-class weight is a [100] weight."""
    torch.set_num_threads(threads)
    if case["op"] in ELEMENTWISE:
        try:
            call = elementwise_call(torch, case, ELEMENTWISE[case["op"]])
            call()
        except RuntimeError:
            return None
        return time_call(call, case["n"], case, threads, repetitions)
    tdt = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[case["dtype"]]
    n, rows = case["n"], case["n"] // 100
    transposed = case["layout"] != "contiguous"
    shape = (100, rows) if transposed else (rows, 100)
    probabilities = case["op"] in PROBABILITY_OPS
    x = torch.rand(shape) * 0.999 + 0.0005 if probabilities else torch.rand(shape) * 16 - 8
    x = x.to(tdt)
    t = torch.rand(shape).to(tdt)
    if transposed:
        x, t = x.t(), t.t()
    w = torch.rand((rows, 100)).to(tdt) if case["weights"] == "full" else None
    p = (torch.rand(100) + 0.5).to(tdt) if case["weights"] == "perclass" else None
    if probabilities:
        w = p if p is not None else w
        f = lambda x, t, weight, pos_weight, reduction: torch.nn.functional.binary_cross_entropy(
            x, t, weight=weight, reduction=reduction)
    else:
        f = torch.nn.functional.binary_cross_entropy_with_logits
    op = PROBABILITY_OPS.get(case["op"], case["op"])
    try:
        if op == "bce":
            call = lambda: f(x, t, weight=w, pos_weight=p, reduction=case["reduction"])
        elif op in ("fused", "two_calls"):  # a training step: forward, then backward
            x.requires_grad_(True)
            call = lambda: f(x, t, weight=w, pos_weight=p, reduction=case["reduction"]).sum(
            ).backward()
        else:
            wrt = x if op == "grad_self" else t
            wrt.requires_grad_(True)
            loss = f(x, t, weight=w, pos_weight=p, reduction=case["reduction"])
            g = torch.rand(loss.shape, dtype=tdt) + 0.5
            call = lambda: torch.autograd.grad(loss, wrt, g, retain_graph=True)
        call()
    except RuntimeError:
        return None
    return time_call(call, n, case, threads, repetitions)


def simd_target(build):
    """The SIMD target the build's kernels dispatch to on this CPU, as `openaclnn info` says."""
    try:
        out = subprocess.run([os.path.join(build, "tools", "openaclnn"), "info"],
                             capture_output=True, text=True).stdout
    except OSError:
        return "unknown"
    for line in out.splitlines():
        if line.startswith("SIMD target:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def source_root(build):
    """The source tree BUILD_DIR was configured from (its CMakeCache), else this script's."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as cache:
            for line in cache:
                if line.startswith("CMAKE_HOME_DIRECTORY:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def short(n):
    """1000000 -> 1e6."""
    mantissa, exponent = ("%.0e" % n).split("e")
    return "%se%d" % (mantissa, int(exponent))


def table(rows):
    lines = ["| op | layout | dtype | reduction | weights | N | threads | Gelem/s | fraction of limit "
             "| CPU-time Gelem/s | its fraction | PyTorch Gelem/s | PyTorch CPU-time | ratio "
             "(CPU time) |", "|" + "---|" * 14]
    for case, threads, ours, limit, theirs in rows:
        torch_text = ["n/a"] * 3
        if theirs:
            torch_text = ["%.3f" % theirs[0], "%.3f" % theirs[1], "%.1f" % (ours[1] / theirs[1])]
        lines.append("| %s | %s | %s | %s | %s | %s | %d | %.3f | %.2f | %.3f | %.2f | %s |" % (
            OP_TITLE[case["op"]], case["layout"], case["dtype"], case["reduction"],
            case["weights"], short(case["n"]), threads, ours[0], ours[0] / limit[0], ours[1],
            ours[1] / limit[1], " | ".join(torch_text)))
    return lines


def summaries(rows):
    """The issues' derived figures: the small call in microseconds, the narrow types' element
    rate against fp32's on the same problem, and the binary cross entropy's against the
    with-logits op of the same kind on the same problem (wall clock; CPU time in parentheses)."""
    lines = []
    by_key = {(c["op"], c["layout"], c["dtype"], c["reduction"], c["weights"], c["n"], th): ours
              for c, th, ours, _, _ in rows}
    for (op, layout, dtype, reduction, weights, n, threads), ours in sorted(by_key.items()):
        if n <= 1000:
            lines.append("- small call, %s %s %s N = %d, %d threads (phase 1 + phase 2 + "
                         "synchronize): %.2f us (%.2f us of CPU)" % (
                             OP_TITLE[op], reduction, weights, n, threads, n / ours[0] / 1e3,
                             n / ours[1] / 1e3))
        mirrored = by_key.get((PROBABILITY_OPS.get(op), layout, dtype, reduction, weights, n,
                               threads))
        if mirrored:
            lines.append("- %s %s %s %s %s N = %s, %d threads: element rate / %s's = %.2f "
                         "(%.2f)" % (OP_TITLE[op], layout, dtype, reduction, weights, short(n),
                                     threads, OP_TITLE[PROBABILITY_OPS[op]], ours[0] / mirrored[0],
                                     ours[1] / mirrored[1]))
        if dtype != "fp32":
            fp32 = by_key.get((op, layout, "fp32", reduction, weights, n, threads))
            if fp32:
                lines.append("- %s %s N = %s, %d threads: %s element rate / fp32's = %.2f "
                             "(%.2f)" % (OP_TITLE[op], reduction, short(n), threads, dtype,
                                         ours[0] / fp32[0], ours[1] / fp32[1]))
    return lines


def load_pyplot():
    """matplotlib's pyplot on the Agg backend (files only, no display), or exit naming the
    package: only --plot needs it, so only --plot asks for it, before any benchmark runs."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
    except ImportError as error:
        sys.exit("perf_table.py --plot needs matplotlib (%s); on Debian: apt-get install "
                 "--no-install-recommends python3-matplotlib" % error)
    return pyplot


# The plot's cases and how each is drawn: (reduction, line style); (series, colour, marker).
PLOT_REDUCTIONS = [("none", "-"), ("mean", "--")]
PLOT_SERIES = [("OpenACLNN", "tab:blue", "o"), ("PyTorch", "tab:orange", "s"),
               ("bandwidth limit: triad GB/s / the case's bytes per element", "dimgray", None)]
PLOT_COLUMNS = 4


def plot(pyplot, rows, bandwidths, machine, torch_version, path):
    """One figure: a panel per op (in OP_TITLE's order) and thread count, the wall-clock element
    rate against N of the contiguous fp32 cases without weights. The limit does not depend on N
    (the same bytes per element at the same triad bandwidth): a horizontal line per reduction."""
    from matplotlib.lines import Line2D
    chosen = [r for r in rows if r[0]["layout"] == "contiguous" and r[0]["dtype"] == "fp32"
              and r[0]["weights"] == "noweight"
              and r[0]["reduction"] in dict(PLOT_REDUCTIONS)]
    thread_counts = sorted({r[1] for r in chosen})
    panels = [(t, op) for t in thread_counts for op in OP_TITLE
              if any(r[0]["op"] == op and r[1] == t for r in chosen)]
    if not panels:
        print("--plot: no contiguous fp32 case without weights in this run: no figure",
              file=sys.stderr)
        return
    columns = min(PLOT_COLUMNS, len(panels))
    lines = -(-len(panels) // columns)
    figure, axes = pyplot.subplots(lines, columns, squeeze=False, sharex=True, sharey=True,
                                   figsize=(4.4 * columns, 3.6 * lines + 1.0))
    all_n = sorted({r[0]["n"] for r in chosen})
    for index, (threads, op) in enumerate(panels):
        panel = axes[index // columns][index % columns]
        for reduction, style in PLOT_REDUCTIONS:
            cases = sorted((r for r in chosen if r[0]["op"] == op and r[1] == threads and
                            r[0]["reduction"] == reduction), key=lambda r: r[0]["n"])
            if not cases:
                continue
            ours = [(r[0]["n"], r[2][0] * 1e9) for r in cases]
            theirs = [(r[0]["n"], r[4][0] * 1e9) for r in cases if r[4]]
            for (series, colour, marker), points in zip(PLOT_SERIES[:2], [ours, theirs]):
                if points:
                    panel.plot(*zip(*points), style, color=colour, marker=marker, markersize=4,
                               linewidth=1.3)
            limit = cases[0][3][0] * 1e9
            panel.axhline(limit, color=PLOT_SERIES[2][1], linestyle=style, linewidth=1.6)
            left = style == "-"  # none's label at the left, mean's at the right: never overlap
            panel.annotate("limit, %s: %d B/elem" % (reduction, bytes_per_element(cases[0][0])),
                           (0.02 if left else 0.98, limit), xycoords=("axes fraction", "data"),
                           fontsize=7.5, color=PLOT_SERIES[2][1], va="bottom",
                           ha="left" if left else "right")
        panel.set_xscale("log")
        panel.set_yscale("log")
        panel.set_xlim(all_n[0] / 2, all_n[-1] * 2)
        panel.grid(True, which="major", alpha=0.4)
        panel.grid(True, which="minor", alpha=0.12)
        title = OP_TITLE[op]
        if op in ("fused", "two_calls"):
            title += " (PyTorch: a training step)"
        if len(thread_counts) > 1:
            title += ", %d thread%s" % (threads, "s" * (threads > 1))
        panel.set_title(title, fontsize=9.5)
        if index // columns == lines - 1 or index + columns >= len(panels):
            panel.set_xlabel("N (elements)")
            panel.xaxis.set_tick_params(labelbottom=True)
        if index % columns == 0:
            panel.set_ylabel("elements per second")
    rates = [v for r in chosen for v in [r[2][0], r[3][0]] + ([r[4][0]] if r[4] else [])]
    axes[0][0].set_ylim(min(rates) * 1e9 / 2, max(rates) * 1e9 * 2.5)  # room for the labels
    version = ".".join(torch_version.split(".")[:2])  # "PyTorch 1.13"
    key = [Line2D([], [], color=c, marker=m, markersize=4,
                  label=(s + " " + version if s == "PyTorch" else s).replace(": ", ":\n"))
           for s, c, m in PLOT_SERIES]
    key += [Line2D([], [], color="black", linestyle=style, label="reduction %s" % reduction)
            for reduction, style in PLOT_REDUCTIONS]
    spare = [axes[i // columns][i % columns] for i in range(len(panels), lines * columns)]
    for panel in spare:
        panel.set_visible(False)
    if spare:  # the key in the first empty cell, else under the panels
        spare[0].legend(handles=key, loc="center", fontsize=9, frameon=False)
        spare[0].set_visible(True)
        spare[0].axis("off")
    else:
        figure.legend(handles=key, loc="lower center", ncol=3, fontsize=8, frameon=False)
    triads = ", ".join("%d thread%s: STREAM triad %.1f GB/s" % (t, "s" * (t > 1),
                                                                  bandwidths[t] / 1e9)
                       for t in thread_counts)
    figure.suptitle("Contiguous fp32, no weights: element rate against N "
                    "(wall clock, best of the run's repetitions)\nCPU: %s; %s; PyTorch %s" % (
                        machine, triads, torch_version), fontsize=10)
    figure.tight_layout(rect=(0, 0 if spare else 0.07 if lines > 1 else 0.11, 1, 1))
    figure.savefig(path, dpi=110)
    pyplot.close(figure)
    print("wrote %s" % path, file=sys.stderr)


def elementwise_summaries(rows):
    """Issue 37's figures from the table: per element-wise op and reduction, its rate against
    PyTorch's over the sizes run (CPU time; the least, where it must be above 1) and its fraction
    of the traffic limit at the largest size (wall clock)."""
    lines, ops = [], {}
    for case, threads, ours, limit, theirs in rows:
        if case["op"] in ELEMENTWISE and case["dtype"] == "fp32" and case["layout"] == "contiguous":
            ops.setdefault((case["op"], case["reduction"], threads), []).append(
                (case["n"], ours, limit, theirs))
    for (op, reduction, threads), points in sorted(ops.items()):
        points.sort(key=lambda point: point[0])
        ratios = ["%s %.1fx" % (short(n), ours[1] / theirs[1]) for n, ours, _, theirs in points
                  if theirs]
        n, ours, limit, _ = points[-1]
        lines.append("- %s %s, %d threads: vs PyTorch (CPU time) %s; at %s %.2f of the traffic "
                     "limit" % (OP_TITLE[op], reduction, threads, ", ".join(ratios) or "n/a",
                                short(n), ours[0] / limit[0]))
    return lines


def in_cache_section(build, repetitions):
    """Correct rounding's cost per core in cache: each rational loss (one thread, 1e4 and 1e5
    elements) against the plain fp32 kernel of its formula, by CPU time (and wall clock)."""
    cases = "^plain/|^(%s)/contiguous/fp32/(none|mean)/noweight/(%s)/" % (
        "|".join(RATIONAL), "|".join(str(n) for n in IN_CACHE))
    results = run_bench(build, 1, repetitions, cases, plain=True)
    plain, ours = {}, {}
    for name, result in results.items():
        case = parse(name)
        key = (case["op"], case["reduction"], case["n"])
        (plain if case["plain"] else ours)[key] = result
    lines = ["| op | reduction | N | OpenACLNN Gelem/s (CPU time) | plain fp32 Gelem/s | ratio "
             "(CPU time) | ratio (wall clock) |", "|" + "---|" * 7]
    for key in sorted(plain):
        if key in ours:
            op, reduction, n = key
            lines.append("| %s | %s | %s | %.3f | %.3f | %.2f | %.2f |" % (
                OP_TITLE[op], reduction, short(n), ours[key][1] / 1e9, plain[key][1] / 1e9,
                ours[key][1] / plain[key][1], ours[key][0] / plain[key][0]))
    if len(lines) == 2:
        return []
    return ["Correct rounding's cost per core in cache: each rational loss on one thread against a "
            "plain fp32 kernel of its formula (fp32 lanes, rounded at every step; Highway, "
            "run-time dispatch, this build), op_bench's plain/... cases:", ""] + lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--threads", default="2")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--cases", default=".", help="regular expression: a subset of the cases")
    parser.add_argument("--markdown")
    parser.add_argument("--plot", metavar="OUT.png",
                        help="also draw the run's element rates against N (needs matplotlib)")
    args = parser.parse_args()
    pyplot = load_pyplot() if args.plot else None
    import torch
    # PyTorch's advice on kl_div's 'mean': the table times what the API computes.
    warnings.filterwarnings("ignore", category=UserWarning)
    simd, commit = simd_target(args.build), source_commit(source_root(args.build))
    rows, bandwidths, triads = [], {}, []
    for threads in [int(t) for t in args.threads.split(",")]:
        print("threads=%d: running op_bench ..." % threads, file=sys.stderr, flush=True)
        results = run_bench(args.build, threads, args.repetitions, args.cases)
        bandwidth = results["stream/triad/20000000/%d/repeats:5/real_time" % threads]
        bandwidths[threads] = bandwidth[0]
        triads.append("threads %d: STREAM triad %.1f GB/s wall clock, %.1f GB/s per CPU-time "
                      "(best of 5)" % (threads, bandwidth[0] / 1e9, bandwidth[1] / 1e9))
        print(triads[-1] + "; timing PyTorch ...", file=sys.stderr, flush=True)
        for name, result in results.items():
            case = parse(name)
            if case is None or case["plain"]:
                continue
            limit = [b / bytes_per_element(case) / 1e9 for b in bandwidth]
            theirs = torch_rate(torch, case, threads, args.repetitions)
            rows.append((case, threads, [r / 1e9 for r in result], limit, theirs))
    print("one thread, in cache: op_bench's rational losses and plain kernels ...",
          file=sys.stderr, flush=True)
    in_cache = in_cache_section(args.build, args.repetitions)
    print("the class-axis ops: class_axis_bench and PyTorch ...", file=sys.stderr, flush=True)
    class_axis = class_axis_section(args.build, int(args.threads.split(",")[0]), args.repetitions)
    header = "Run: " + stamp(simd, commit, "PyTorch %s" % torch.__version__, *triads)
    text = "\n".join([header, ""] + table(rows) + [""] + summaries(rows) +
                     elementwise_summaries(rows) + ([""] + in_cache if in_cache else []) +
                     ([""] + class_axis if class_axis else [])) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text)
    if args.plot:
        machine = "%s (%s), at %s" % (cpu_model(), simd, commit)
        plot(pyplot, rows, bandwidths, machine, torch.__version__, args.plot)


if __name__ == "__main__":
    main()
