#!/usr/bin/env python3
"""Builds side by side: the element kernel's rate (tile_bench, one core, operands in L1/L2) of
several tile_bench binaries, run alternately, `--rounds` times each, with the median per case and
each build's rate as a fraction of the first build's.

  /usr/bin/python3 bench/tile_ab.py old=../old/build-perf/bench/tile_bench \\
      new=build-perf/bench/tile_bench [--rounds 3] [--min-time 0.3] [--inputs ramp,mixed]

`--inputs` names tile_bench's input sets to run each case on (default `ramp`). With `--filter
REGEX` the script compares any Google Benchmark binaries instead (op_bench among them): every case
whose name matches, by its CPU time per element where the binary reports it (op_bench's
`cpu_ns_per_elem`, the CPU-time rule of docs/performance.md), else by its rate; the ratio is
always the first build's time over each build's (above 1: faster).

Case names are matched across builds that name them differently: tile_bench before issue 9 had
no input-set suffix (its one input set is today's `ramp`) and called weight + pos_weight `weight`.
A case that a build does not name is skipped for that build with a note on stderr (its cells read
-), and a case that no build names is left out of the table. The one-pass loss and gradient is
not among the cases: no tile_bench has a kind for it (neither today's nor 7109602's, whose kernels
had no such pass); op_bench's loss_and_grad/fused cases time it as an op.
"""
import argparse
import json
import re
import statistics
import subprocess
import sys

# (case, kind, weighted[, dtype[, mode]]): the A/B cases of issue 16 (default fp32, store; ramp
# inputs; mode "sum" sums the loss, as mean and sum do).
CASES = [
    ("loss", "loss", False),
    ("loss + weight + pos_weight", "loss", True),
    ("self gradient", "grad_self", False),
    ("self gradient + weights", "grad_self", True),
    ("target gradient", "grad_target", False),
    ("target gradient + pos_weight", "grad_target", True),
    ("loss fp16", "loss", False, "fp16"),
    ("loss bf16", "loss", False, "bf16"),
    ("loss + weights fp16", "loss", True, "fp16"),
    ("loss + weights bf16", "loss", True, "bf16"),
    ("self gradient fp16", "grad_self", False, "fp16"),
    ("self gradient bf16", "grad_self", False, "bf16"),
    ("self gradient + weights fp16", "grad_self", True, "fp16"),
    ("self gradient + weights bf16", "grad_self", True, "bf16"),
    ("target gradient fp16", "grad_target", False, "fp16"),
    ("target gradient bf16", "grad_target", False, "bf16"),
    ("target gradient + pos_weight fp16", "grad_target", True, "fp16"),
    ("target gradient + pos_weight bf16", "grad_target", True, "bf16"),
    # Mean and sum: the loss summed, nothing stored.
    ("loss sum", "loss", False, "fp32", "sum"),
    ("loss + weights sum", "loss", True, "fp32", "sum"),
    ("loss sum fp16", "loss", False, "fp16", "sum"),
    ("loss sum bf16", "loss", False, "bf16", "sum"),
    ("loss + weights sum fp16", "loss", True, "fp16", "sum"),
    ("loss + weights sum bf16", "loss", True, "bf16", "sum"),
]


def names(binary):
    out = subprocess.run([binary, "--benchmark_list_tests"], capture_output=True, text=True,
                         check=True).stdout.split()
    return set(out)


def case_name(available, kind, weighted, dtype, mode="store", inputs="ramp"):
    candidates = [f"tile/{kind}/{dtype}/{'weights' if weighted else 'noweight'}/{mode}/{inputs}"]
    if inputs == "ramp":
        candidates.append(f"tile/{kind}/{dtype}/{'weight' if weighted else 'noweight'}/{mode}")
    for name in candidates:
        if name in available:
            return name
    return None


def run(binary, names_to_run, min_time):
    pattern = "^(" + "|".join(re.escape(n) for n in names_to_run) + ")$"
    out = subprocess.run([binary, f"--benchmark_filter={pattern}",
                          f"--benchmark_min_time={min_time}", "--benchmark_format=json"],
                         capture_output=True, text=True, check=True).stdout
    # A rate: elements per CPU second where the binary counts CPU time per element, else its own.
    return {b["name"]: (1e9 / b["cpu_ns_per_elem"] if "cpu_ns_per_elem" in b
                        else b["items_per_second"])
            for b in json.loads(out)["benchmarks"]
            if "cpu_ns_per_elem" in b or "items_per_second" in b}


def plan_cases(args, available):
    """{title: benchmark name} of one build."""
    if args.filter:
        return {name: name for name in sorted(available) if re.search(args.filter, name)}
    plan = {}
    for inputs in args.inputs.split(","):
        for case in CASES:
            title, kind, weighted = case[:3]
            dtype = case[3] if len(case) > 3 else "fp32"
            mode = case[4] if len(case) > 4 else "store"
            name = case_name(available, kind, weighted, dtype, mode, inputs)
            full_title = title if inputs == "ramp" else f"{title} ({inputs})"
            if name:
                plan[full_title] = name
            else:  # an older or newer tile_bench: its column shows "-" for this case
                print(f"note: no tile_bench case for {full_title!r} "
                      f"(tile/{kind}/{dtype}/...): skipped", file=sys.stderr)
    return plan


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("builds", nargs="+", help="label=path/to/tile_bench")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=0.3)
    parser.add_argument("--inputs", default="ramp", help="tile_bench input sets, comma-separated")
    parser.add_argument("--filter", help="compare every case matching this regex instead")
    args = parser.parse_args()
    builds = [b.split("=", 1) for b in args.builds]
    plan = {label: plan_cases(args, names(binary)) for label, binary in builds}
    rates = {label: {title: [] for title in plan[label]} for label, _ in builds}
    for _ in range(args.rounds):
        for label, binary in builds:
            if not plan[label]:
                continue
            measured = run(binary, plan[label].values(), args.min_time)
            for title, name in plan[label].items():
                if name in measured:
                    rates[label][title].append(measured[name])
    first = builds[0][0]
    header = "| case | " + " | ".join(f"{label} Gelem/s" for label, _ in builds)
    header += " | " + " | ".join(f"{label}/{first}" for label, _ in builds[1:]) + " |"
    print(header)
    print("|" + "---|" * (1 + 2 * len(builds) - 1))
    titles = list(dict.fromkeys(t for label, _ in builds for t in plan[label]))
    for title in titles:
        medians = [statistics.median(rates[label][title]) if rates[label].get(title) else None
                   for label, _ in builds]
        cells = [f"{m / 1e9:.3f}" if m else "-" for m in medians]
        ratios = [f"{m / medians[0]:.2f}" if m and medians[0] else "-" for m in medians[1:]]
        print(f"| {title} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    main()
