#!/usr/bin/env python3
"""Seed 004's author's own program beside pimg-tune's tuned OpenMP configuration, on the same machine in the
same run (issue 21, "Done when" item 2).

Builds the author's sequential + OpenMP semblance program from its published source in
../shared/peers/reg-openmp (gcc -O3 -fopenmp, as its README says) into a scratch folder, never into the
repository; runs it RUNS times per parameter set on the seed's real data with the search grid of the
store's semblance problems (the parameter sets are read from the program's own test-reg.sh, their point
counts replaced by the problem's grid); times each run on the wall clock (the whole program: reading the
SU file, the search, printing, as the seed's perf stat did). Beside it, from the store DB of the same run:
the tuned OpenMP configuration of each problem (the confirmation stage's fastest on the openmp device), its
search time (median and 95% interval) and its whole-program time (the cold stage's cold.total_ms, a fresh
process with the caches off, docs/observers.md). Writes one markdown section.

Usage: scripts/seed004-peer.py --db DB --out SECTION.md [--runs 3] [--peer ../shared/peers/reg-openmp]
Exit code 0; 2 for bad input (no database, no semblance problem in it); 3 when the program cannot be built
(the section then says why).
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

# The problems' parameter sets in the order test-reg.sh runs them (Test 1, 2, 3).
PARAM_SETS = ["param1", "param2", "param3"]

TUNED_QUERY = """
SELECT e.id, p.canonical, v.name, c.canonical, e.median_ms, e.ci_low_ms, e.ci_high_ms, e.validation,
       e.device_id, e.problem_id, e.variant_id, e.config_id, d.name
FROM evaluations e JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id
JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id
WHERE p.family = 'semblance' AND d.backend = 'openmp' AND e.stage = 'confirm' AND e.status = 'ok'
  AND e.id = (SELECT MAX(e2.id) FROM evaluations e2 WHERE e2.device_id = e.device_id AND e2.problem_id = e.problem_id
              AND e2.variant_id = e.variant_id AND e2.config_id = e.config_id AND e2.stage = 'confirm')
ORDER BY e.problem_id, e.median_ms
"""

COLD_QUERY = """
SELECT m.value FROM evaluations e JOIN metrics m ON m.evaluation_id = e.id
WHERE e.stage = 'cold' AND e.status = 'ok' AND e.device_id = ? AND e.problem_id = ? AND e.variant_id = ?
  AND e.config_id = ? AND m.name = 'cold.total_ms'
ORDER BY e.id DESC LIMIT 1
"""


def param_args(test_script):
    """The argument lists of test-reg.sh's ARGS="..." blocks (M0 H0 T0 TAU, then A0 A1 NA ... E0 E1 NE)."""
    with open(test_script) as f:
        text = f.read()
    blocks = re.findall(r'ARGS="([^"]*)"', text)
    return [b.split() for b in blocks]


def with_grid(args, grid):
    """args with the point counts NA..NE replaced by the problem's grid."""
    out = list(args)
    for i in range(5):
        out[4 + 3 * i + 2] = str(grid[i])
    return out


