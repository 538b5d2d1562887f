#!/usr/bin/env python3
"""The H200's exhaustive milo run (bench/results/2026-11-30-h200x4-distributed: its search rows, exported as CSV by
scripts/export-evaluations.py) written as a T4 file, so that `pimg-tune import` puts it in a store beside the other
devices for `pimg-tune cover`. Each configuration's one value is its search median (the CSV keeps medians, not runs):
`measurements.time` and a one-element `runtimes`. Statuses: ok -> correct, compile_error -> compile, launch_error -> runtime.
Usage: csv-to-t4.py EVALUATIONS.csv.xz CONFIGS.csv.xz OUT.json"""
import csv, io, json, lzma, sys

def rows(path):
    return list(csv.DictReader(io.TextIOWrapper(lzma.open(path), encoding="utf-8")))

evals, configs, out = sys.argv[1:4]
conf = {r["config_id"]: json.loads(r["config"]) for r in rows(configs)}
inv = {"ok": "correct", "compile_error": "compile", "launch_error": "runtime"}
results = []
for r in rows(evals):
    if r["stage"] != "search":
        continue
    ok = r["status"] == "ok"
    t = float(r["median_ms"]) if ok else 0.0
    results.append({"configuration": conf[r["config_id"]], "invalidity": inv[r["status"]],
                    "correctness": 1 if ok else 0, "times": {"runtimes": [t] if ok else []},
                    "measurements": [{"name": "time", "value": t, "unit": "ms"}] if ok else [],
                    "objectives": ["time"]})
json.dump({"schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds"}, "results": results}, open(out, "w"))
print(f"{out}: {len(results)} configurations, {sum(r['invalidity'] == 'correct' for r in results)} correct")
