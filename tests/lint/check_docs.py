"""The repository documents itself: fails if a tracked file points at the specification files
that live outside the repository (the contract is docs/contract/), if a markdown link in docs/
or README.md names a file, or a heading in a markdown file, that does not exist, or if a code
name in backticks there (a function, type or constant of ours: `SettleReduction`, `kOut`; or a
path in the tree: `src/kernels/math.h`) no longer exists in the tree.

Usage: check_docs.py REPOSITORY_ROOT"""
import os
import re
import subprocess
import sys

# Spelled so that this file does not match its own patterns.
OUTSIDE_REFERENCE = re.compile(
    r"\.\./shar[e]d|shar[e]d/spec|\bDECISION[S]\b|\b(?:forward|backward|runtime-and-base-api)\.m[d]\b")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def tracked_files(root):
    try:
        listing = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                                 capture_output=True).stdout.decode()
        return [path for path in listing.split("\0") if path]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: take the tree
        found = []
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = [s for s in subfolders if not s.startswith((".git", "build"))]
            found += [os.path.relpath(os.path.join(folder, f), root) for f in files]
        return found


def read_text(path):
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
        return None  # binary, or deleted in the work tree


def outside_references(root, files):
    problems = []
    for path in files:
        if path.startswith("docs/contract/"):
            continue
        text = read_text(os.path.join(root, path))
        for number, line in enumerate((text or "").splitlines(), 1):
            if OUTSIDE_REFERENCE.search(line):
                problems.append(f"{path}:{number}: points outside the repository (cite "
                                f"docs/contract/ instead): {line.strip()}")
    return problems


def github_anchor(heading):
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        text = FENCE.sub("", read_text(path) or "")
        cache[path] = {github_anchor(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}
    return cache[path]


def broken_links(root, files):
    problems = []
    pages = [p for p in files if p.endswith(".md") and (p == "README.md" or p.startswith("docs/"))]
    for page in pages:
        text = read_text(os.path.join(root, page))
        if text is None:
            continue
        text = CODE_SPAN.sub("", FENCE.sub("", text))
        for target in LINK.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
                continue
            file_part, _, anchor = target.partition("#")
            here = os.path.join(root, os.path.dirname(page))
            resolved = os.path.normpath(os.path.join(here, file_part)) if file_part else \
                os.path.join(root, page)
            if not os.path.exists(resolved):
                problems.append(f"{page}: link to a missing file: {target}")
            elif anchor and resolved.endswith(".md") and anchor not in anchors_of(resolved):
                problems.append(f"{page}: link to a missing heading: {target}")
    return problems


# Backticked names checked against the sources: CamelCase names and k-constants (the project's
# spellings of functions, types and constants), optionally qualified and called; paths under the
# tree's top folders. Other spans (commands, variables, values, other libraries' names) are text.
CODE_NAME = re.compile(r"(?:[A-Za-z_]\w*::)*((?:[A-Z][a-z0-9]+[A-Z]|k[A-Z])\w*)(?:\(\))?")
TREE_PATH = re.compile(r"(?:src|tests|bench|tools|scripts|python|include|docs|examples|cmake)/"
                       r"[\w./-]*")
SOURCE_SUFFIXES = (".h", ".cc", ".cu", ".inc", ".c", ".cpp", ".py", ".pyi", ".sh", ".txt",
                   ".cmake", ".in", ".toml")


def stale_code_names(root, files):
    sources = "\n".join(read_text(os.path.join(root, f)) or "" for f in files
                         if f.endswith(SOURCE_SUFFIXES) or os.path.basename(f) == "CMakeLists.txt")
    programs = set(re.findall(r"add_executable\((\w+)", sources))
    problems = []
    pages = [p for p in files if p.endswith(".md") and (p == "README.md" or p.startswith("docs/"))]
    for page in pages:
        for span in re.findall(r"`([^`\n]+)`", FENCE.sub("", read_text(os.path.join(root, page)) or "")):
            span = span.strip()
            if TREE_PATH.fullmatch(span):
                path = span.rstrip("/")
                known = any(f == path or f.startswith(path + "/") for f in files)
                if not known and os.path.basename(path) not in programs:  # a built program
                    problems.append(f"{page}: `{span}` is no path in the tree")
                continue
            name = CODE_NAME.fullmatch(span)
            if name and name.group(1) not in sources:
                problems.append(f"{page}: `{span}` names nothing in the sources")
    return problems


def main():
    root = os.path.abspath(sys.argv[1])
    files = tracked_files(root)
    problems = (outside_references(root, files) + broken_links(root, files) +
                stale_code_names(root, files))
    for problem in problems:
        print(problem)
    print(f"checked {len(files)} files: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
