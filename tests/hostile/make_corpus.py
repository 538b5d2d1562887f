#!/usr/bin/env python3
"""Writes the hostile-input corpus: T1 files (tests/data/hostile/t1/), each tests/data/t1/sharpen.json with one
hostile change, and files to import (tests/data/hostile/import/); run it again after changing a case. The cases themselves are listed in
tests/data/hostile/cases.tsv and run by tests/hostile/run.py."""
import copy, gzip, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "data")
base = json.load(open(os.path.join(data, "t1", "sharpen.json")))
out = os.path.join(data, "hostile", "t1")
os.makedirs(out, exist_ok=True)
MIN = "(-9223372036854775807-1)"


def param(d, i=0):
    return d["ConfigurationSpace"]["TuningParameters"][i]


def values(v):
    return lambda d: param(d).update(Values=v)


def condition(e):
    return lambda d: d["ConfigurationSpace"]["Conditions"].__setitem__(
        0, {"Expression": e, "Parameters": ["block_size_x", "block_size_y", "ppx"]})


def arg(i, **kw):
    return lambda d: d["KernelSpecification"]["Arguments"][i].update(kw)


def kspec(**kw):
    return lambda d: d["KernelSpecification"].update(kw)


def many_params(n, count):
    def f(d):
        d["ConfigurationSpace"]["TuningParameters"] = [
            {"Name": f"p{i}", "Type": "int", "Values": f"list(range({count}))", "Default": 0} for i in range(n)
        ] + d["ConfigurationSpace"]["TuningParameters"]
    return f


def many_args(n):
    def f(d):
        d["KernelSpecification"]["Arguments"][:0] = [
            {"Name": f"big{i}", "Type": "double", "MemoryType": "Vector", "AccessType": "ReadOnly", "FillType": "Constant",
             "FillValue": 1, "Size": "2**32"} for i in range(n)]
    return f


cases = {
    # Values of a tuning parameter: Python's integers are unbounded, pimg-tune's are 64-bit and checked.
    "values-div-min": values(f"[{MIN} // -1]"),
    "values-mod-min": values(f"[{MIN} % -1, 8]"),
    "values-pow-one": values("[1 ** 9223372036854775807, 8]"),
    "values-pow-zero": values("[0 ** 4000000000000, 8]"),
    "values-pow-overflow": values("[2 ** 64]"),
    "values-abs-min": values(f"[abs({MIN})]"),
    "values-neg-min": values(f"[-{MIN}]"),
    "values-shift": values("[1 << 70]"),
    "values-div-zero": values("[8 // 0]"),
    "values-float-inf": values("[1e308 * 10]"),
    "values-range-1e12": values("list(range(10**12))"),
    "values-comprehension-1e12": values("[x for x in range(10**12)]"),
    "values-nested-comprehension": values("[x * y for x in range(100000) for y in range(100000)]"),
    "values-deep-parentheses": values("[" + "(" * 5000 + "8" + ")" * 5000 + "]"),
    "values-20k-terms": values("[" + " + ".join(["1"] * 20000) + "]"),
    "values-long-string": values("['" + "x" * 100000 + "']"),
    "values-unknown-function": values("[__import__('os').system('true')]"),
    "values-attribute": values("[(8).bit_length()]"),
    # Conditions.
    "condition-20k-terms": condition(" + ".join(["ppx"] * 20000) + " > 0"),
    "condition-pow-400": condition("block_size_x ** 400 > 0"),
    "condition-pow-equal": condition("block_size_x ** 400 == block_size_x ** 401"),
    "condition-div-zero": condition("block_size_x // (ppx - ppx) > 0"),
    "condition-deep": condition("(" * 5000 + "ppx" + ")" * 5000 + " > 0"),
    "condition-lambda": condition("(lambda: 1)() > 0"),
    # Spaces too large to list.
    "space-1e16": many_params(8, 100),
    "space-16m": many_params(4, 64),
    # Sizes.
    "size-2-32-uint8": arg(0, Size="2**32"),
    "size-2-33": arg(0, Size="2**33"),
    "size-min": arg(0, Size=MIN),
    "size-zero": arg(0, Size="0"),
    "size-float": arg(0, Size="1.5"),
    "size-text": arg(0, Size="'big'"),
    "size-overflow": arg(0, Size="ProblemSize[0] * 2**62"),
    "size-host-memory": many_args(24),
    "problem-size-2-31": kspec(ProblemSize=[2**31, 1]),
    "problem-size-2-32": kspec(ProblemSize=[2**32, 1]),
    "problem-size-negative": kspec(ProblemSize=[-256, 96]),
    "problem-size-4d": kspec(ProblemSize=[2, 2, 2, 2]),
    "local-size-overflow": kspec(LocalSize={"X": "block_size_x * 2**62", "Y": "block_size_y", "Z": "1"}),
    "global-size-zero": kspec(GlobalSize={"X": "0", "Y": "ProblemSize[1]", "Z": "1"}),
    "fill-value-nan": arg(0, FillValue=float("nan")),
    "fill-seed-negative": arg(0, RandomSeed=-1),
    "fill-raw-missing": arg(0, FillType="BinaryRaw", DataSource="/nonexistent/in.bin"),
    "fill-raw-dev-zero": arg(0, FillType="BinaryRaw", DataSource="/dev/zero"),
    "kernel-file-dev-zero": kspec(KernelFile="/dev/zero"),
    "kernel-file-directory": kspec(KernelFile="."),
}


