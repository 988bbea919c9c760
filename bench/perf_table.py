#!/usr/bin/python3
"""Side-by-side table: OpenACLNN vs PyTorch (CPU) vs the memory-bandwidth limit, one run.

Usage: /usr/bin/python3 bench/perf_table.py BUILD_DIR [--quick] [--markdown OUT.md]
Runs BUILD_DIR/bench/bce_bench (Google Benchmark) with OPENACLNN_NUM_THREADS=1 and 2, times
torch.nn.functional.binary_cross_entropy_with_logits on the same problems with
torch.set_num_threads(1 / 2), and relates each rate to the STREAM triad bandwidth that the same
bce_bench run measured. Limit (Gelem/s) = bandwidth / bytes per element, counting each full
input and a 'none' output once (STREAM's convention: no write-allocate traffic). Every rate
(ours, PyTorch's, the triad's) is the best of several repetitions: on a shared machine
neighbours only ever slow a run down.
"""
import json, os, subprocess, sys, time

SIZES = [1000, 10000, 100000, 1000000, 10000000, 50000000]
ELEM = {"fp32": 4, "fp16": 2, "bf16": 2}


def cases(quick):
    for op in ("grad_self", "grad_target"):
        for reduction in ("none", "mean"):
            for weights in ("noweight", "perclass"):
                yield op, "contiguous", "fp32", reduction, weights
    for dtype in ("fp32", "fp16", "bf16"):
        for reduction in ("none", "mean", "sum"):
            for weights in ("noweight", "full", "perclass"):
                for layout in ("contiguous", "transposed", "transposed_all"):
                    if layout != "contiguous" and (weights != "noweight" or reduction == "sum"):
                        continue
                    if layout == "transposed_all" and reduction != "none":
                        continue
                    if quick and dtype != "fp32" and (weights, reduction, layout) != (
                            "noweight", "none", "contiguous"):
                        continue
                    yield "bce", layout, dtype, reduction, weights


def rate(benchmark):
    """What a benchmark reports per second: elements, or bytes for the triad probe."""
    return benchmark.get("items_per_second") or benchmark.get("bytes_per_second", 0)


def run_bench(build, threads, filt, min_time):
    env = dict(os.environ, OPENACLNN_NUM_THREADS=str(threads))
    cmd = [os.path.join(build, "bench", "bce_bench"), "--benchmark_filter=" + filt,
           "--benchmark_format=json", "--benchmark_min_time=%g" % min_time,
           "--benchmark_repetitions=3"]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    results = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        # Of repeated runs keep the fastest: on a shared machine neighbours only slow one down.
        best = results.get(b["name"])
        if best is None or rate(b) > rate(best):
            results[b["name"]] = b
    return results


def torch_rate(torch, op, layout, dtype, reduction, weights, n, threads):
    """PyTorch's rate for the forward, or for autograd's backward alone (the forward it needs is
    run once, outside the timing)."""
    torch.set_num_threads(threads)
    tdt = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
    rows = n // 100
    shape = (rows, 100) if layout == "contiguous" else (100, rows)
    x = (torch.rand(shape) * 16 - 8).to(tdt)
    t = torch.rand(shape).to(tdt)
    if layout != "contiguous":
        x, t = x.t(), t.t()
    w = torch.rand((rows, 100)).to(tdt) if weights == "full" else None
    p = (torch.rand(100) + 0.5).to(tdt) if weights == "perclass" else None
    f = torch.nn.functional.binary_cross_entropy_with_logits
    try:
        if op == "bce":
            call = lambda: f(x, t, weight=w, pos_weight=p, reduction=reduction)
        else:
            wrt = x if op == "grad_self" else t
            wrt.requires_grad_(True)
            loss = f(x, t, weight=w, pos_weight=p, reduction=reduction)
            g = torch.rand(loss.shape, dtype=tdt) + 0.5
            call = lambda: torch.autograd.grad(loss, wrt, g, retain_graph=True)
        call()
    except RuntimeError:
        return None
    best = 0.0
    for _ in range(3):  # best of three, like the benchmark side
        reps, elapsed = 1, 0.0
        while elapsed < 0.1:
            start = time.perf_counter()
            for _ in range(reps):
                call()
            elapsed = time.perf_counter() - start
            reps *= 2
        best = max(best, (reps // 2) * n / elapsed / 1e9)
    return best


def bytes_per_element(op, dtype, reduction, weights):
    """Memory traffic per element: each full input once, plus the output for 'none' and for
    gradients (which are always full-sized); a [1] gradOutput counts nothing."""
    inputs = 2 + (weights == "full") + (op != "bce" and reduction == "none")
    outputs = 1 if (op != "bce" or reduction == "none") else 0
    return ELEM[dtype] * (inputs + outputs)


def main():
    build = sys.argv[1]
    quick = "--quick" in sys.argv
    markdown = sys.argv[sys.argv.index("--markdown") + 1] if "--markdown" in sys.argv else None
    import torch
    rows = []
    subset = "bce/contiguous/fp32|bce/transposed(_all)?/fp32|bce/contiguous/(fp16|bf16)/none/noweight|grad|stream"
    for threads in (1, 2):
        print("threads=%d: running bce_bench ..." % threads, file=sys.stderr, flush=True)
        results = run_bench(build, threads, subset if quick else "bce/|grad|stream",
                            0.05 if quick else 0.1)
        bandwidth = results["stream/triad/20000000/%d/repeats:5/real_time" % threads]["bytes_per_second"]
        print("threads=%d: triad %.1f GB/s; timing PyTorch ..." % (threads, bandwidth / 1e9),
              file=sys.stderr, flush=True)
        for op, layout, dtype, reduction, weights in cases(quick):
            for n in SIZES:
                name = "%s/%s/%s/%s/%s/%d/real_time" % (op, layout, dtype, reduction, weights, n)
                ours = results[name]["items_per_second"] / 1e9
                theirs = torch_rate(torch, op, layout, dtype, reduction, weights, n, threads)
                limit = bandwidth / bytes_per_element(op, dtype, reduction, weights) / 1e9
                rows.append((op, layout, n, dtype, reduction, weights, threads, ours, theirs,
                             limit))
            print("  %s %s %s %s %s done" % (op, layout, dtype, reduction, weights),
                  file=sys.stderr, flush=True)
    header = "| op | case | N | dtype | reduction | weights | threads | OpenACLNN Gelem/s | PyTorch Gelem/s | ratio | fraction of BW limit |"
    lines = [header, "|" + "---|" * 11]
    for op, layout, n, dtype, reduction, weights, threads, ours, theirs, limit in rows:
        ratio = "%.1f" % (ours / theirs) if theirs else "n/a"
        torch_text = "%.3f" % theirs if theirs else "n/a"
        lines.append("| %s | %s | %d | %s | %s | %s | %d | %.3f | %s | %s | %.2f |" % (
            op, layout, n, dtype, reduction, weights, threads, ours, torch_text, ratio, ours / limit))
    print("\n".join(lines))
    if markdown:
        with open(markdown, "w") as out:
            out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
