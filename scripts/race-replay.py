#!/usr/bin/env python3
"""Replays racing (docs/measurement.md, MeasureSpec::race) on the samples of stores measured without it.

For each run, device and problem of a store, the search stage's ok evaluations are replayed in the order they were
measured, each run by run: the bar is the lowest upper end of the median's 95% interval of the evaluations replayed
before it (as the tuner keeps it), and an evaluation stops at its first run k >= LEAST at which the lower end of the
interval of its first k runs is above (1 + MARGIN) * bar, as the evaluator decides (tuner/src/measure/evaluator.cpp, raced).
The full method's ranking is the median of all of an evaluation's runs. A dropped evaluation whose full median is
within WITHIN of the group's winner is a failure: racing would have lost a configuration that could matter.

Prints, per store, the groups and evaluations replayed, how many racing drops, the timed runs it saves, and every
failure, then the totals and the dropped evaluation closest to its winner; exits 1 when there is a failure.

With --simulate N instead of stores: N races of a configuration 2% slower than the best on synthetic noise as wide
as the 2-core CPU's (log-normal 5%, one run in 20 a 30% outlier), the bar the upper end of the best's interval
over LEAST runs; prints how many of them racing drops.

Usage: race-replay.py [--margin 0.1] [--least 5] [--within 0.02] STORE[.xz] ...
       race-replay.py [--margin 0.1] [--least 5] --simulate N [--seed S]
"""
import argparse
import bisect
import lzma
import math
import os
import shutil
import sqlite3
import sys
import tempfile
from collections import defaultdict


def interval_rank(n):
    """The rank j of tuner/src/measure/confirm_rounds.cpp's median_interval: X(j) and X(n+1-j) bound the median at 95%."""
    if n <= 1000:
        log_total = math.lgamma(n + 1) - n * math.log(2.0)
        below, j = 0.0, 0
        while j < n:
            term = math.exp(log_total - math.lgamma(j + 1) - math.lgamma(n - j + 1))
            if below + term > 0.025:
                break
            below += term
            j += 1
        return j
    return int(math.floor(n / 2.0 - 1.959964 * math.sqrt(n) / 2.0))


RANKS = [interval_rank(n) for n in range(0, 1001)]


def interval(sorted_runs):
    n = len(sorted_runs)
    j = RANKS[n] if n <= 1000 else interval_rank(n)
    if j == 0:
        return sorted_runs[0], sorted_runs[-1]
    return sorted_runs[j - 1], sorted_runs[n - j]


def median(sorted_runs):
    n = len(sorted_runs)
    return sorted_runs[n // 2] if n % 2 else 0.5 * (sorted_runs[n // 2 - 1] + sorted_runs[n // 2])


def open_store(path, tmp):
    if path.endswith(".xz"):
        plain = os.path.join(tmp, os.path.basename(path)[:-3])
        with lzma.open(path) as src, open(plain, "wb") as dst:
            shutil.copyfileobj(src, dst)
        path = plain
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def replay(db, margin, least, within):
    has_stage = any(r[1] == "stage" for r in db.execute("PRAGMA table_info(evaluations)"))
    stage = "AND e.stage = 'search'" if has_stage else ""
    runs = defaultdict(list)
    for eid, seq, ms in db.execute("SELECT s.evaluation_id, s.seq, s.kernel_ms FROM samples s JOIN evaluations e ON "
                                   f"e.id = s.evaluation_id WHERE e.status = 'ok' {stage} ORDER BY s.evaluation_id, s.seq"):
        runs[eid].append(ms)
    groups = defaultdict(list)
    for eid, run, device, problem in db.execute("SELECT e.id, e.run_id, e.device_id, e.problem_id FROM evaluations e "
                                                f"WHERE e.status = 'ok' {stage} ORDER BY e.id"):
        if len(runs.get(eid, [])) >= least:
            groups[(run, device, problem)].append(eid)
    out = {"groups": 0, "evaluations": 0, "raced": 0, "runs": 0, "saved": 0, "failures": [], "closest": math.inf}
    for key, ids in groups.items():
        out["groups"] += 1
        full = {eid: median(sorted(runs[eid])) for eid in ids}
        best = min(full.values())
        bar = 0.0
        for eid in ids:
            out["evaluations"] += 1
            seen = []
            dropped = False
            for ms in runs[eid]:
                bisect.insort(seen, ms)
                # Dropped only where it stops the configuration earlier than its stored runs did (a configuration
                # whose noise target or limit ended it at that run is not counted as raced).
                if len(seen) >= least and len(seen) < len(runs[eid]) and bar > 0 and margin > 0 and \
                        interval(seen)[0] > (1 + margin) * bar:
                    dropped = True
                    break
            out["runs"] += len(runs[eid])
            if dropped:
                out["raced"] += 1
                out["saved"] += len(runs[eid]) - len(seen)
                out["closest"] = min(out["closest"], full[eid] / best - 1)
                if full[eid] <= (1 + within) * best:
                    out["failures"].append(
                        f"run {key[0]} device {key[1]} problem {key[2]}: evaluation {eid} (median {full[eid]:.5g} ms, "
                        f"{full[eid] / best - 1:+.2%} from the winner) dropped after {len(seen)} of {len(runs[eid])} runs")
            hi = interval(seen)[1]
            if bar == 0 or hi < bar:
                bar = hi
    return out


def simulate(n, margin, least, seed):
    import random
    rng = random.Random(seed)

    def run(true_ms):
        return true_ms * math.exp(rng.gauss(0, 0.05)) * (1.3 if rng.random() < 0.05 else 1.0)

    dropped = 0
    for _ in range(n):
        bar = interval(sorted(run(1.0) for _ in range(least)))[1]
        seen = []
        for _ in range(60):
            bisect.insort(seen, run(1.02))
            if len(seen) >= least and interval(seen)[0] > (1 + margin) * bar:
                dropped += 1
                break
    print(f"{n} races of a configuration 2% slower than the best, margin {margin:g}: {dropped} dropped")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stores", nargs="*")
    ap.add_argument("--simulate", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--margin", type=float, default=0.1)
    ap.add_argument("--least", type=int, default=5)
    ap.add_argument("--within", type=float, default=0.02)
    a = ap.parse_args()
    if a.simulate:
        return simulate(a.simulate, a.margin, a.least, a.seed)
    if not a.stores:
        ap.error("no store given")
    failures = 0
    total = defaultdict(int)
    closest = math.inf
    with tempfile.TemporaryDirectory() as tmp:
        for path in a.stores:
            db = open_store(path, tmp)
            r = replay(db, a.margin, a.least, a.within)
            db.close()
            for k in ("groups", "evaluations", "raced", "runs", "saved"):
                total[k] += r[k]
            closest = min(closest, r["closest"])
            saved = r["saved"] / r["runs"] if r["runs"] else 0
            print(f"{path}: {r['groups']} groups, {r['evaluations']} evaluations, {r['raced']} raced, "
                  f"{r['saved']} of {r['runs']} timed runs saved ({saved:.0%}), {len(r['failures'])} within "
                  f"{a.within:.0%} of a winner dropped")
            for f in r["failures"]:
                print("  FAIL", f)
            failures += len(r["failures"])
    saved = total["saved"] / total["runs"] if total["runs"] else 0
    print(f"all: {total['groups']} groups, {total['evaluations']} evaluations, {total['raced']} raced at margin "
          f"{a.margin:g}, {saved:.0%} of the timed runs saved, {failures} within {a.within:.0%} of a winner dropped; "
          f"the closest dropped {closest:+.1%} from its winner")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
