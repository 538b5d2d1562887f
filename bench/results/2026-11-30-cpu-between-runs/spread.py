#!/usr/bin/env python3
"""Between-run spread against within-run interval width, per (backend, problem).

  spread.py warm EVALUATIONS.csv.xz   the main job's runs I, J, K (bench/results/2026-11-29-cpu-main-job-warm)
  spread.py runs RUN1.db RUN2.db ...  this folder's back-to-back runs (stores of run.sh)

For every configuration measured ok in the search (not dropped by the race) in every run: its spread between runs
(max median / min median - 1) and its 95% interval's width within each run (relative to its median); medians and
90th percentiles of both. With `runs`, each configuration's confirmed medians per run are printed too."""
import csv
import lzma
import sqlite3
import statistics as st
import sys


def summary(label, moves, widths):
    moves.sort()
    widths.sort()
    q = lambda v, f: v[min(len(v) - 1, int(f * len(v)))]
    print(f"{label:34s} n={len(moves):4d}  between runs: median {100 * st.median(moves):5.1f}%  p90 {100 * q(moves, .9):5.1f}%"
          f"  | within a run (interval width): median {100 * st.median(widths):4.1f}%  p90 {100 * q(widths, .9):4.1f}%")


def warm(path):
    rows = list(csv.DictReader(lzma.open(path, "rt")))
    runs = sorted({r["run"] for r in rows if r["run"] != "L"})  # L ran with one core loaded
    d = {}
    for e in rows:
        if e["stage"] == "search" and e["status"] == "ok" and "raced" not in e["flags"] and e["run"] in runs:
            d.setdefault((e["backend"], e["problem"], e["variant"], e["config_id"]), {})[e["run"]] = e
    groups = {}
    for k, v in d.items():
        if all(r in v for r in runs):
            ms = [float(v[r]["median_ms"]) for r in runs]
            g = groups.setdefault(k[:2], ([], []))
            g[0].append(max(ms) / min(ms) - 1)
            g[1].extend((float(v[r]["ci_high_ms"]) - float(v[r]["ci_low_ms"])) / float(v[r]["median_ms"]) for r in runs)
    print(f"runs {', '.join(runs)} of {path}")
    for k in sorted(groups):
        summary(f"{k[0]} {k[1]}", *groups[k])


def stores(paths):
    q = ("select p.width, v.name, c.canonical, e.stage, e.median_ms, e.ci_low_ms, e.ci_high_ms, e.flags "
         "from evaluations e join problems p on p.id = e.problem_id join variants v on v.id = e.variant_id "
         "join configs c on c.id = e.config_id where e.status = 'ok' order by e.id")
    per = {}
    for i, path in enumerate(paths):
        for w, v, c, stage, med, lo, hi, flags in sqlite3.connect(path).execute(q):
            per.setdefault((w, v, c, stage), {})[i] = (med, lo, hi, flags)
    groups = {}
    for (w, v, c, stage), runs in sorted(per.items()):
        if len(runs) != len(paths):
            continue
        ms = [runs[i][0] for i in range(len(paths))]
        print(f"{w:5d} {stage:8s} {v} {c}: " + " ".join(f"{m:.4f}" for m in ms))
        if stage == "search" and not any("raced" in runs[i][3] for i in runs):
            g = groups.setdefault(w, ([], []))
            g[0].append(max(ms) / min(ms) - 1)
            g[1].extend((runs[i][2] - runs[i][1]) / runs[i][0] for i in runs)
    for w in sorted(groups):
        summary(f"openmp sharpen3 {w}x{w}, {len(paths)} runs", *groups[w])


if __name__ == "__main__":
    if sys.argv[1] == "warm":
        warm(sys.argv[2])
    else:
        stores(sys.argv[2:])
