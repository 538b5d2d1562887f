#!/usr/bin/env python3
"""The seed report (issue 21): each seed's published numbers beside ours, and its claims judged.

Reads the databases the seed spaces (spaces/seeds/*.yaml) were tuned into and writes one markdown page:
per seed, the seed's own table beside the steps of its ladder as pimg-tune measured them (the latest
'ladder' evaluation of each step, device and problem: median and 95% interval, the confirmation stage's
method), then a table of the seed's claims, each confirmed, refuted, mixed (it holds on some problems and
not on others) or not testable, with the measurements behind the verdict. Reads the stores only.

A claim compares two ladder steps of one device and problem: 'faster' holds where the first step's 95%
interval lies wholly below the second's, and is refuted where the intervals lie apart the other way or the
medians are within 5%; a claim of size ("much", "drastically": {"by": X}) holds only where even the least
ratio the two intervals allow is X or more, and is refuted where even the largest is under X; 'same' holds
where the medians are within 10%, and is refuted where the intervals lie apart; 'not_faster' ("does not
help") holds where the first step is slower or the medians are within 5%, and is refuted where its interval
lies wholly below the second's and the medians are more than 5% apart. Anything else is inconclusive (the
intervals overlap): on a noisy machine a claim can be left 'not testable (intervals overlap)'. Over several
problems: confirmed, refuted, or mixed. A step of a claim may be named by a tuple of names (the CPU and GPU
spaces name the same step after their frameworks). Steps on different devices (OpenMP against PoCL) are
compared per machine: the stores in one folder are one machine's.

Where a seed timed whole programs ("whole_program": True), its section also lists the stores' whole-program
runs (the `cold` stage: the top configurations of each device, each run once in a fresh process with the
compile caches off; `cold.total_ms`), the best of each device and problem, in the seed's definition of time.
A 'whole_program' claim compares two backends' best whole programs within one machine, without their build
(the seeds' programs were compiled ahead of time; ours build their kernel from source): one run each has no
interval, so it holds where the ratio is at least 1.5 (whole programs of one configuration moved by tens of
percent between processes on the GPU machine, bench/results/2026-11-25-h100-energy-nvrtc), is refuted where
it is 1/1.5 or less, and is inconclusive between.

Usage: scripts/seed-report.py --out REPORT.md [--note TEXT] DB [DB ...]
Exit code 0; 2 for bad input (a file that is not a pimg-tune database of schema 8 or later).
"""
import argparse
import copy
import json
import os
import sqlite3
import sys

