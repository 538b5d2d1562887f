#!/usr/bin/env python3
"""Compact CSVs of the evaluations of several runs of one space (bench/results, issue 33): OUTDIR/configs.csv, one
id per variant and configuration over all the stores, and OUTDIR/evaluations.csv, one row per evaluation: the run's
label, stage, backend, problem (filter and size), variant, config id, status, flags, median and its 95% interval (5
significant digits), the evaluation's wall ms and its timed runs. xz them to commit them.

Usage: export-evaluations.py OUTDIR LABEL=STORE [LABEL=STORE ...]
"""
import csv
import json
import os
import sqlite3
import sys

QUERY = """
SELECT e.stage, d.backend, p.canonical, p.width, p.height, p.channels, v.name, c.canonical, e.status, e.flags,
       e.median_ms, e.ci_low_ms, e.ci_high_ms, round(e.eval_ms, 1),
       (SELECT count(*) FROM samples s WHERE s.evaluation_id = e.id)
FROM evaluations e JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id
JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id ORDER BY e.id
"""


def problem_label(canonical, width, height, channels):
    """'sharpen3 256x256 c1': the filter (or the family's first attribute) and the size."""
    try:
        name = str(json.loads(canonical).get("filter", ""))
    except ValueError:
        name = ""
    return f"{name + ' ' if name else ''}{width}x{height} c{channels}"


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__.strip().splitlines()[-1])
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    configs, rows = {}, []
    for spec in sys.argv[2:]:
        label, db = spec.split("=", 1)
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        for r in con.execute(QUERY):
            cid = configs.setdefault((r[6], r[7]), len(configs) + 1)
            rows.append([label, r[0], r[1], problem_label(*r[2:6]), r[6], cid, r[8], r[9]] +
                        [f"{x:.5g}" for x in r[10:13]] + list(r[13:]))
        con.close()
    with open(os.path.join(out_dir, "configs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["config_id", "variant", "config"])
        w.writerows([cid, v, cfg] for (v, cfg), cid in configs.items())
    with open(os.path.join(out_dir, "evaluations.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "stage", "backend", "problem", "variant", "config_id", "status", "flags", "median_ms",
                    "ci_low_ms", "ci_high_ms", "eval_ms", "runs"])
        w.writerows(rows)
    print(f"{len(rows)} evaluations, {len(configs)} configurations")


if __name__ == "__main__":
    main()
