#!/usr/bin/env python3
"""scripts/reproduce.py's rule for ratios by session (docs/measurement.md, "Ratios to a baseline by session"): a
ratio that moved beyond the tolerance between two runs agrees only where a run reported it unsteady (a range over
its confirmation's sessions) and the runs' ranges overlap, a run without a range counting as its ratio. The ranges
below are NPP's 5x5 filter at 1024x1024 on two H200s (bench/results/2026-12-01-h200-wide-conv).

Usage: reproduce_test.py SCRIPT (the path of reproduce.py). Exits 1 on the first case that answers wrong.
"""
import importlib.util
import sys


def answer(ratio, rng=None):
    return {"ratios": {"npp_filter": ratio}, "ranges": {"npp_filter": rng} if rng else {}}


def main():
    spec = importlib.util.spec_from_file_location("reproduce", sys.argv[1])
    reproduce = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reproduce)
    cases = [
        ("neither run unsteady", answer(0.727), answer(0.993), False),
        ("the other run's range holds this run's ratio", answer(0.727), answer(0.993, [0.7243, 1.0196]), True),
        ("either order", answer(0.993, [0.7243, 1.0196]), answer(0.727), True),
        ("both ranges, overlapping", answer(0.652, [0.6382, 0.6552]), answer(0.874, [0.6318, 0.9129]), True),
        ("a range that does not reach the other ratio", answer(1.798, [1.7794, 1.927]), answer(2.10), False),
        ("two ranges apart", answer(0.65, [0.64, 0.66]), answer(0.90, [0.88, 0.92]), False),
    ]
    for what, x, y, expected in cases:
        got = reproduce.by_session(x, y, "npp_filter")
        if got != expected:
            print(f"reproduce_test: {what}: by_session gave {got}, expected {expected}")
            return 1
    print(f"reproduce_test: {len(cases)} cases as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
