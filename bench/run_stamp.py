"""Where and when a measurement ran, as the one line that heads each generated table.

Figures from different machines and commits are not comparable, so every table the bench scripts
write (perf_table.py, accuracy_table.py) states the CPU model, the SIMD target the library's
kernels dispatch to, the commit of the sources measured ("-dirty" when tracked files differ from
it) and the date in UTC.
"""
import datetime
import platform
import subprocess


def cpu_model():
    """lscpu's model name with its family and model numbers (a virtual machine's model name may
    be no more than "AMD EPYC"), else whatever the platform module knows."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return platform.processor() or "unknown"
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    name = fields.get("Model name", platform.processor() or "unknown").strip()
    if "CPU family" in fields and "Model" in fields:
        name += " (family %s model %s)" % (fields["CPU family"].strip(), fields["Model"].strip())
    return name


def source_commit(root):
    """The short commit of the git tree at root, plus "-dirty" where a tracked file differs from
    it; "unknown" outside a git checkout."""
    def git(*args):
        return subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True,
                              check=True).stdout.strip()
    try:
        commit = git("rev-parse", "--short", "HEAD")
        return commit + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def utc_date():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def stamp(simd_target, commit, *extra):
    """The header line: machine, SIMD target, commit, date, then any further facts of the run."""
    return "; ".join(["machine: %s" % cpu_model(), "SIMD target: %s" % simd_target,
                      "commit: %s" % commit, "date: %s" % utc_date()] + list(extra))
