#!/usr/bin/env python3
"""Two-session against eight-session confirmation of the same pairs, runs alternating (rows-ab.csv.xz, from ab.sh's
stores): per setting and pair, how often the confirmed order reversed and how many pairs of runs name different
winners not tied in both (interval overlap or the 2% resolution; the session-spread rule not applied)."""
import csv, itertools, lzma, os, statistics
here = os.path.dirname(os.path.abspath(__file__))
rows = list(csv.DictReader(lzma.open(os.path.join(here, "rows-ab.csv.xz"), "rt")))
for sessions in ("2", "8"):
    mine = [r for r in rows if r["sessions"] == sessions]
    print(f"== confirmation in {sessions} sessions, {len({r['run'] for r in mine})} runs")
    for size, a, b in (("256", "rows-guided1", "tiles-tiles"), ("512", "rows-guided1", "rows-static16")):
        ratios, answers = [], []
        for run in sorted({r["run"] for r in mine}):
            c = {r["config"]: r for r in mine if r["run"] == run and r["size"] == size and r["stage"] == "confirm"}
            if a not in c or b not in c:
                continue
            x, y = c[a], c[b]
            ratio = float(y["median_ms"]) / float(x["median_ms"])
            overlap = float(y["ci_low_ms"]) <= float(x["ci_high_ms"]) and float(x["ci_low_ms"]) <= float(y["ci_high_ms"])
            ratios.append(ratio)
            answers.append((a if ratio >= 1 else b, overlap or max(ratio, 1 / ratio) <= 1.02))
        s = sorted(ratios)
        differ = sum(p[0] != q[0] and not (p[1] and q[1]) for p, q in itertools.combinations(answers, 2))
        print(f"  {size}: {b} / {a}: runs {len(s)}, reversed {sum(r < 1 for r in s)}, median {statistics.median(s):.3f}, "
              f"10th-90th percentile {s[len(s) // 10]:.3f}-{s[9 * len(s) // 10]:.3f}, range {s[0]:.3f}-{s[-1]:.3f}; "
              f"pairs of runs naming different winners not tied in both: {differ} of {len(s) * (len(s) - 1) // 2}")