def build(peer, into):
    sources = [os.path.join(peer, f) for f in ("reg.c", "semblance.c", "su.c")]
    missing = [s for s in sources if not os.path.isfile(s)]
    if missing:
        return None, f"no {', '.join(missing)}"
    exe = os.path.join(into, "reg")
    cmd = ["gcc", "-O3", "-fopenmp", "-I", peer, "-o", exe] + sources + ["-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"`{' '.join(cmd)}` failed: {r.stderr.strip()[:400]}"
    return exe, " ".join(["gcc", "-O3", "-fopenmp", "reg.c", "semblance.c", "su.c", "-lm"])


def run_peer(exe, args, data, runs):
    """Wall times (s) of `runs` runs and the best point the last one printed."""
    times, printed = [], {}
    for _ in range(runs):
        start = time.perf_counter()
        r = subprocess.run([exe] + args + [data], capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if r.returncode != 0:
            raise RuntimeError(f"{exe} exited {r.returncode}: {r.stderr.strip()[:300]}")
        printed = dict(re.findall(r"^(\w+)=(\S+)$", r.stdout, re.M))
    return times, printed


def fmt_s(seconds):
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--peer", default=os.path.join("..", "shared", "peers", "reg-openmp"))
    args = ap.parse_args()
    if not os.path.isfile(args.db):
        print(f"{args.db}: no such database", file=sys.stderr)
        return 2
    try:
        db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
        tuned = db.execute(TUNED_QUERY).fetchall()
    except sqlite3.DatabaseError as e:
        print(f"{args.db}: not a pimg-tune database ({e})", file=sys.stderr)
        return 2
    if not tuned:
        print(f"{args.db}: no confirmed OpenMP semblance configuration (tune spaces/seeds/004-semblance*.yaml "
              "with its confirmation stage first)", file=sys.stderr)
        return 2
    best = {}
    for row in tuned:  # ordered by problem, then median: the first of each problem is its fastest
        best.setdefault(row[9], row)

    md = ["## Seed 004: the author's own program beside the tuned OpenMP configuration", ""]
    test_script = os.path.join(args.peer, "test-reg.sh")
    scratch = tempfile.mkdtemp(prefix="pimg-peer-")
    try:
        exe, how = build(args.peer, scratch) if os.path.isfile(test_script) else (None, f"no {test_script}")
        if exe is None:
            md += [f"The author's program could not be built here: {how}.", ""]
            with open(args.out, "w") as f:
                f.write("\n".join(md) + "\n")
            return 3
        sets = dict(zip(PARAM_SETS, param_args(test_script)))
        md += [f"The seed author's sequential + OpenMP program (`{args.peer}`, built here from its published source "
               f"with `{how}`, OpenMP's default thread count: {os.cpu_count()} cores) run {args.runs} times per "
               "parameter set on the seed's data with the grid of the store's problems, timed on the wall clock "
               "as a whole program (reading the SU file, the search, printing). Ours: the confirmation stage's "
               "fastest OpenMP configuration of the same problem in the same run, its search time (median [95% "
               "interval]) and its whole program (`cold.total_ms`: a fresh process, caches off, device opening, "
               "input, build, run and release). Ratios are the author's time over ours (above 1x ours is "
               "faster).", "",
               "| problem | author's program, s: median [min, max] | its best point | ours: tuned OpenMP configuration "
               "| search ms | whole program ms | author / ours (whole programs) | author / ours (search) | ours: "
               "validation |",
               "|---|---|---|---|---|---|---|---|---|"]
        for _, row in sorted(best.items()):
            (_, canonical, variant, config, median, low, high, validation, device_id, problem_id, variant_id,
             config_id, _) = row
            attrs = json.loads(canonical)
            attrs = attrs.get("attrs", attrs)
            params, data = attrs.get("params", "?"), attrs.get("data", "")
            grid = [int(g) for g in str(attrs.get("grid", "20")).split(",")]
            grid = grid * 5 if len(grid) == 1 else grid
            label = f"{params}, grid {'x'.join(map(str, grid))}"
            if params not in sets or not data:
                md.append(f"| {label} | not run: test-reg.sh has no {params} | | | | | | | |")
                continue
            try:
                times, printed = run_peer(exe, with_grid(sets[params], grid), data, args.runs)
            except RuntimeError as e:
                md.append(f"| {label} | failed: {e} | | | | | | | |")
                continue
            peer = statistics.median(times)
            point = ", ".join(f"{k}={printed[k]}" for k in ("A", "B", "C", "D", "E", "Semblance") if k in printed)
            cold = db.execute(COLD_QUERY, (device_id, problem_id, variant_id, config_id)).fetchone()
            whole = cold[0] if cold else None
            cfg = ", ".join(f"{k}={v}" for k, v in json.loads(config).items())
            md.append("| " + " | ".join([
                label, f"{fmt_s(peer)} [{fmt_s(min(times))}, {fmt_s(max(times))}]", point, f"{variant} {cfg}",
                f"{median:.1f} [{low:.1f}, {high:.1f}]", f"{whole:.1f}" if whole else "\u2013 (no cold row)",
                f"{peer * 1000 / whole:.2f}x" if whole else "\u2013", f"{peer * 1000 / median:.2f}x",
                validation.replace("|", "\\|")]) + " |")
        md.append("")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    with open(args.out, "w") as f:
        f.write("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
