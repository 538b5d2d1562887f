#!/usr/bin/env python3
"""Do two tuning runs give the same answer? (issue 15's bar; docs/measurement.md)

Reads two pimg-tune databases (the same spaces tuned on two machines of one kind) and, per (problem,
backend) with tuned configurations decided by a confirmation stage, takes the tool's own answer (`pimg-tune best --json`: the
winner, its ties and its ratios to the baselines, as report/src/ranking.cpp decides them). It reports
whether the first run's winner is the second's or is tied with it in both runs, and how much every ratio
of the winner to a baseline moved between the runs. A ratio that moved by more than the tolerance is still an
answer both runs gave when one run reported it unsteady (`ratio_by_session`: the baseline or the winner moved
by more than the tool's resolution between that run's confirmation sessions) and the two runs' ranges overlap
(a run without a range counts as its ratio): such ratios are listed apart, with the range, and do not fail
the check; any other move beyond the tolerance does.

Usage: scripts/reproduce.py A.db|DIR B.db|DIR [--families F,G] [--json OUT] [--ratio-tolerance 0.03] [--tune build/tuner/app/pimg-tune]
(--families: compare only these families, e.g. when one database also holds another family's unfinished run)
Exit code 0 when at least 95% of (problem, backend) agree and every ratio moved by at most the tolerance or
within a range a run reported, 1 otherwise, 2 for bad input.
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys

def groups(family, decisions, out):
    for g in decisions:
        if g["winner"]["stage"] != "confirm" or g["winner"]["baseline"]:  # a tuning question only
            continue
        key = (family, f"{g['size']} c{g['channels']} " + json.dumps(g["problem"], sort_keys=True), g["backend"])
        out[key] = g


def load(path, tune, only=None):
    """(family, problem, backend) -> the tool's decision (`pimg-tune best --json`), confirmed groups only. `path`:
    a database, or a folder of the tool's saved answers (best-FAMILY.json, as scripts/gpu-bench.sh writes them and
    records keep them when the database is not committed)."""
    if os.path.isdir(path):
        out = {}
        for name in sorted(os.listdir(path)):
            if name.startswith("best-") and name.endswith(".json") and (only is None or name[5:-5] in only):
                with open(os.path.join(path, name)) as f:
                    groups(name[5:-5], json.load(f), out)
        if not out:
            sys.exit(f"reproduce: {path}: no best-FAMILY.json with a confirmed tuned group")
        return out
    if not os.path.isfile(path):
        sys.exit(f"reproduce: {path}: no such database")
    try:
        db = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
        families = [f for (f,) in db.execute("SELECT DISTINCT family FROM problems ORDER BY family")
                    if only is None or f in only]
    except sqlite3.DatabaseError as e:
        print(f"reproduce: {path}: not a pimg-tune database ({e})", file=sys.stderr)
        sys.exit(2)
    out = {}
    for family in families:
        run = subprocess.run([tune, "best", family, "--db", path, "--json", "--top", "1000000"], capture_output=True,
                             text=True)
        if run.returncode != 0:
            print(f"reproduce: {tune} best {family} --db {path}: {run.stderr.strip()}", file=sys.stderr)
            sys.exit(2)
        groups(family, json.loads(run.stdout), out)
    return out


def key_of(r):
    return r["variant"] + " " + json.dumps(r["config"], sort_keys=True)


def answer(g):
    w = g["winner"]
    return {"winner": key_of(w), "median": w["median_ms"], "interval": w["ci_ms"], "ties": {key_of(t) for t in g["ties"]},
            "ratios": {b["variant"]: b["ratio"] for b in g["baselines"] if b["ratio"] is not None},
            "ranges": {b["variant"]: b["ratio_by_session"] for b in g["baselines"]
                       if b.get("unsteady") and b.get("ratio_by_session")},
            "method": w["method"], "search": {key_of(r): r["median_ms"] for r in g["results"]}}


def by_session(x, y, base):
    """Whether the ratio to `base` is an unsteady one (a range in either run) on which the runs' answers overlap."""
    if base not in x["ranges"] and base not in y["ranges"]:
        return False
    lo1, hi1 = x["ranges"].get(base, [x["ratios"][base]] * 2)
    lo2, hi2 = y["ranges"].get(base, [y["ratios"][base]] * 2)
    return lo1 <= hi2 and lo2 <= hi1


