#!/usr/bin/env python3
"""scripts/t1-vs-t4.py with other tools' results imported by `pimg-tune import`: two T4 files of one toy
kernel (GPU1, and GPU2 timing it in reverse order), imported into a store each; GPU1's store stands for the
tuned one. GPU1 beside itself ranks its best first with Spearman 1; beside GPU2 its best ranks last with -1; a
failed configuration counts in neither; the T4 file read directly gives the same as its import.

Usage: t1_vs_t4_test.py SOURCE_DIR PIMG_TUNE
"""
import json, os, subprocess, sys, tempfile

source, exe = sys.argv[1], sys.argv[2]
script = os.path.join(source, "scripts", "t1-vs-t4.py")
tmp = tempfile.mkdtemp(prefix="t1-vs-t4-")


def t4(name, time_of):
    results = [{"configuration": {"a": a, "b": b}, "invalidity": "compile" if (a, b) == (3, 3) else "correct",
                "times": {"compilation": 10, "framework": 1, "runtimes": [time_of(a, b)]},
                "measurements": [{"name": "time", "value": time_of(a, b), "unit": "ms"}]}
               for a in (1, 2, 3) for b in (1, 2, 3)]
    path = os.path.join(tmp, f"toy_{name}_T4.json")
    with open(path, "w") as f:
        json.dump({"results": results}, f)
    db = os.path.join(tmp, f"{name}.db")
    subprocess.run([exe, "import", path, "--db", db], check=True, capture_output=True)
    return path, db


def compare(*others):
    out = subprocess.run([sys.executable, script, gpu1_db, "t4:toy"] + list(others), check=True,
                         capture_output=True, text=True).stdout
    return [line.split(" | ") for line in out.splitlines() if line.startswith("| ") and "---" not in line][1:]


gpu1_t4, gpu1_db = t4("GPU1", lambda a, b: 1.0 + a + 3 * b)
gpu2_t4, gpu2_db = t4("GPU2", lambda a, b: 20.0 - a - 3 * b)
rows = compare(gpu1_db, gpu2_db, gpu1_t4)
ours, same, reverse, direct = rows
assert ours[1] == "8" and ours[2] == "5.0000", ours            # 8 valid, best a=1 b=1
assert "imported" in same[0] and same[4] == "1" and same[5] == "8" and same[6].startswith("1.000"), same
assert reverse[4] == "8" and reverse[6].startswith("-1.000"), reverse
assert "imported" not in direct[0] and direct[1:] == same[1:], (direct, same)
print("ok")
