"""gdb script of trace-loop.sh: steps one benchmark's SIMD tile loop and writes one iteration.

Run by trace-loop.sh as gdb -batch -x trace-loop-gdb.py --args tile_bench ...; reads the
environment: SYMBOL (a substring of the mangled name of the loop's function), STEPS (how many
instructions to step, default 4000) and OUT (where to write the iteration's instructions, one per
line, Intel syntax). The iteration is the shortest period, of at least 50 instructions, with which
some instruction address recurs three times in the trace.
"""
import collections
import os
import subprocess

import gdb  # pylint: disable=import-error

symbol = os.environ["SYMBOL"]
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set disassembly-flavor intel")
binary = gdb.current_progspace().filename
names = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
matches = [line.split()[-1] for line in names.splitlines() if symbol in line]
if not matches:
    raise gdb.GdbError(f"no symbol of {binary} contains {symbol}")
gdb.execute(f"break {matches[0]}", to_string=True)
gdb.execute("run", to_string=True)
gdb.execute("delete", to_string=True)
trace = []
for _ in range(int(os.environ.get("STEPS", "4000"))):
    trace.append(int(gdb.parse_and_eval("$pc")))
    gdb.execute("stepi", to_string=True)
best = None
for pc, seen in collections.Counter(trace).items():
    if seen < 3:
        continue
    at = [i for i, q in enumerate(trace) if q == pc]
    period = at[-1] - at[-2]
    if period >= 50 and at[-2] - at[-3] == period and (best is None or period < best[1]):
        best = (pc, period, at[-2])
if best is None:
    raise gdb.GdbError("no loop found: raise STEPS")
_, period, start = best
lines = [gdb.execute(f"x/i {pc}", to_string=True).split(":", 1)[1].strip()
         for pc in trace[start:start + period]]
with open(os.environ["OUT"], "w", encoding="utf-8") as out:
    out.write("\n".join(lines) + "\n")
gdb.execute("kill")
