#!/usr/bin/env python3
"""Includes that cross the layers the wrong way (issue 37: rooms that show the design; docs/design.md, "Layers").

Usage: layers.py SOURCE_DIR

Reads the quoted #includes of every C/C++ file (the tracked tree, as git sees it) and resolves each as the
compiler would: beside the including file first, then in the folders the targets put on the include path
(a "pimg/x.hpp" name in the public include folders; a private "room/x.hpp" under tuner/src/ for the core).
Three rules, each broken by a line it prints (path:line: what and why); exits 1 on any:
  - the contracts (tuner/contracts/) include only each other: no store header (results/), no header of the
    core (tuner/include/, tuner/src/), nothing above;
  - the store (results/) includes only itself and the contracts: no header of the core's implementation;
  - the core's rooms (tuner/src/ space, search, measure, compile, workers, io, plugins: pimg::core) include no
    store header and no room of the runner (run, stages, distributed, replay: pimg::runner, which writes the store);
  - the composition root (tuner/app/) is included by nothing it wires (tuner/, results/, report/, variants/,
    kernels/): nothing below it knows how it is wired.
An include that resolves nowhere (a generated file, a kernel source) is not judged.
"""
import os
import re
import subprocess
import sys

CODE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".c", ".cu", ".cuh", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# The public include folders, as the targets export them (tuner/CMakeLists.txt, results/, report/).
PUBLIC = ("tuner/contracts/include", "tuner/include", "results/include", "report/include")
CONTRACTS = "tuner/contracts/"
STORE = "results/"
APP = "tuner/app/"
# pimg::core's rooms, and pimg::runner's, which drive the core and write the store (tuner/CMakeLists.txt).
CORE_ROOMS = tuple(f"tuner/src/{r}/" for r in ("space", "search", "measure", "compile", "workers", "io", "plugins"))
RUNNER_ROOMS = tuple(f"tuner/src/{r}/" for r in ("run", "stages", "distributed", "replay"))
BELOW_APP = ("tuner/", "results/", "report/", "variants/", "kernels/")  # tests, benches and fuzzers may drive it


def source_files(root):
    """The tree's files that git tracks or would track (untracked, not ignored)."""
    out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard"], check=True,
                         capture_output=True, text=True).stdout
    return sorted(p for p in set(out.splitlines()) if p.endswith(CODE_SUFFIXES))


def resolve(root, path, name):
    """The tree path an #include "name" in path reaches, or None where it reaches no file of the tree."""
    here = os.path.normpath(os.path.join(os.path.dirname(path), name))
    candidates = [here] + [os.path.normpath(os.path.join(d, name)) for d in PUBLIC]
    if path.startswith("tuner/src/"):
        candidates.append(os.path.normpath(os.path.join("tuner/src", name)))
    if path.startswith(APP):
        candidates.append(os.path.normpath(os.path.join("tuner/app", name)))
    for c in candidates:
        if not c.startswith("..") and os.path.isfile(os.path.join(root, c)):
            return c
    return None


def breach(path, target):
    """Why path may not include target, or None where it may."""
    if path.startswith(CONTRACTS) and not target.startswith(CONTRACTS):
        return "a contract includes only the contracts (tuner/contracts/)"
    if path.startswith(STORE) and not target.startswith((STORE, CONTRACTS)):
        return "the store includes only itself and the contracts (tuner/contracts/), not the core"
    if path.startswith(CORE_ROOMS) and target.startswith((STORE, *RUNNER_ROOMS)):
        return "the core's rooms know neither the store nor the runner's rooms (run, stages, distributed, replay)"
    if target.startswith(APP) and path.startswith(BELOW_APP) and not path.startswith(APP):
        return "the composition root (tuner/app/) is above everything it wires: nothing below includes it"
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    root = sys.argv[1]
    bad = 0
    for path in source_files(root):
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            target = m and resolve(root, path, m.group(1))
            why = target and breach(path, target)
            if why:
                print(f"{path}:{n}: includes {target}: {why}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
