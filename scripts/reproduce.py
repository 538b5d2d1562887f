#!/usr/bin/env python3
"""Do two tuning runs give the same answer? (issue 15's bar; docs/measurement.md)

Reads two pimg-tune databases (the same spaces tuned on two machines of one kind) and, per (problem,
backend), takes each run's confirmation-stage rows (stage 'confirm', the latest run that has them): the
winner is the tuned configuration with the lowest median, its ties the configurations whose 95% intervals
overlap the winner's. It reports whether the first run's winner is the second's or is tied with it in both
runs, and how much every ratio of the winner to a baseline moved between the runs.

Usage: scripts/reproduce.py A.db B.db [--json OUT] [--ratio-tolerance 0.03]
Exit code 0 when at least 95% of (problem, backend) agree and every ratio moved by at most the tolerance,
1 otherwise, 2 for bad input.
"""
import argparse
import json
import os
import sqlite3
import sys

QUERY = """
SELECT p.family, p.canonical, d.backend, d.name, v.name, v.baseline, c.canonical, e.median_ms, e.ci_low_ms,
       e.ci_high_ms, e.method, e.run_id
FROM evaluations e JOIN problems p ON p.id = e.problem_id JOIN devices d ON d.id = e.device_id
JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id
WHERE e.stage = 'confirm' AND e.status = 'ok'
ORDER BY e.id
"""


def load(path):
    if not os.path.isfile(path):
        sys.exit(f"reproduce: {path}: no such database")
    uri = "file:" + path + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True)
        rows = db.execute(QUERY).fetchall()
    except sqlite3.DatabaseError as e:
        print(f"reproduce: {path}: not a pimg-tune database of schema 5 or later ({e})", file=sys.stderr)
        sys.exit(2)
    groups = {}
    for fam, prob, backend, dev, var, base, cfg, med, lo, hi, method, run in rows:
        groups.setdefault((fam, prob, backend), {}).setdefault(run, []).append(
            {"device": dev, "variant": var, "baseline": bool(base), "config": cfg, "median": med, "lo": lo,
             "hi": hi, "method": method})
    # The latest run's confirmation of each (problem, backend).
    return {k: runs[max(runs)] for k, runs in groups.items()}


def key_of(r):
    return r["variant"] + " " + r["config"]


def answer(rows):
    tuned = [r for r in rows if not r["baseline"]]
    if not tuned:
        return None
    win = min(tuned, key=lambda r: r["median"])
    ties = {key_of(r) for r in tuned if r is not win and r["lo"] <= win["hi"] and r["hi"] >= win["lo"]}
    ratios = {r["variant"]: r["median"] / win["median"] for r in rows if r["baseline"] and win["median"] > 0}
    return {"winner": key_of(win), "median": win["median"], "interval": [win["lo"], win["hi"]], "ties": ties,
            "ratios": ratios, "method": win["method"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--json")
    ap.add_argument("--ratio-tolerance", type=float, default=0.03)
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    common = sorted(set(a) & set(b))
    if not common:
        print("reproduce: the two databases share no confirmed (problem, backend)", file=sys.stderr)
        return 2
    out, agree, counted, worst = [], 0, 0, 0.0
    print(f"| problem | backend | winner A | winner B | same or tied | ratio moves |")
    print(f"|---|---|---|---|---|---|")
    for k in common:
        x, y = answer(a[k]), answer(b[k])
        if not x or not y:
            continue
        counted += 1
        same = x["winner"] == y["winner"] or (y["winner"] in x["ties"] and x["winner"] in y["ties"])
        agree += same
        moves = {}
        for base in sorted(set(x["ratios"]) & set(y["ratios"])):
            moves[base] = abs(y["ratios"][base] / x["ratios"][base] - 1)
            worst = max(worst, moves[base])
        label = k[1] if len(k[1]) < 70 else k[1][:67] + "..."
        print(f"| {k[0]} {label} | {k[2]} | {x['winner']} {x['median']:.4f} ms | {y['winner']} {y['median']:.4f} ms "
              f"| {'yes' if same else 'NO'} | " +
              ", ".join(f"{n}: {x['ratios'][n]:.3f}x -> {y['ratios'][n]:.3f}x ({m * 100:.1f}%)" for n, m in moves.items())
              + " |")
        out.append({"family": k[0], "problem": k[1], "backend": k[2], "a": {**x, "ties": sorted(x["ties"])},
                    "b": {**y, "ties": sorted(y["ties"])}, "same_or_tied": same, "ratio_moves": moves})
    share = agree / counted if counted else 0
    ok = share >= 0.95 and worst <= args.ratio_tolerance
    print(f"\nwinners same or tied in both runs: {agree} of {counted} ({share * 100:.0f}%; bar 95%)")
    print(f"largest move of a ratio to a baseline: {worst * 100:.2f}% (bar {args.ratio_tolerance * 100:.0f}%)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": out, "agree": agree, "counted": counted, "worst_ratio_move": worst, "ok": ok}, f,
                      indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