# The seeds: what each published (its numbers, in ms, keyed like our problems) and what it claimed.
# A claim: (text, kind, step A, step B[, where]): kind 'faster' (A faster than B), 'same' or 'not_faster' (A
# no faster than B), on every problem and device, or where says: a list of problem keys, or {"only": keys,
# "device": a substring the device must name, "not_device": one it must not, "by": the least ratio of a
# claim of size}; a step is a name or a tuple of names; or (text, None, why) for a claim no space can test yet;
# or (text, 'whole_program', backend A, backend B): A's best whole program faster than B's (module docstring);
# or (text, 'measured', verdict, evidence) for a claim judged by another committed measurement;
# or (text, 'per_image', step): the step's time per image in the largest batch 'same' as with one image.
SEEDS = [
    {
        "seed": "000", "ladder": "seed000-sharpen", "title": "3x3 sharpening, OpenCL (000_ce86115d9a46b2d1.txt)",
        "whole_program": True,
        "timing": "The seed timed its OpenCL program around set-up, compilation, transfers and the kernel (about "
                  "250 ms at every width); its CPU column is a plain loop. Ours are kernel times; the seed's "
                  "OpenCL columns are therefore not comparable in level, only its CPU column is.",
        "key": "width",
        "published": {
            "CPU (seed)": {256: 2, 512: 11, 1024: 44, 2048: 177, 4096: 704},
            "constant filter (seed, whole program)": {256: 249, 512: 254, 1024: 273, 2048: 326, 4096: 578},
            "unrolled (seed, whole program)": {256: 260, 512: 248, 1024: 268, 2048: 321, 4096: 588},
            "naive 1 px/item (seed, whole program)": {256: 252, 512: 253, 1024: 270, 2048: 341, 4096: 579},
            "local memory (seed, whole program)": {256: 263, 512: 266, 1024: 271, 2048: 323, 4096: 572},
        },
        "claims": [
            ("the filter in __constant memory is better than a private copy per work item", "faster",
             "optimisation 1: constant filter", "item_size 8, private filter"),
            ("unrolling the filter loop helps (GPUs dislike loops)", "faster",
             "optimisation 2: filter loop unrolled", "optimisation 1: constant filter"),
            ("a __local tile gains nothing over one pixel per item (its table: 572 vs 579 ms)", "same",
             "optimisation 3b: __local tile", "optimisation 3a: one pixel per item (naive)"),
            ("at 4096 OpenCL is faster than the CPU", "faster", "optimisation 3b: __local tile", "CPU (serial)", [4096]),
            ("below 4096 the CPU is faster than OpenCL", "faster", "CPU (serial)", "optimisation 3b: __local tile",
             [256, 512, 1024, 2048]),
        ],
    },
    {
        "seed": "000", "ladder": "seed000-histeq", "title": "histogram equalisation, OpenCL (000_ce86115d9a46b2d1.txt)",
        "whole_program": True,
        "timing": "The seed's OpenCL column includes set-up and compilation (about 240 ms); ours are kernel times.",
        "key": "width",
        "published": {
            "CPU (seed)": {512: 1, 1024: 7, 2048: 28, 4096: 110, 8192: 432},
            "OpenCL (seed, whole program)": {512: 241, 1024: 248, 2048: 272, 4096: 298, 8192: 458},
        },
        "claims": [
            ("OpenCL is slower than the CPU at every width up to 8192", "faster", "CPU (serial)",
             "OpenCL local histograms, CDF on the host, per-pixel map"),
        ],
    },
    {
        "seed": "001", "ladder": "seed001", "title": "BGR to RGBA, CUDA (001_e13b6be4fe9b9b13.txt)",
        "whole_program": True,
        "timing": "The seed timed whole programs with multitime (100 runs): 0.226 s (1-D, block 128), 0.23 s "
                  "(2-D 16x16), 0.246 s (register temporary), 0.227 s (2 pixels, block 512), 0.232 s (shared "
                  "memory, block 64), 0.053 s OpenMP. It does not give its image size. Ours are kernel times.",
        "key": "width",
        "published": {},
        "claims": [
            ("staging in shared memory changes little (0.006 s)", "same",
             ("staged in local memory (64)", "staged in shared memory (64)"), "one loop: 1-D grid of 128"),
            ("a register temporary per pixel does not help (0.246 vs 0.226 s)", "not_faster",
             "register temporary", "one loop: 1-D grid of 128"),
            ("OpenMP is faster than the GPU version (whole programs: 0.053 against 0.226-0.246 s)", "whole_program",
             "openmp", "cuda"),
        ],
    },
    {
        "seed": "002", "ladder": "seed002-flip", "title": "in-place flip, OpenCL (002_2a094b994155b176.txt)",
        "timing": "The seed published no times for its flip, only its output picture (ours are in the CPU run's "
                  "002-flip/ report); its images were planar, and so are ours.",
        "key": "width",
        "published": {},
        "claims": [
            ("(not a seed claim) swapping 16-byte vectors beats the seed's byte swaps", "faster",
             "in place, 16-byte vectors", "2.1 in place, byte swaps"),
        ],
    },
    {
        "seed": "002", "ladder": "seed002-rotate", "title": "rotation, OpenCL (002_2a094b994155b176.txt)",
        "timing": "The seed published no times for its rotation, only its output picture; it scatters each input "
                  "pixel to its rounded rotated place (which leaves holes), pimg-tune's variants gather.",
        "key": "width",
        "published": {},
        "claims": [
            ("(not a seed claim) gathering one output pixel per work item is faster than the seed's scatter",
             "faster", "2.2 one pixel per work item (128-wide groups)", "2.2 the seed's scatter (128-wide groups)"),
        ],
    },
    {
        "seed": "002", "ladder": "seed002-hist", "title": "per-channel histograms, OpenCL (002_2a094b994155b176.txt)",
        "timing": "The seed published figures, not numbers (kernel times from profiling events, 2 warm-ups then "
                  "the mean of 5 runs); its images were planar, and so are ours.",
        "key": "width",
        "published": {},
        "claims": [
            ("input partition is much faster than the basic kernel (judged as at least 1.5x)", "faster", "2.5 input partition (16 x 512)",
             "2.3 basic (global atomics)", {"by": 1.5}),
            ("input partition is much faster than the packed kernel (judged as at least 1.5x)", "faster", "2.5 input partition (16 x 512)",
             "2.4 packed 32-bit reads", {"by": 1.5}),
            ("input partition is much faster than output partition (judged as at least 1.5x)", "faster", "2.5 input partition (16 x 512)",
             "2.6 output partition (512 per group)", {"by": 1.5}),
            ("output partition is slightly faster than the packed kernel", "faster",
             "2.6 output partition (512 per group)", "2.4 packed 32-bit reads"),
            ("packed 32-bit reads do not improve on the basic kernel", "same", "2.4 packed 32-bit reads",
             "2.3 basic (global atomics)"),
        ],
    },
    {
        "seed": "003", "ladder": "seed003-conv", "title": "5x5 Gaussian, CUDA/OpenMP/pthreads/MPI (003_eaced8823c66ae02.txt)",
        "timing": "The seed published no times.",
        "key": "width",
        "published": {},
        "claims": [
            ("the lookup table is significantly faster than multiplying (kernels; judged as at least 1.1x)", "faster",
             "kernel 3: unrolled lookup table", "kernel 2: unrolled, literal weights", {"by": 1.1}),
            ("the lookup table is significantly faster than multiplying (OpenMP; judged as at least 1.1x)", "faster",
             "OpenMP 2 threads, lookup table", "OpenMP 2 threads, unrolled literal weights", {"by": 1.1}),
            ("unrolling with literal weights beats the double loop", "faster", "kernel 2: unrolled, literal weights",
             "kernel 1: double loop"),
            ("a persistent thread pool saves the cost of creating threads in every run (not a seed claim: its "
             "pthreads version creates them per run)", "faster", "pthreads: a persistent pool of 2",
             "pthreads: 2 threads created per run"),
            ("pinned host memory (cudaMallocHost) speeds up the copies", "measured", "confirmed",
             "not by a ladder (its steps time kernels: kernel 2 with pinned memory equals kernel 2), by the transfer "
             "observers on an H100 (bench/results/2026-11-25-h100-observe, conv at 1024^2-8192^2): pinned uploads "
             "14.5-50.8 GB/s and downloads 25.1-53.2 GB/s against pageable 7.0-8.7 and 5.0-13.0 GB/s; at 8192^2 "
             "end to end 2.68 ms pinned against 13.61 ms pageable"),
            ("a batch of 20 images in one launch", None,
             "judged in the seed003-batch ladder (spaces/seeds/003-conv-batch.yaml and its -gpu twin)"),
        ],
    },
    {
        "seed": "003", "ladder": "seed003-batch",
        "title": "a batch of images in one launch (003_eaced8823c66ae02.txt); rows keyed by the images per launch",
        "timing": "The seed published no times; it launched 20 images of 4096x2304 at once, grid z = image and "
                  "block z = channel. A batch's cells give its time and, in brackets after it, the time per "
                  "image (time / batch).",
        "key": "batch",
        "published": {},
        "claims": [
            ("(not a seed claim) a batch in one launch costs the same per image as one image per launch", "per_image",
             "kernel 2: block z = channel (the seed's launch)"),
            ("(the seed's launch, not a stated claim) block z = channel is faster than every channel in one thread",
             "faster", "kernel 2: block z = channel (the seed's launch)", "kernel 2: every channel in one thread"),
            ("unrolling with literal weights beats the double loop (in a batch too)", "faster",
             "kernel 2: block z = channel (the seed's launch)", "kernel 1: double loop, block z = channel"),
        ],
    },
    {
        "seed": "003", "ladder": "seed003-maxpool", "title": "2x2 max pooling (003_eaced8823c66ae02.txt)",
        "timing": "The seed published no times.",
        "key": "width",
        "published": {},
        "claims": [
            ("the tree reduction pays off more on larger windows", None,
             "judged window by window in the seed003-maxpool-windows ladder (spaces/seeds/003-maxpool-windows.yaml)"),
            ("at 2x2 the tree form is at least as fast as the chain (OpenMP)", "same", "OpenMP tree", "OpenMP chain"),
        ],
    },
    {
        "seed": "003", "ladder": "seed003-maxpool-windows",
        "title": "max pooling over larger windows (003_eaced8823c66ae02.txt); rows keyed by the window side",
        "timing": "The seed published no times; it says the tree reduction pays off more on larger windows.",
        "key": "window",
        "published": {},
        "claims": [
            ("the tree reduction in local memory is faster than the direct kernel on 3x3 and 4x4 windows (OpenCL)",
             "faster", "OpenCL tree in local memory", "OpenCL direct", [3, 4]),
            ("the tree reduction in shared memory is faster than the direct kernel on 3x3 and 4x4 windows (CUDA)",
             "faster", "CUDA tree in shared memory", "CUDA direct", [3, 4]),
            ("the tree form is faster than the chain on 3x3 and 4x4 windows (OpenMP)", "faster", "OpenMP tree",
             "OpenMP chain", [3, 4]),
        ],
    },
    {
        "seed": "004", "ladder": "seed004", "title": "semblance search, OpenMP/OpenCL (004_4191c15143a6d98f.txt)",
        "timing": "The seed timed whole programs with perf stat (20 runs) on 20^5 grid points, an i5-4590 (4 "
                  "cores) and an Intel HD 4600 GPU; ours time the search alone (the data read and the set-up are "
                  "outside). The CPU space searches 8^5 points: compare steps' ratios with the seed's, not "
                  "levels; the -gpu twin searches the seed's 20^5.",
        "key": "params",
        "published": {
            "serial -O3 (seed)": {"param1, grid 20": 7660, "param2, grid 20": 31590, "param3, grid 20": 31620},
            "OpenMP, 4 cores (seed)": {"param1, grid 20": 2910, "param2, grid 20": 8430, "param3, grid 20": 8440},
            "OpenCL CPU 1-D (seed)": {"param1, grid 20": 3350, "param2, grid 20": 9078, "param3, grid 20": 10500},
            "3-D GPU (seed)": {"param1, grid 20": 1020, "param2, grid 20": 2820, "param3, grid 20": 2750},
            "inlined CPU (seed)": {"param1, grid 20": 1480, "param2, grid 20": 5430, "param3, grid 20": 5480},
            "inlined GPU (seed)": {"param1, grid 20": 750, "param2, grid 20": 1450, "param3, grid 20": 1510},
            "simplified CPU (seed)": {"param1, grid 20": 1075, "param2, grid 20": 3440, "param3, grid 20": 3450},
            "register rewrite GPU (seed)": {"param1, grid 20": 380, "param2, grid 20": 500, "param3, grid 20": 490},
        },
        "claims": [
            ("-O3 gives the best serial time (faster than -O0)", "faster", "serial -O3 (the seed's port on 1 thread)",
             "serial -O0 (the seed's port on 1 thread)"),
            ("-O3 gives the best serial time (faster than -O2)", "faster", "serial -O3 (the seed's port on 1 thread)",
             "serial -O2 (the seed's port on 1 thread)"),
            ("OpenMP over A speeds the serial search up (3.37x on 4 cores)", "faster",
             "OpenMP schedule(dynamic) over A", "serial -O3 (the seed's port on 1 thread)"),
            ("OpenCL on the CPU is a little slower than OpenMP", "faster", "OpenMP schedule(dynamic) over A",
             "OpenCL CPU, 1-D over A (the seed's mapping)"),
            ("three parallel loops (3-D) beat one (1-D) on the CPU", "faster",
             "3-D NDRange over A, B, C (2,2,2) (the seed's mapping)", "OpenCL CPU, 1-D over A (the seed's mapping)"),
            ("inlining the helpers speeds up the kernel (CPU 3.35 -> 1.48 s)", "faster", "inlined helpers",
             "3-D NDRange over A, B, C (2,2,2) (the seed's mapping)"),
            ("inlining the helpers speeds up the kernel (GPU 1.02 -> 0.75 s)", "faster", "inlined helpers",
             "3-D NDRange over A, B, C on the GPU (4,4,4) (the seed's mapping)"),
            ("the simplified interpolation speeds it up further (CPU 1.48 -> 1.075 s)", "faster",
             "simplified interpolation, geometry from the host", "inlined helpers", {"not_device": "NVIDIA"}),
            ("the simplified interpolation also speeds up the GPU (less than the CPU, it says)", "faster",
             "simplified interpolation, geometry from the host", "inlined helpers", {"device": "NVIDIA"}),
            ("__constant memory changes nothing on the CPU", "same", "__constant memory",
             "simplified interpolation, geometry from the host", {"not_device": "NVIDIA"}),
            ("__constant memory speeds up the GPU", "faster", "__constant memory",
             "simplified interpolation, geometry from the host", {"device": "NVIDIA"}),
            ("the register-pressure rewrite changes nothing on the CPU", "same",
             "register-pressure rewrite (num in __local memory)", "__constant memory", {"not_device": "NVIDIA"}),
            ("the register-pressure rewrite speeds up the GPU drastically (its GPU column: 750 ms inlined -> 380 ms; "
             "judged as at least 1.5x)", "faster",
             "register-pressure rewrite (num in __local memory)", "__constant memory", {"device": "NVIDIA", "by": 1.5}),
            ("-cl-mad-enable changes nothing", "same", "inlined, -cl-mad-enable", "inlined helpers"),
            ("-cl-fast-relaxed-math changes nothing", "same", "inlined, -cl-fast-relaxed-math", "inlined helpers"),
        ],
    },
]