def faulty_default(fault):
    """The default configuration (the reference run, there being no reference argument) is a fault of
    reference-faults.cl; the file's other configuration is healthy."""
    def f(d):
        d["ConfigurationSpace"]["TuningParameters"] = [
            {"Name": "fault", "Type": "int", "Values": f"[{fault}, 0]", "Default": fault},
            {"Name": "block_size_x", "Type": "int", "Values": "[16]", "Default": 16},
            {"Name": "block_size_y", "Type": "int", "Values": "[1]", "Default": 1},
            {"Name": "ppx", "Type": "int", "Values": "[1]", "Default": 1}]
        d["ConfigurationSpace"]["Conditions"] = []
        d["KernelSpecification"]["KernelFile"] = "reference-faults.cl"
        d["KernelSpecification"]["ProblemSize"] = [64, 8]
        for a in d["KernelSpecification"]["Arguments"]:
            if a["Name"] in ("width", "height"):
                a["FillValue"] = 64 if a["Name"] == "width" else 8
    return f


for name, fault in (("crash", 1), ("hang", 2), ("past-the-end", 3), ("unwritten", 4)):
    cases["reference-" + name] = faulty_default(fault)

for name, change in cases.items():
    d = copy.deepcopy(base)
    change(d)
    text = json.dumps(d, indent=1, allow_nan=True)
    open(os.path.join(out, name + ".json"), "w").write(text + "\n")
print(f"{len(cases)} T1 files in {os.path.relpath(out)}", file=sys.stderr)

# Files to import: T4 results and Kernel Tuner caches.
imp = os.path.join(data, "hostile", "import")
os.makedirs(imp, exist_ok=True)
os.chdir(imp)


def t4(results):
    return {"schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds"}, "results": results}


def ok(cfg, runs):
    return {"configuration": cfg, "invalidity": "correct", "times": {"runtimes": runs}, "measurements": []}


def gz(name, text):
    with gzip.GzipFile(name, "wb", 9, mtime=0) as g:
        g.write(text.encode())


json.dump(t4([ok({"block": 8}, [1.0, 1.1, 1.05]), ok({"block": 16}, [0.8, 0.82, 0.81]),
              {"configuration": {"block": 32}, "invalidity": "compile", "times": {}, "measurements": []}]),
          open("small_A100_T4.json", "w"))
json.dump(t4([ok({"block": 8}, [1.0]), {"configuration": {"block": 16}, "invalidity": "correct", "times": {},
              "measurements": [{"name": "time", "value": 0, "unit": "ms"}]}]), open("ok-zero-time_A100_T4.json", "w"))
json.dump(t4([ok({"block": 8}, [1.0]), ok({"block": 16}, [0.0, 0.0])]), open("ok-zero-runtimes_A100_T4.json", "w"))
json.dump(t4([ok({"block": 8}, [1.0]), ok({"block": 16}, [])]), open("ok-no-runtimes_A100_T4.json", "w"))
json.dump({"results": {"not": "a list"}}, open("results-object_A100_T4.json", "w"))
for name, size in (("cache-width-2-31.json", [2**31, 1]), ("cache-width-2-32.json", [2**32])):
    json.dump({"device_name": "A100", "kernel_name": "k", "problem_size": size, "tune_params_keys": ["block"],
               "cache": {"8": {"block": 8, "time": 1.0}}}, open(name, "w"))
json.dump({"device_name": "A100", "kernel_name": "k", "tune_params_keys": ["block"],
           "cache": {"8": {"block": 8, "time": 0}}}, open("cache-ok-zero-time.json", "w"))
gz("deep-nesting_A100_T4.json.gz", '{"results": ' + "[" * 200000 + "]" * 200000 + "}")
gz("long-number_A100_T4.json.gz", '{"results": [{"configuration": {"block": 1' + "0" * 100000 + '}}]}')
open("bad-escape_A100_T4.json", "w").write('{"results": [{"configuration": {"\\ud800": 1}}]}')
open("nan_A100_T4.json", "w").write(
    '{"results": [{"configuration": {"block": NaN}, "invalidity": "correct", "times": {"runtimes": [1]}}]}')
# 80 MiB of spaces inside a valid document: past the 64 MiB default limit on what a gzip file expands to.
with gzip.GzipFile("bomb-80MiB_A100_T4.json.gz", "wb", 9, mtime=0) as g:
    g.write(b'{"results": [')
    for _ in range(80):
        g.write(b" " * (1 << 20))
    g.write(b"]}")
raw = gzip.compress(json.dumps(t4([ok({"block": 8}, [1.0])])).encode(), mtime=0)
open("truncated_A100_T4.json.gz", "wb").write(raw[: len(raw) // 2])
bad = bytearray(raw)
bad[len(bad) // 2] ^= 0xFF
open("corrupt_A100_T4.json.gz", "wb").write(bytes(bad))
open("empty_A100_T4.json", "w").close()
# A line break in a value the refusal quotes: the message stays one line.
json.dump(t4([{"configuration": {"block\n8": 1}, "invalidity": "correct\nor not", "times": {}}]),
          open("line-break_A100_T4.json", "w"))
print(f"{len(os.listdir('.'))} files to import in {os.path.relpath(imp, os.path.join(here, '..', '..'))}", file=sys.stderr)
