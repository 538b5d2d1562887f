#!/usr/bin/env python3
"""Shares of the ceiling of this record's confirmed winners (8192x8192), from committed files only: each winner's
confirmed median and interval (best-json.tar.xz), its problem's least bytes and written bytes (problems.csv) and its
own run's ceilings (bandwidth.csv), by the report's rule (report/src/metrics.cpp, BandwidthTable::gbs_for): the
copy ceiling nearest half the least bytes, or for a problem that writes at most 1/64 of what it reads, its reads at
the read ceiling nearest the bytes it reads plus its writes at a copy's cost beyond a read. Also the share of the
copy ceiling alone, as the tool gave it before the read ceiling. Usage: python3 shares.py"""
import csv, io, json, lzma, math, os, tarfile

here = os.path.dirname(os.path.abspath(__file__))
runs = {"hist": [(1, 1), (4, 1), (6, 1)], "maxpool": [(1, 2)], "rotate": [(2, 1)], "conv": [(2, 2)], "bgr2rgba": [(3, 1)],
        "flip": [(3, 2)], "histeq": [(3, 3)]}  # family -> (call, run) of each whole-space search
bw = list(csv.DictReader(open(os.path.join(here, "bandwidth.csv"))))
problems = {(int(r["call"]), json.loads(r["canonical"])["family"], r["canonical"]): r
            for r in csv.DictReader(open(os.path.join(here, "problems.csv")))}


def nearest(call, run, backend, kind, want):
    rows = [r for r in bw if int(r["call"]) == call and int(r["run"]) == run and r["backend"] == backend and r["kind"] == kind]
    return min(rows, key=lambda r: abs(math.log(float(r["bytes"]) / max(want, 1.0))), default=None)


with tarfile.open(os.path.join(here, "best-json.tar.xz")) as tar:
    answers = {m.name.lstrip("./"): json.load(tar.extractfile(m)) for m in tar.getmembers() if m.isfile()}
print("| call | family | problem | backend | winner | confirmed ms [interval] | GB/s | ceiling (kind, GB/s) | share [interval] | of the copy alone |")
print("|---|---|---|---|---|---|---|---|---|---|")
for family, where in runs.items():
    for call, run in where:
        for g in answers.get(f"call{call}-best-{family}.json", []):
            w = g["winner"]
            if w["stage"] != "confirm" or w["baseline"] or g["width"] != 8192:
                continue
            prob = next(r for (c, f, canon), r in problems.items() if c == call and f == family and
                        json.loads(canon).get("channels") == g["channels"] and
                        all(json.loads(canon).get(k) == v for k, v in g["problem"].items()))
            total = float(prob["min_bytes"])
            written = float(prob["min_written"]) if prob["min_written"] else None
            reads = total - written if written is not None else total / 2
            copy = nearest(call, run, g["backend"], "copy", total / 2)
            ceiling, kind = float(copy["gbs"]), "copy"
            if written is not None and written * 64 <= reads:
                read = nearest(call, run, g["backend"], "read", reads)
                if read:
                    per_read = 1 / float(read["gbs"])
                    per_write = max(2 / float(copy["gbs"]) - per_read, 0)
                    ceiling, kind = total / (reads * per_read + written * per_write), "read"
            gbs = lambda ms: total / (ms * 1e-3) / 1e9
            label = " ".join(f"{k}={v}" for k, v in sorted(g["problem"].items()) if k not in ("seed", "input"))
            lo, hi = w["ci_ms"]
            print(f"| {call} | {family} | c{g['channels']} {label} | "
                  f"{g['backend']} | {w['variant']} | {w['median_ms']:.5f} [{lo:.5f}, {hi:.5f}] | {gbs(w['median_ms']):.0f} | "
                  f"{kind} {ceiling:.0f} | {gbs(w['median_ms']) / ceiling * 100:.1f}% [{gbs(hi) / ceiling * 100:.1f}, "
                  f"{gbs(lo) / ceiling * 100:.1f}] | {gbs(w['median_ms']) / float(copy['gbs']) * 100:.1f}% |")