STEP_QUERY = """
SELECT l.ladder, l.seq, l.step, d.backend, d.name, p.family, p.width, p.height, p.canonical, e.status,
       e.median_ms, e.ci_low_ms, e.ci_high_ms, e.method, e.created_at
FROM ladder_steps l JOIN evaluations e ON e.id = l.evaluation_id
JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id
WHERE e.id = (SELECT MAX(e2.id) FROM evaluations e2 JOIN ladder_steps l2 ON l2.evaluation_id = e2.id
              WHERE l2.ladder = l.ladder AND l2.step = l.step AND e2.device_id = e.device_id
                AND e2.problem_id = e.problem_id)
ORDER BY l.ladder, l.seq
"""


PROGRAM_QUERY = """
SELECT d.backend, d.name, p.canonical, p.width, v.name, c.canonical, mt.value, mr.value, mb.value
FROM evaluations e JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id
JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id
JOIN metrics mt ON mt.evaluation_id = e.id AND mt.name = 'cold.total_ms'
LEFT JOIN metrics mr ON mr.evaluation_id = e.id AND mr.name = 'cold.run_ms'
LEFT JOIN metrics mb ON mb.evaluation_id = e.id AND mb.name = 'cold.build_ms'
WHERE e.stage = 'cold' AND e.status = 'ok'
"""

