#!/usr/bin/env python3
"""The same hist-gpu configurations searched after the memset flush (2026-11-30) and after the read sweep (call 3):
rank correlation, how the search medians moved, where each run's best ranks in the other.
Usage (in this folder): xz -dk ../2026-11-30-h200-profiles/hist.db.xz && python3 compare-hist.py ../2026-11-30-h200-profiles/hist.db
The new side is this folder's export (evaluations.csv.xz and configs.csv.xz, label `repro`: call 3's store, whose
hist-gpu run resumed the repro space's 68 configurations); problems are 8192x8192 with 1 or 3 channels."""
import collections, csv, io, json, lzma, sqlite3, sys


def new_side():
    configs = {r["config_id"]: json.loads(r["config"]) for r in csv.DictReader(io.TextIOWrapper(lzma.open("configs.csv.xz"), "utf-8"))}
    out = {}
    for r in csv.DictReader(io.TextIOWrapper(lzma.open("evaluations.csv.xz"), "utf-8")):
        if r["run"] != "repro" or r["stage"] != "search" or r["status"] != "ok" or not r["problem"].startswith("8192x8192"):
            continue
        out[(r["backend"], r["problem"], r["variant"], json.dumps(configs[r["config_id"]], sort_keys=True))] = float(r["median_ms"])
    return out


def old_side(db):
    q = """select d.backend, p.width, p.height, p.channels, v.name, cf.canonical, e.median_ms
           from evaluations e join devices d on d.id=e.device_id join problems p on p.id=e.problem_id
           join variants v on v.id=e.variant_id join configs cf on cf.id=e.config_id
           where e.status='ok' and e.stage='search' and p.family='hist' and p.width=8192 and p.height=8192"""
    return {(b, f"{w}x{h} c{ch}", vn, json.dumps(json.loads(cc), sort_keys=True)): m
            for b, w, h, ch, vn, cc, m in sqlite3.connect(db).execute(q)}


def ranks(vals):
    r = [0] * len(vals)
    for pos, i in enumerate(sorted(range(len(vals)), key=lambda i: vals[i])):
        r[i] = pos
    return r


old, new = old_side(sys.argv[1]), new_side()
groups = collections.defaultdict(list)
for k in new:
    if k in old:
        groups[k[:2]].append(k)
print(f"old {len(old)}, new {len(new)}, in both {sum(len(v) for v in groups.values())}")
for g, ks in sorted(groups.items()):
    o, n = [old[k] for k in ks], [new[k] for k in ks]
    ro, rn, m = ranks(o), ranks(n), len(ks)
    rho = 1 - 6 * sum((a - b) ** 2 for a, b in zip(ro, rn)) / (m * (m * m - 1)) if m > 2 else float("nan")
    bo, bn = min(range(m), key=lambda i: o[i]), min(range(m), key=lambda i: n[i])
    ratio = sorted(x / y for x, y in zip(n, o))
    line = (f"{g[0]:6s} {g[1]} n={m:4d} spearman={rho:.3f} new/old median {ratio[m // 2]:.3f} [{ratio[0]:.3f},{ratio[-1]:.3f}]"
            f" new-best old-rank {ro[bn]} old-best new-rank {rn[bo]}; old best/new best in new {n[bo] / n[bn]:.4f}")
    if g[0] == "cuda":
        d = sorted((old[k] - new[k]) * 1000 for k in ks)
        fast = sorted((old[k] - new[k]) * 1000 for k in sorted(ks, key=lambda k: old[k])[:50])
        line += (f"\n       old-new us: median {d[m // 2]:.2f} [p10 {d[m // 10]:.2f}, p90 {d[9 * m // 10]:.2f}];"
                 f" the 50 fastest (old): median {fast[len(fast) // 2]:.2f}")
    print(line)
