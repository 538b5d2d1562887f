#!/usr/bin/env python3
"""Where each configuration's wall time went (docs/design.md, "Where the time goes"): per device, family and
run of a pimg-tune database, the number of search evaluations, the median wall time per configuration (the
runner's compile wait + session round trip + tuner work) and the medians of each `time.*` metric, so the next
bottleneck is visible. Usage: time-breakdown.py DB [--run ID] (default: every run)."""
import argparse
import sqlite3
import statistics
import sys

PARTS = ["compile_wait_ms", "session_ms", "tuner_ms", "prepare_ms", "compile_ms", "upload_ms", "poison_ms",
         "runs_ms", "check_ms", "download_ms", "host_compare_ms", "runs", "downloads"]

QUERY = """SELECT e.id, e.run_id, d.backend || ':' || d.name, json_extract(p.canonical, '$.family'), e.eval_ms,
       m.name, m.value
FROM evaluations e JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id
LEFT JOIN metrics m ON m.evaluation_id = e.id AND m.seq = -1 AND m.name LIKE 'time.%'
WHERE e.stage = 'search'"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--run", type=int)
    a = ap.parse_args()
    try:
        db = sqlite3.connect(f"file:{a.db}?mode=ro", uri=True)
        rows = db.execute(QUERY + (" AND e.run_id = ?" if a.run else ""), (a.run,) if a.run else ()).fetchall()
    except sqlite3.Error as e:
        print(f"{a.db}: {e}", file=sys.stderr)
        sys.exit(2)
    evals = {}
    for eid, run, device, family, eval_ms, name, value in rows:
        e = evals.setdefault(eid, {"key": (run, device, family), "eval_ms": eval_ms})
        if name:
            e[name[len("time."):]] = value
    groups = {}
    for e in evals.values():
        groups.setdefault(e["key"], []).append(e)
    if not groups:
        print("no search evaluation")
        return
    for (run, device, family), es in sorted(groups.items()):
        wall = [e.get("compile_wait_ms", 0) + e.get("session_ms", e["eval_ms"]) + e.get("tuner_ms", 0) for e in es]
        print(f"run {run} {device} {family}: {len(es)} configurations, median wall {statistics.median(wall):.1f} ms,"
              f" total {sum(wall) / 1000:.1f} s")
        cols = ["eval_ms"] + PARTS
        med = {c: statistics.median([e.get(c, 0) for e in es]) for c in cols}
        print("  medians: " + ", ".join(f"{c} {med[c]:.2f}" for c in cols))


if __name__ == "__main__":
    main()