WHOLE_PROGRAM_MARGIN = 1.5  # one run each: the ratio a whole-program verdict needs (module docstring)


class Program:
    """One whole-program run (a `cold` row): its device, problem, configuration, total, kernel-run and build ms.
    ahead: the total without the build, as a program compiled ahead of time (the seeds' were) would take."""

    def __init__(self, row, machine=""):
        backend, name, self.canonical, self.width, self.variant, config, self.total, self.run = row[:8]
        self.build = row[8] if len(row) > 8 and row[8] is not None else 0.0
        self.ahead = self.total - self.build
        self.backend, self.device, self.machine = backend, f"{backend}:{name}", machine
        try:
            params = json.loads(config)
        except ValueError:
            params = {}
        params = params if isinstance(params, dict) else {}
        self.config = " ".join(f"{k}={v}" for k, v in sorted(params.items()))


class Step:
    def __init__(self, row, machine=""):
        self.machine = machine  # the folder of the store it came from: one machine's stores share one
        (self.ladder, self.seq, self.step, backend, name, self.family, self.width, self.height, canonical,
         self.status, self.median, self.low, self.high, self.method) = row[:14]
        self.created = row[14] if len(row) > 14 else ""
        self.canonical = canonical
        self.device = f"{backend}:{name}"
        try:
            attrs = json.loads(canonical)
        except ValueError:
            attrs = {}
        self.attrs = attrs if isinstance(attrs, dict) else {}

    def attr(self, name, default=None):
        """A problem attribute, at the canonical form's top level or under its "attrs"."""
        return self.attrs.get(name, self.attrs.get("attrs", {}).get(name, default))

    def key(self, kind):
        if kind == "window":  # maxpool's window side (2 when the problem does not name one)
            return int(self.attr("window", 2))
        if kind == "batch":  # conv's images per launch (1 when the problem names none)
            return int(self.attr("batch", 1))
        if kind == "params":  # seed 004: the parameter set and the grid (the seed's 20^5, the CPU space's 8^5)
            params, grid = str(self.attr("params", "?")), self.attr("grid")
            return f"{params}, grid {grid}" if grid is not None else params
        return self.width

    def ok(self):
        return self.status == "ok" and self.median and self.median > 0

    def per_image(self, images):
        """This step's times divided by the images of its batch."""
        scaled = copy.copy(self)
        for name in ("median", "low", "high"):
            value = getattr(self, name)
            setattr(scaled, name, value / images if value is not None else None)
        return scaled


