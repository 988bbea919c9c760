"""The layers stay honest: fails if an #include of a file under src/ points up the layers, if a
loss family's folder includes another family's files, or if code outside the families includes a
family's file anywhere but at the one-line-per-family registration points.

The layers, each allowed to include its own files and those below it:
  runtime <- base <- kernels <- backends, and kernels <- ops.
Folders: src/<layer>/ is its layer. A loss family's folder, src/losses/<family>/, joins the layers:
its cpu/ is backends code, its *_checks.h and its other .cc files (one per aclnn API) are ops code,
and its other headers (formulas, error budget, exact forms, the family struct) are kernels code.

Usage: check_layers.py REPOSITORY_ROOT"""
import os
import re
import sys

ALLOWED = {
    "runtime": {"runtime"},
    "base": {"base", "runtime"},
    "kernels": {"kernels", "base", "runtime"},
    "backends": {"backends", "kernels", "base", "runtime"},
    "ops": {"ops", "kernels", "base", "runtime"},
}
# Shared machinery that names every family, one line each: the one switch over families (and the
# ops of them all), and the CPU backend's table of the families' tiles. The op table's kOps list
# names the ops' descriptors, which ops/op_table.h declares: it includes no family file.
REGISTRATION_POINTS = {"src/kernels/loss_families.h", "src/kernels/class_axis_families.h",
                       "src/backends/cpu/cpu_families.cc"}
SOURCE_SUFFIXES = (".h", ".cc", ".cu", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def family_of(path):
    """The family folder's name of src/losses/<family>/..., else None."""
    parts = path.split("/")
    return parts[2] if len(parts) > 3 and parts[:2] == ["src", "losses"] else None


def layer_of(path):
    """The layer of a file under src/, or None for a file in no layer."""
    parts = path.split("/")
    if parts[1] in ALLOWED:
        return parts[1]
    if family_of(path) is None:
        return None
    name = parts[-1]
    if parts[3] == "cpu":
        return "backends"
    if name.endswith(("_checks.h", "_rows.h", ".cc")):  # checks, op-table rows, op files
        return "ops"
    return "kernels"


def sources(root):
    found = []
    for folder, subfolders, files in os.walk(os.path.join(root, "src")):
        subfolders.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                found.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return found


def problems_in(root, path):
    problems = []
    with open(os.path.join(root, path), encoding="utf-8") as file:
        text = file.read()
    for match in INCLUDE.finditer(text):
        included = "src/" + match.group(1)
        if not os.path.isfile(os.path.join(root, included)):
            continue  # not a file of src/ (the public headers, Highway, a file beside it)
        line = text.count("\n", 0, match.start()) + 1
        where = f"{path}:{line}: includes {included}"
        layer, target = layer_of(path), layer_of(included)
        if layer is None or target is None:
            problems.append(f"{where}: a file in no layer")
        elif target not in ALLOWED[layer]:
            problems.append(f"{where}: {layer} code may not include {target} code")
        family, target_family = family_of(path), family_of(included)
        if target_family is not None and family is not None and family != target_family:
            problems.append(f"{where}: one family's folder includes another family's file")
        if target_family is not None and family is None and path not in REGISTRATION_POINTS:
            problems.append(f"{where}: shared code includes a family's file (only the "
                            f"registration points may: {', '.join(sorted(REGISTRATION_POINTS))})")
    return problems


def main():
    files = sources(os.path.abspath(sys.argv[1]))
    problems = [problem for path in files for problem in problems_in(sys.argv[1], path)]
    print("\n".join(problems + [f"checked the includes of {len(files)} files under src/: "
                                f"{len(problems)} problems"]))
    return int(bool(problems))


if __name__ == "__main__":
    sys.exit(main())
