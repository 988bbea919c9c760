"""Warnings stay on in the SIMD code: compiles simd_warning_probe.cc (a deliberate shadow in a
Highway per-target source) with the given compiler and include flags and passes only if the
shadow is reported for more than one target, i.e. also where Highway re-includes the source.

Usage: check_simd_warnings.py COMPILER [-I...]..."""
import os
import re
import subprocess
import sys


def main():
    compiler, include_flags = sys.argv[1], sys.argv[2:]
    here = os.path.dirname(os.path.abspath(__file__))
    command = [compiler, "-std=c++20", "-fsyntax-only", "-Wshadow", *include_flags, f"-I{here}",
               os.path.join(here, "simd_warning_probe.cc")]
    diagnostics = subprocess.run(command, capture_output=True, text=True).stderr
    targets = sorted(set(re.findall(r"probe::(\w+)::ShadowingProbe", diagnostics)))
    print(f"the deliberate shadow was reported for: {', '.join(targets) or 'no target'}")
    if len(targets) < 2:
        print(diagnostics)
        print("FAIL: warnings in Highway's re-included per-target code are hidden")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