def load_steps(paths, programs=None):
    """The ladder steps of the stores; their whole-program runs appended to programs when it is a list."""
    steps = []
    for path in paths:
        if not os.path.isfile(path):
            raise SystemExit(f"{path}: no such database")
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version < 8:
                raise SystemExit(f"{path}: schema {version}; ladders need schema 8 (run pimg-tune on it once)")
            machine = os.path.dirname(os.path.abspath(path))
            if version >= 9:
                for backend, name, caps in db.execute("SELECT backend, name, caps FROM devices WHERE caps != ''"):
                    DEVICE_CAPS[f"{backend}:{name}"] = caps.split()
            steps += [Step(r, machine) for r in db.execute(STEP_QUERY)]
            if programs is not None:
                programs += [Program(r, machine) for r in db.execute(PROGRAM_QUERY)]
            db.close()
        except sqlite3.DatabaseError as e:
            raise SystemExit(f"{path}: not a pimg-tune database ({e})")
    # A step of one machine, device and problem in two of its stores: the later measurement.
    latest = {}
    for st in steps:
        k = (st.machine, st.ladder, st.step, st.device, st.canonical)
        if k not in latest or st.created > latest[k].created:
            latest[k] = st
    return [st for st in steps if latest[(st.machine, st.ladder, st.step, st.device, st.canonical)] is st]


