#!/usr/bin/env python3
"""Do the tuned winners move more between machines than between the sessions of one run? For each (problem, backend)
the configuration that won on GPU-606dada1 (this record's confirm-rows.csv.xz), its confirmed median on every machine
that confirmed it too (GPU-6ddfb53d and GPU-ca661968: ../2026-12-02-h200-seven-families-two-machines/confirm-rows.csv.xz),
the largest spread between one run's session medians, and the spread between the machines' medians."""
import csv, json, lzma, os, statistics
here = os.path.dirname(os.path.abspath(__file__))
norm = lambda s: json.dumps({k: str(v) for k, v in json.loads(s).items()}, sort_keys=True)  # the seed quoted or not
rows = []
for path, machine in ((os.path.join(here, "../2026-12-02-h200-seven-families-two-machines/confirm-rows.csv.xz"), None),
                      (os.path.join(here, "confirm-rows.csv.xz"), "606dada1")):
    for r in csv.DictReader(lzma.open(path, "rt")):
        r["problem_json"] = norm(r["problem_json"])
        rows.append((machine or ("ca661968" if r["call"] == "3" else "6ddfb53d"), r))
best = {}
for m, r in rows:
    k = (r["family"], r["problem_json"], r["backend"], m)
    if r["baseline"] == "0" and (k not in best or float(r["median_us"]) < float(best[k]["median_us"])):
        best[k] = r
for backend in ("cuda", "opencl"):
    within, across = [], []
    print(f"== {backend}: problems whose winner's median differs by more than 2% between machines")
    for fam, prob in sorted({(k[0], k[1]) for k in best if k[2] == backend}):
        w = best.get((fam, prob, backend, "606dada1"))
        if not w:
            continue
        medians, spreads = {}, []
        for m, r in rows:
            if (r["family"], r["problem_json"], r["backend"], r["variant"], r["config"]) == (fam, prob, backend, w["variant"], w["config"]):
                medians[m] = float(r["median_us"])
                s = [float(x) for x in r["session_medians_us"].split()]
                if len(s) > 1:
                    spreads.append(max(s) / min(s) - 1)
        if len(medians) < 2 or not spreads:
            continue
        a = max(medians.values()) / min(medians.values()) - 1
        within.append(max(spreads))
        across.append(a)
        if a > 0.02:
            p = json.loads(prob)
            print(f"  {fam} {p['width']}x{p['height']} c{p['channels']} {w['variant']}: "
                  + ", ".join(f"{k} {v:.2f} us" for k, v in sorted(medians.items()))
                  + f"; largest session spread of a run {100 * max(spreads):.1f}%, between machines {100 * a:.1f}%")
    print(f"  {len(within)} (problem, backend): largest session spread of a run, median {100 * statistics.median(within):.1f}% "
          f"(most {100 * max(within):.1f}%); between machines, median {100 * statistics.median(across):.1f}% (most {100 * max(across):.1f}%)")
