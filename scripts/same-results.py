#!/usr/bin/env python3
"""Prints `yes` when two pimg-tune databases hold the same evaluations (device, problem, variant,
configuration, status, validation; times aside), else `no` and the first difference. Used by
scripts/gpu-bench.sh to check that a distributed run stored what a single-process run stored."""
import sqlite3
import sys

QUERY = """SELECT d.backend, d.name, p.canonical, v.name, c.canonical, e.status, e.validation
FROM evaluations e JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id
JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id"""


def rows(path):
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return sorted(db.execute(QUERY).fetchall())


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: same-results.py A.db B.db")
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    if a == b:
        print("yes")
        return
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    first = only_a[0] if only_a else only_b[0] if only_b else "duplicates differ"
    print(f"no ({len(a)} vs {len(b)} rows; first difference: {first})")


if __name__ == "__main__":
    main()
