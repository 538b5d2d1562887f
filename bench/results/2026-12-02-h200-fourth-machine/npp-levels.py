#!/usr/bin/env python3
"""Summarises npp-levels-p{1,2}.txt (bench/npp_levels_bench.cu, two processes with the same seed): per placement the
median of each pass in each process, and how many placements and fresh allocations ran at the faster level."""
import os
here = os.path.dirname(os.path.abspath(__file__))
def read(name):
    rows = {}
    for line in open(os.path.join(here, name)):
        if line.startswith(("placement", "fresh")):
            kind, p, i = line.split()[:3]
            d = dict(kv.split("=") for kv in line.split()[3:])
            rows[(kind, int(p), int(i))] = d
    return rows
p1, p2 = read("npp-levels-p1.txt"), read("npp-levels-p2.txt")
us = lambda d: float(d["median_ms"]) * 1000
all_us = [us(d) for r in (p1, p2) for d in r.values()]
cut = (min(all_us) + max(all_us)) / 2  # between the two levels
print(f"levels: {min(all_us):.2f}-{max(u for u in all_us if u < cut):.2f} us and {min(u for u in all_us if u >= cut):.2f}-{max(all_us):.2f} us")
print("placement  in_off_MiB  out_off_MiB | process 1: pass 1, pass 2 | process 2: pass 1, pass 2 (us)")
same_level = 0
for i in sorted({k[2] for k in p1 if k[0] == "placement"}):
    a, b, c, d = (r[("placement", p, i)] for r in (p1, p2) for p in (1, 2))
    same_level += (us(a) < cut) == (us(b) < cut)
    print(f"{i:9d}  {int(a['in_off']) / 2**20:10.3f}  {int(a['out_off']) / 2**20:11.3f} | {us(a):6.2f} {us(b):6.2f} | {us(c):6.2f} {us(d):6.2f}")
n = len([k for k in p1 if k[0] == "placement" and k[1] == 1])
for name, r in (("process 1", p1), ("process 2", p2)):
    fast = sum(us(d) < cut for k, d in r.items() if k[0] == "placement" and k[1] == 1)
    fresh = [d for k, d in r.items() if k[0] == "fresh"]
    print(f"{name}: {fast} of {n} placements fast; fresh allocations (all 2 MiB-aligned) fast {sum(us(d) < cut for d in fresh)} of {len(fresh)}")
print(f"placements whose two passes in one process ran at the same level: {same_level} of {n}")
print(f"placements at the same level in both processes (same offsets in the pool): "
      f"{sum((us(p1[('placement', 1, i)]) < cut) == (us(p2[('placement', 1, i)]) < cut) for i in range(n))} of {n}")
