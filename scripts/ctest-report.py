#!/usr/bin/env python3
"""Where ctest's time went: per label, the number of tests, their summed time and the failures; then the N slowest
tests. Reads the JUnit file that `ctest --output-junit FILE` wrote in each build directory and the labels that
`ctest --show-only=json-v1` lists there (docs/ci.md).

Usage: ctest-report.py [--slowest N] BUILD_DIR:JUNIT_FILE [BUILD_DIR:JUNIT_FILE ...]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


def plain(name):
    """A test's name without GoogleTest's `  # GetParam() = ...` note, which can print addresses that change from
    one build to the next."""
    return name.split("  # ", 1)[0]


def labels_of(build_dir):
    """Each test's labels, as ctest lists them for this build directory."""
    out = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"], capture_output=True, text=True)
    if out.returncode != 0:
        return {}
    labels = {}
    for test in json.loads(out.stdout).get("tests", []):
        found = []
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                found = list(prop.get("value", []))
        labels[plain(test["name"])] = found
    return labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--slowest", type=int, default=20)
    parser.add_argument("runs", nargs="+", help="BUILD_DIR:JUNIT_FILE")
    args = parser.parse_args()
    rows = []  # (seconds, status, name, build, labels)
    for run in args.runs:
        build, _, junit = run.partition(":")
        if not os.path.exists(junit):
            print(f"ctest-report: {junit}: no JUnit file (that ctest did not run)")
            continue
        labels = labels_of(build)
        for case in ET.parse(junit).getroot().iter("testcase"):
            name = plain(case.get("name", ""))
            rows.append((float(case.get("time", "0") or 0), case.get("status", ""), name, build,
                         labels.get(name, [])))
    if not rows:
        return 0
    per = collections.OrderedDict()
    for seconds, status, _, build, labels in rows:
        for label in labels or ["(none)"]:
            key = (build, label)
            count, total, failed = per.get(key, (0, 0.0, 0))
            per[key] = (count + 1, total + seconds, failed + (status == "fail"))
    print("\nctest by label (a test with two labels counts under both):")
    print(f"  {'build':<12} {'label':<10} {'tests':>6} {'seconds':>9} {'failed':>7}")
    for (build, label), (count, total, failed) in sorted(per.items()):
        print(f"  {os.path.basename(build):<12} {label:<10} {count:>6} {total:>9.1f} {failed:>7}")
    print(f"\nthe {min(args.slowest, len(rows))} slowest tests:")
    for seconds, status, name, build, labels in sorted(rows, reverse=True)[: args.slowest]:
        print(f"  {seconds:8.1f} s  {os.path.basename(build):<12} {','.join(labels):<12} {status:<7} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
