#!/usr/bin/env python3
"""Every CPU space of spaces/seeds/ runs its seed's ladder on this machine's CPU devices (issue 21: the seeds'
experiments on the 2-core CPU in CI): `pimg-tune FAMILY --ladder-only --space FILE --size SMALLEST`, the
space's smallest problem (a space without a sizes list, seed 004's, on all of its problems), from the
repository root (the spaces' data paths are relative to it). Each run must exit 0 and store its ladder's
steps, every one valid. Seed 004's space is left out where ../shared/data/semblance is absent.

Usage: seed_spaces_test.py PIMG_TUNE SOURCE_DIR
"""
import glob
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time


def smallest_size(text):
    """The smallest WxH of the space's `sizes:` lists (a bare N is NxN); None where it has none."""
    sizes = []
    for line in text.splitlines():
        if re.match(r"\s*-?\s*sizes:", line):
            for w, h in re.findall(r"(\d+)(?:x(\d+))?", line.split("sizes:", 1)[1]):
                sizes.append((int(w), int(h or w)))
    return min(sizes, key=lambda s: s[0] * s[1]) if sizes else None


def main():
    exe, source = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.chdir(source)
    spaces = sorted(f for f in glob.glob("spaces/seeds/*.yaml") if not f.endswith("-gpu.yaml"))
    data = os.path.exists("../shared/data/semblance/simple-syntetic.cut44s.su")
    failures, ran = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PIMG_CACHE_DIR=os.path.join(tmp, "cache"))
        for space in spaces:
            name = os.path.basename(space)[:-5]
            if name.startswith("004-") and not data:
                print(f"{space}: ../shared/data/semblance absent, skipped")
                continue
            text = open(space).read()
            family = re.search(r"^family:\s*(\S+)", text, re.M).group(1)
            ladder = re.search(r"^ladder:\s*\n\s+name:\s*(\S+)", text, re.M).group(1)
            db = os.path.join(tmp, name + ".db")
            # Fixed repeats, one session: the test checks that every step is stored and valid, not timings.
            cmd = [exe, family, "--quiet", "--ladder-only", "--repeats", "3", "--space", space, "--db", db]
            size = smallest_size(text)
            if size:
                cmd += ["--size", f"{size[0]}x{size[1]}"]
            start = time.time()
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            took = time.time() - start
            if r.returncode != 0:
                failures.append(f"{space}: exit {r.returncode}\n{r.stdout}{r.stderr}")
                continue
            rows = sqlite3.connect(db).execute(
                "SELECT l.step, e.status FROM ladder_steps l JOIN evaluations e ON e.id = l.evaluation_id "
                "WHERE l.ladder = ?", (ladder,)).fetchall()
            bad = [f"{step}: {status}" for step, status in rows if status != "ok"]
            print(f"{space}: {family}, ladder {ladder}, {len(rows)} steps stored"
                  f"{' at ' + str(size[0]) + 'x' + str(size[1]) if size else ''} in {took:.0f} s")
            if not rows or bad:
                failures.append(f"{space}: {len(rows)} ladder steps stored, not valid: {bad}\n{r.stdout}")
            ran += 1
    if ran < 10 - (0 if data else 1):
        failures.append(f"only {ran} seed spaces ran")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
