#!/usr/bin/env python3
"""The checkout's size budget (issue 33): what git tracks under bench/results/ at most 16 MiB, the whole
tracked tree at most 24 MiB, so that a plain clone travels to the GPU machine (the device tool takes at most
64 MiB of working tree, build carry included). Sizes are those of the files on disk, as
`git ls-files | xargs du -cb` counts them; a tracked file missing on disk counts nothing.

Usage: tree_size_test.py SOURCE_DIR [--max-results-mib N] [--max-tree-mib N] [--top N]
Prints both totals and the largest folders; exits 1 when a total is over its limit, 77 (skipped) when
SOURCE_DIR is not a git checkout (a source archive has no tracked tree to measure).
"""
import argparse
import os
import subprocess
import sys
from collections import Counter

MIB = 1024 * 1024
RESULTS = "bench/results/"


def tracked_sizes(source):
    """(path, bytes) of every tracked file present on disk; (None, why) outside a git checkout."""
    try:
        run = subprocess.run(["git", "-C", source, "ls-files", "-z"], capture_output=True)
    except OSError as e:
        return None, str(e)
    if run.returncode != 0:
        return None, run.stderr.decode(errors="replace").strip()
    out = run.stdout
    sizes = []
    for raw in out.split(b"\0"):
        if not raw:
            continue
        path = os.fsdecode(raw)
        full = os.path.join(source, path)
        if os.path.isfile(full) and not os.path.islink(full):
            sizes.append((path, os.path.getsize(full)))
    return sizes, ""


def folder_of(path):
    """The folder a file is charged to: bench/results/NAME for a results folder, else its top two levels."""
    parts = path.split("/")
    if path.startswith(RESULTS) and len(parts) > 3:
        return "/".join(parts[:3])
    return "/".join(parts[:2]) if len(parts) > 2 else (parts[0] if len(parts) > 1 else ".")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("--max-results-mib", type=float, default=float(os.environ.get("PIMG_MAX_RESULTS_MIB", 16)))
    ap.add_argument("--max-tree-mib", type=float, default=float(os.environ.get("PIMG_MAX_TREE_MIB", 24)))
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()

    sizes, why = tracked_sizes(args.source)
    if sizes is None:
        print(f"tree_size: {args.source} is not a git checkout ({why}): skipped")
        return 77
    tree = sum(n for _, n in sizes)
    results = sum(n for p, n in sizes if p.startswith(RESULTS))
    folders = Counter()
    for p, n in sizes:
        folders[folder_of(p)] += n

    over = []
    for name, total, limit in (("bench/results", results, args.max_results_mib), ("tracked tree", tree, args.max_tree_mib)):
        ok = total <= limit * MIB
        print(f"{name}: {total / MIB:.2f} MiB ({total} bytes) of at most {limit:g} MiB{'' if ok else ': OVER'}")
        if not ok:
            over.append(name)
    print(f"largest folders ({len(sizes)} tracked files):")
    for folder, n in folders.most_common(args.top):
        print(f"  {n / MIB:8.2f} MiB  {folder}")
    if over:
        print(f"tree_size: over budget: {', '.join(over)}. Compress stores and raw samples (xz), leave out what "
              "`pimg-tune report` makes again from a committed store, and drop stores nothing quotes "
              "(bench/results/README.md).")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