def fmt_ms(ms):
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.4g}"


def judge(kind, a, b, by=1.0):
    """One (device, problem): (verdict, what was measured). by: the least ratio a claim of size needs."""
    if not a.ok() or not b.ok():
        return "not testable", f"{a.step if not a.ok() else b.step}: {a.status if not a.ok() else b.status}"
    ratio = b.median / a.median
    text = f"{fmt_ms(a.median)} vs {fmt_ms(b.median)} ms ({ratio:.2f}x)"
    apart = a.high < b.low or b.high < a.low
    if kind == "faster" and by > 1:
        if b.low >= by * a.high:
            return "confirmed", text
        return ("refuted" if b.high < by * a.low else "inconclusive"), text + f", not {by:g}x"
    if kind == "faster":
        if a.high < b.low:
            return "confirmed", text
        return ("refuted" if apart or abs(ratio - 1) <= 0.05 else "inconclusive"), text
    if kind == "not_faster":
        if b.high < a.low or abs(ratio - 1) <= 0.05:
            return "confirmed", text
        return ("refuted" if a.high < b.low else "inconclusive"), text
    if abs(ratio - 1) <= 0.10:
        return "confirmed", text
    return ("refuted" if apart else "inconclusive"), text


def step_names(step):
    """A claim's step: one name, or a tuple of the names the spaces give it."""
    return (step,) if isinstance(step, str) else tuple(step)


def matches(step, where, key):
    """Whether a claim's restriction keeps this step: problems ('only'), devices named ('device') or not."""
    name = step.device.lower()
    return ((where.get("only") is None or step.key(key) in where["only"])
            and (where.get("device") is None or where["device"].lower() in name)
            and (where.get("not_device") is None or where["not_device"].lower() not in name))


def overall_verdict(verdicts, undecided="intervals overlap"):
    """undecided: why an inconclusive comparison could not decide (said where none decided)."""
    tested = [v for v in verdicts if v not in ("not testable", "inconclusive")]
    if not tested:
        return "not testable" if "inconclusive" not in verdicts else f"not testable ({undecided})"
    if all(v == "confirmed" for v in tested):
        return "confirmed"
    if all(v == "refuted" for v in tested):
        return "refuted"
    return "mixed"


# What each device (backend:name) is, from the stores' devices.caps (schema 9): the names of its flags that are set.
DEVICE_CAPS = {}


def is_gpu(device):
    """Whether a device (backend:name) is off the host's cores: by its stored capabilities (host_cores); for a
    device of a store from before schema 9, by its name (CUDA, or an OpenCL device of a GPU vendor)."""
    if device in DEVICE_CAPS:
        return "host_cores" not in DEVICE_CAPS[device]
    name = device.lower()
    return name.startswith("cuda:") or any(v in name for v in ("nvidia", "amd radeon", "intel(r) graphics"))


def verdict_by_class(verdicts, devices, undecided="intervals overlap"):
    """The overall verdict; where the GPUs and the CPUs disagree, 'mixed' says which holds where (the seeds
    ran on one class: their claims are judged on it first)."""
    overall = overall_verdict(verdicts, undecided)
    classes = {}
    for verdict, device in zip(verdicts, devices):
        classes.setdefault("GPU" if is_gpu(device) else "CPU", []).append(verdict)
    if overall != "mixed" or len(classes) < 2:
        return overall
    per = {c: overall_verdict(v, undecided) for c, v in classes.items()}
    if len(set(per.values())) == 1:
        return overall
    return "mixed (" + "; ".join(f"{c}: {per[c]}" for c in sorted(per)) + ")"


def per_image_row(text, steps):
    """A step in the largest batch against itself with one image, per image, on each device and size."""
    verdicts, details, devices = [], [], []
    for device in sorted({s.device for s in steps}):
        for width in sorted({s.width for s in steps if s.device == device}):
            here = {s.key("batch"): s for s in steps if s.device == device and s.width == width}
            if 1 not in here or max(here) == 1:
                continue
            n = max(here)
            verdict, what = judge("same", here[n].per_image(n) if here[n].ok() else here[n], here[1])
            verdicts.append(verdict)
            devices.append(device)
            details.append(f"{device} {width}: per image in a batch of {n} against one image: {what} {verdict}")
    if not verdicts:
        return (text, "not testable", "the stores hold the step with one image and in a batch on no device")
    return (text, verdict_by_class(verdicts, devices), "; ".join(details))


def seed_programs(seed, steps, programs):
    """The whole-program runs of this seed's problems (those its ladder measured on the same machine)."""
    problems = {(s.machine, s.canonical): s for s in steps if s.ladder == seed["ladder"]}
    return [(p, problems[(p.machine, p.canonical)].key(seed["key"])) for p in programs
            if (p.machine, p.canonical) in problems]