def cross(x, y):
    """How much slower x's winner is than y's winner in y's run (search-stage medians; None if not measured)."""
    mine, theirs = y["search"].get(x["winner"]), y["search"].get(y["winner"])
    return mine / theirs - 1 if mine and theirs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--json")
    ap.add_argument("--families", help="comma-separated families to compare (default: every family of both)")
    ap.add_argument("--ratio-tolerance", type=float, default=0.03)
    ap.add_argument("--tune", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "tuner",
                                                   "app", "pimg-tune"), help="the pimg-tune executable")
    args = ap.parse_args()
    only = set(args.families.split(",")) if args.families else None
    a, b = load(args.a, args.tune, only), load(args.b, args.tune, only)
    common = sorted(set(a) & set(b))
    if not common:
        print("reproduce: the two databases share no confirmed (problem, backend)", file=sys.stderr)
        return 2
    out, agree, counted, worst, worst_cross = [], 0, 0, 0.0, 0.0
    within, ranged, outside, worst_outside = 0, [], 0, 0.0
    print(f"| problem | backend | winner A | winner B | same or tied | ratio moves |")
    print(f"|---|---|---|---|---|---|")
    for k in common:
        x, y = answer(a[k]), answer(b[k])
        if not x or not y:
            continue
        counted += 1
        same = x["winner"] == y["winner"] or (y["winner"] in x["ties"] and x["winner"] in y["ties"])
        agree += same
        slower = [c for c in (cross(x, y), cross(y, x)) if c is not None]
        worst_cross = max([worst_cross] + slower)
        moves, unsteady = {}, {}
        for base in sorted(set(x["ratios"]) & set(y["ratios"])):
            moves[base] = abs(y["ratios"][base] / x["ratios"][base] - 1)
            worst = max(worst, moves[base])
            if moves[base] <= args.ratio_tolerance:
                within += 1
            elif by_session(x, y, base):
                unsteady[base] = [x["ranges"].get(base), y["ranges"].get(base)]
                ranged.append(f"{k[0]} {k[1][:40]} {k[2]} {base}: {x['ratios'][base]:.3f}x "
                              f"{x['ranges'].get(base) or ''} -> {y['ratios'][base]:.3f}x {y['ranges'].get(base) or ''}")
            else:
                outside += 1
                worst_outside = max(worst_outside, moves[base])
        label = k[1] if len(k[1]) < 70 else k[1][:67] + "..."
        print(f"| {k[0]} {label} | {k[2]} | {x['winner']} {x['median']:.4f} ms | {y['winner']} {y['median']:.4f} ms "
              f"| {'yes' if same else 'NO'} | " +
              ", ".join(f"{n}: {x['ratios'][n]:.3f}x -> {y['ratios'][n]:.3f}x ({m * 100:.1f}%{', by session' if n in unsteady else ''})"
                        for n, m in moves.items())
              + " |")
        out.append({"family": k[0], "problem": k[1], "backend": k[2], "a": {**{k: v for k, v in x.items() if k != "search"}, "ties": sorted(x["ties"])},
                    "b": {**{k: v for k, v in y.items() if k != "search"}, "ties": sorted(y["ties"])}, "same_or_tied": same, "ratio_moves": moves,
                    "ratio_ranges": unsteady, "cross": slower})
    share = agree / counted if counted else 0
    ok = share >= 0.95 and outside == 0
    print(f"\nwinners same or tied in both runs: {agree} of {counted} ({share * 100:.0f}%; bar 95%)")
    print(f"largest move of a ratio to a baseline: {worst * 100:.2f}% (bar {args.ratio_tolerance * 100:.0f}%)")
    print(f"ratios within {args.ratio_tolerance * 100:.0f}%: {within}; moved further but within the range a run "
          f"reported by session (unsteady: the runs' ranges overlap): {len(ranged)}; moved further otherwise: {outside}"
          + (f" (the largest {worst_outside * 100:.2f}%)" if outside else ""))
    for line in ranged:
        print(f"  by session: {line}")
    print(f"one run's winner at most {worst_cross * 100:.2f}% slower than the other run's winner, both measured in "
          f"the other run (search stage)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": out, "agree": agree, "counted": counted, "worst_ratio_move": worst, "ratios_within": within,
                       "ratios_by_session": len(ranged), "ratios_outside": outside, "worst_outside_move": worst_outside,
                       "worst_cross": worst_cross, "ok": ok}, f,
                      indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
