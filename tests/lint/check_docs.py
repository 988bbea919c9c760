"""The repository documents itself: fails if a tracked file points at the specification files
that live outside the repository (the contract is docs/contract/), or if a markdown link in
docs/ or README.md names a file, or a heading in a markdown file, that does not exist.

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


def main():
    root = os.path.abspath(sys.argv[1])
    files = tracked_files(root)
    problems = outside_references(root, files) + broken_links(root, files)
    for problem in problems:
        print(problem)
    print(f"checked {len(files)} files: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