def best_programs(seed, steps, programs):
    """{(machine, key, device): the fastest whole program (without its build) of that device on that problem}."""
    best = {}
    for p, key in seed_programs(seed, steps, programs):
        k = (p.machine, key, p.device)
        if k not in best or p.ahead < best[k].ahead:
            best[k] = p
    return best


def whole_program_row(text, a_backend, b_backend, seed, steps, programs):
    verdicts, details, devices = [], [], []
    best = best_programs(seed, steps, programs)
    for machine, key in sorted({(m, k) for m, k, _ in best}, key=lambda x: (x[0], isinstance(x[1], str), x[1])):
        a = [p for (m, k, _), p in best.items() if m == machine and k == key and p.backend == a_backend]
        b = [p for (m, k, _), p in best.items() if m == machine and k == key and p.backend == b_backend]
        if not a or not b:
            continue
        pa, pb = min(a, key=lambda p: p.ahead), min(b, key=lambda p: p.ahead)
        ratio = pb.ahead / pa.ahead
        verdict = ("confirmed" if ratio >= WHOLE_PROGRAM_MARGIN else
                   "refuted" if ratio <= 1 / WHOLE_PROGRAM_MARGIN else "inconclusive")
        verdicts.append(verdict)
        devices.append(pb.device if is_gpu(pb.device) else pa.device)
        details.append(f"{key} ({pa.device} vs {pb.device}, whole programs without the build, one run each): "
                       f"{fmt_ms(pa.ahead)} vs {fmt_ms(pb.ahead)} ms ({ratio:.2f}x) {verdict}")
    if not verdicts:
        return (text, "not testable", f"no machine's stores hold whole programs of both {a_backend} and {b_backend} "
                                      "on one problem (the whole-program stage runs with a space's search)")
    verdict = verdict_by_class(verdicts, devices, f"within {WHOLE_PROGRAM_MARGIN:g}x, one run each")
    return (text, verdict, "; ".join(details))


def claim_rows(seed, steps, programs=()):
    rows = []
    mine = [s for s in steps if s.ladder == seed["ladder"]]
    for claim in seed["claims"]:
        text, kind = claim[0], claim[1]
        if kind is None:
            rows.append((text, "not testable", claim[2]))
            continue
        if kind == "whole_program":
            rows.append(whole_program_row(text, claim[2], claim[3], seed, steps, programs))
            continue
        if kind == "measured":  # judged by a measurement other than a ladder's, which the claim cites
            rows.append((text, claim[2], claim[3]))
            continue
        if kind == "per_image":
            rows.append(per_image_row(text, [s for s in mine if s.step == claim[2]]))
            continue
        where = claim[4] if len(claim) > 4 else {}
        where = {"only": where} if isinstance(where, list) else where
        size = where.get("by", 1.0)
        names_a, names_b = step_names(claim[2]), step_names(claim[3])
        mine_here = [s for s in mine if matches(s, where, seed["key"])]
        by = {}
        for s in mine_here:
            by.setdefault((s.device, s.key(seed["key"])), {})[s.step] = s
        verdicts, details, devices = [], [], []
        for (device, key), named in sorted(by.items(), key=lambda x: (x[0][0], isinstance(x[0][1], str), x[0][1])):
            a = [named[n] for n in names_a if n in named]
            b = [named[n] for n in names_b if n in named]
            if not a or not b:
                continue
            verdict, what = judge(kind, a[0], b[0], size)
            verdicts.append(verdict)
            devices.append(device)
            details.append(f"{device} {key}: {what} {verdict}")
        if not verdicts:
            # Steps on different devices (an OpenMP step against a PoCL one): compare per machine and problem.
            for machine in sorted({s.machine for s in mine_here}):
                here = [s for s in mine_here if s.machine == machine]
                for key in sorted({s.key(seed["key"]) for s in here}, key=lambda k: (isinstance(k, str), k)):
                    a = [s for s in here if s.step in names_a and s.key(seed["key"]) == key]
                    b = [s for s in here if s.step in names_b and s.key(seed["key"]) == key]
                    if a and b:
                        verdict, what = judge(kind, a[0], b[0], size)
                        verdicts.append(verdict)
                        devices.append(next((d for d in (a[0].device, b[0].device) if is_gpu(d)), a[0].device))
                        details.append(f"{key} ({a[0].device} vs {b[0].device}): {what} {verdict}")
        if not verdicts:
            rows.append((text, "not testable", "the stores hold neither step on a common problem (run the space: "
                                               "GPU steps need the -gpu twin)"))
            continue
        rows.append((text, verdict_by_class(verdicts, devices), "; ".join(details)))
    return rows


