#!/usr/bin/env python3
"""The confirmed order of two configuration pairs over consecutive runs (rows.csv.xz, from runs.sh's stores):
per run the slower-in-the-main-job's median over the other's, and each session's ratio; then how often it reversed."""
import csv, itertools, lzma, os, statistics
rows = list(csv.DictReader(lzma.open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "rows.csv.xz"), "rt")))
for size, a, b in (("256", "rows-guided1", "tiles-tiles"), ("512", "rows-guided1", "rows-static16")):
    print(f"== {size}: {b} / {a}, confirmed (interleaved rounds, two sessions)")
    ratios, answers = [], []  # answers: (winner, tied) per run, tied by interval overlap or the 2% resolution
    for run in sorted({r["run"] for r in rows}):
        c = {r["config"]: r for r in rows if r["run"] == run and r["size"] == size and r["stage"] == "confirm"}
        if a not in c or b not in c:
            print(run, "not both confirmed")
            continue
        x, y = c[a], c[b]
        ratio = float(y["median_ms"]) / float(x["median_ms"])
        sessions = [float(q) / float(p) for p, q in zip(x["session_medians_ms"].split(), y["session_medians_ms"].split())]
        overlap = float(y["ci_low_ms"]) <= float(x["ci_high_ms"]) and float(x["ci_low_ms"]) <= float(y["ci_high_ms"])
        ratios.append(ratio)
        answers.append((a if ratio >= 1 else b, overlap or max(ratio, 1 / ratio) <= 1.02))
        print(f"{run} {x['time']} {a} {float(x['median_ms']):.5f} {b} {float(y['median_ms']):.5f} ratio {ratio:.3f} "
              f"by session {' '.join(f'{s:.3f}' for s in sessions)}{' intervals overlap' if overlap else ''}")
    s = sorted(ratios)
    print(f"runs {len(s)}, reversed (ratio < 1) {sum(r < 1 for r in s)}, within 2% either way {sum(abs(r - 1) <= 0.02 for r in s)}, "
          f"median {statistics.median(s):.3f}, 10th-90th percentile {s[len(s) // 10]:.3f}-{s[9 * len(s) // 10]:.3f}, "
          f"range {s[0]:.3f}-{s[-1]:.3f}")
    differ = sum(p[0] != q[0] and not (p[1] and q[1]) for p, q in itertools.combinations(answers, 2))
    print(f"pairs of runs whose winners differ and are not tied in both: {differ} of {len(answers) * (len(answers) - 1) // 2} "
          "(by interval overlap and the 2% resolution; the session-spread rule not applied)")
    for cfg in (a, b):
        m = [float(r["median_ms"]) for r in rows if r["size"] == size and r["config"] == cfg and r["stage"] == "confirm"]
        print(f"  {cfg}: confirmed medians {min(m):.4f}-{max(m):.4f} ms over the runs ({max(m) / min(m) - 1:.0%})")