def esc(text):
    return str(text).replace("|", "\\|")


def programs_table(seed, steps, programs):
    """The best whole program of each device and problem: the seed's definition of time where it timed programs."""
    best = best_programs(seed, steps, programs)
    if not best:
        return ["No whole-program runs of this seed's problems in the stores (the whole-program stage runs with a "
                "space's search, not with `--ladder-only`).", ""]
    md = ["Whole programs, the seed's definition of time (the best of each device's `cold` runs: a fresh process, "
          "compile caches off, device opening, input, build, transfers, the run and the release; one run each; "
          "'without the build' is what a program compiled ahead, as the seed's were, would take):", "",
          f"| {seed['key']} | device | configuration | whole program ms | of it the build | without the build | "
          "of it the kernel run ms |", "|---|---|---|---|---|---|---|"]
    for (machine, key, device), p in sorted(best.items(), key=lambda x: (isinstance(x[0][1], str), x[0][1], x[0][0],
                                                                           x[0][2])):
        config = f"{p.variant} {p.config}".strip()
        md.append(f"| {esc(key)} | {esc(device)} | {esc(config)} | {fmt_ms(p.total)} | {fmt_ms(p.build)} | "
                  f"{fmt_ms(p.ahead)} | {fmt_ms(p.run) if p.run is not None else chr(0x2013)} |")
    return md + [""]


def seed_section(seed, steps, programs=()):
    md = [f"## Seed {seed['seed']}: {seed['title']}", "", seed["timing"], ""]
    mine = [s for s in steps if s.ladder == seed["ladder"]]
    keys = sorted({s.key(seed["key"]) for s in mine} | {k for col in seed["published"].values() for k in col},
                  key=lambda k: (isinstance(k, str), k))
    # Each machine's ladder together, in step order.
    columns = [(s.step, s.device) for s in sorted(mine, key=lambda s: (s.machine, s.seq, s.device))]
    columns = list(dict.fromkeys(columns))
    if keys and (columns or seed["published"]):
        head = [seed["key"]] + list(seed["published"]) + [f"{step} ({device}), ours" for step, device in columns]
        md += ["| " + " | ".join(esc(h) for h in head) + " |", "|" + "---|" * len(head)]
        for k in keys:
            cells = [str(k)]
            cells += [fmt_ms(col[k]) if k in col else "\u2013" for col in seed["published"].values()]
            for step, device in columns:
                hit = [s for s in mine if s.step == step and s.device == device and s.key(seed["key"]) == k]
                if not hit:
                    cells.append("\u2013")
                elif hit[0].ok():
                    cell = f"{fmt_ms(hit[0].median)} [{fmt_ms(hit[0].low)}, {fmt_ms(hit[0].high)}]"
                    if seed["key"] == "batch" and k > 1:
                        cell += f" ({fmt_ms(hit[0].median / k)} per image)"
                    cells.append(cell)
                else:
                    cells.append(hit[0].status)
            md.append("| " + " | ".join(esc(c) for c in cells) + " |")
        methods = sorted({s.method for s in mine if s.method})
        md += ["", "Times in ms; ours are medians [95% interval] of the ladder's interleaved rounds"
               + (f" ({'; '.join(methods)})." if methods else "."), ""]
    else:
        md += ["No measurements of this seed's ladder in the stores given.", ""]
    if seed.get("whole_program"):
        md += programs_table(seed, steps, programs)
    md += ["| claim | verdict | measurement |", "|---|---|---|"]
    for text, verdict, what in claim_rows(seed, steps, programs):
        md.append(f"| {esc(text)} | **{verdict}** | {esc(what)} |")
    return "\n".join(md) + "\n"


def report(steps, sources, note="", programs=()):
    md = ["# The seeds' experiments, re-run", "",
          "Each seed's published numbers beside pimg-tune's measurements of its ladder (spaces/seeds/), and its "
          "claims judged from them. Sources (from this page's folder): " + ", ".join(f"`{s}`" for s in sources) + ".",
          ""]
    if note:
        md += [note, ""]
    devices = sorted({s.device for s in steps})
    md += ["Devices measured: " + (", ".join(f"`{d}`" for d in devices) if devices else "none") + ".", ""]
    return "\n".join(md) + "\n" + "\n".join(seed_section(seed, steps, programs) for seed in SEEDS)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--note", default="", help="a paragraph after the title (how and where it was measured)")
    ap.add_argument("db", nargs="+")
    args = ap.parse_args()
    try:
        programs = []
        steps = load_steps(args.db, programs)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(args.out))
    text = report(steps, [os.path.relpath(os.path.abspath(db), here) for db in args.db], args.note, programs)
    with open(args.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
