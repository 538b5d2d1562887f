#!/usr/bin/env python3
"""scripts/seed-report.py against a store built from the real migrations: ladder steps of seed 002 and
seed 003 on one device, the latest evaluation of each step read, claims judged (confirmed where the
intervals are apart in the claimed direction, refuted otherwise, 'same' within overlapping intervals,
mixed across problems, not testable without steps), bad input refused with exit code 2.

Usage: seed_report_test.py SOURCE_DIR
"""
import glob
import importlib.util
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = os.path.join(SOURCE, "scripts", "seed-report.py")
spec = importlib.util.spec_from_file_location("seed_report", SCRIPT)
seed_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seed_report)


def read(path):
    with open(path) as f:
        return f.read()


def make_store(path, steps):
    """steps: (ladder, seq, step, width, status, median_ms) in insertion order."""
    db = sqlite3.connect(path)
    for m in sorted(glob.glob(os.path.join(SOURCE, "results", "migrations", "*.sql"))):
        db.executescript(read(m))
    db.execute("PRAGMA user_version = 8")
    db.execute("INSERT INTO runs (id, host, started_at, git_commit, command_line, version) VALUES (1,'h','t','c','x','0')")
    db.execute("INSERT INTO devices (id, backend, name, vendor, driver, platform, compute_units, global_mem_bytes, "
               "local_mem_bytes, max_work_group_size) VALUES (1,'opencl','cpu-test','v','1','p',2,1,1,1)")
    db.execute("INSERT INTO variants (id, family, name, backend, source_hash) VALUES (1,'hist','v','opencl','h')")
    db.execute("INSERT INTO configs (id, hash, canonical) VALUES (1,'h','{}')")
    problems = {}
    for ladder, seq, step, width, status, median in steps:
        if width not in problems:
            problems[width] = len(problems) + 1
            db.execute("INSERT INTO problems (id, family, canonical, width, height, channels, work, unit, min_bytes, "
                       "min_ops) VALUES (?,?,?,?,?,3,1,'MPix/s',1,1)",
                       (problems[width], "hist", '{"w":"%d"}' % width, width, width))
        cur = db.execute("INSERT INTO evaluations (run_id, device_id, problem_id, variant_id, config_id, status, log, "
                         "validation, compile_ms, compile_cached, h2d_ms, d2h_ms, min_ms, median_ms, mean_ms, "
                         "stddev_ms, eval_ms, method, ci_low_ms, ci_high_ms, stage) VALUES "
                         "(1,1,?,1,1,?,'','',0,0,0,0,?,?,?,0,0,'events',?,?,'ladder')",
                         (problems[width], status, median, median, median, 0.95 * median, 1.05 * median))
        db.execute("INSERT INTO ladder_steps (evaluation_id, ladder, seq, step) VALUES (?,?,?,?)",
                   (cur.lastrowid, ladder, seq, step))
    db.commit()
    db.close()


BASIC, PACKED = "2.3 basic (global atomics)", "2.4 packed 32-bit reads"
INPUT, OUTPUT = "2.5 input partition (16 x 512)", "2.6 output partition (512 per group)"


class SeedReport(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.dir.name, "s.db")
        make_store(self.db, [
            ("seed002-hist", 0, BASIC, 640, "ok", 10.0),
            ("seed002-hist", 1, PACKED, 640, "ok", 10.2),
            ("seed002-hist", 2, INPUT, 640, "ok", 9.0),   # replaced below by a faster, later evaluation
            ("seed002-hist", 2, INPUT, 640, "ok", 2.0),
            ("seed002-hist", 3, OUTPUT, 640, "ok", 20.0),
            ("seed002-hist", 0, BASIC, 1280, "ok", 40.0),
            ("seed002-hist", 1, PACKED, 1280, "ok", 30.0),
            ("seed002-hist", 2, INPUT, 1280, "ok", 8.0),
            ("seed002-hist", 3, OUTPUT, 1280, "wrong_result", 0.0),
            ("seed003-maxpool", 0, "OpenMP chain", 1024, "ok", 11.04),  # 10.4% apart, intervals overlapping
            ("seed003-maxpool", 1, "OpenMP tree", 1024, "ok", 10.0),
        ])

    def tearDown(self):
        self.dir.cleanup()

    def claims(self):
        steps = seed_report.load_steps([self.db])
        seed = next(s for s in seed_report.SEEDS if s["ladder"] == "seed002-hist")
        return {text: (verdict, what) for text, verdict, what in seed_report.claim_rows(seed, steps)}

    def test_verdicts(self):
        c = self.claims()
        much = "input partition is much faster than the basic kernel (judged as at least 1.5x)"
        self.assertEqual(c[much][0], "confirmed")
        self.assertIn("2.00 vs 10.00 ms (5.00x)", c[much][1])
        # Output partition failed at 1280: only 640 is tested, where it is slower than packed.
        verdict, what = c["output partition is slightly faster than the packed kernel"]
        self.assertEqual(verdict, "refuted")
        self.assertIn("640: 20.00 vs 10.20 ms (0.51x) refuted", what)
        self.assertIn("wrong_result not testable", what)
        # 'same': overlapping at 640, 30 vs 40 ms apart at 1280.
        self.assertEqual(c["packed 32-bit reads do not improve on the basic kernel"][0], "mixed")

    def test_claims_of_size_need_the_size(self):
        def step(name, median, spread=0.02):
            return seed_report.Step(("l", 0, name, "cuda", "gpu", "f", 64, 64, "{}", "ok", median,
                                     (1 - spread) * median, (1 + spread) * median, "events"))
        # 1.03x with tight intervals: faster, but not the 1.5x a claim of size needs (refuted); 2x: confirmed;
        # 1.5x with intervals that allow 1.3x to 1.7x: inconclusive.
        self.assertEqual(seed_report.judge("faster", step("a", 9.7, 0.005), step("b", 10.0, 0.005))[0], "confirmed")
        self.assertEqual(seed_report.judge("faster", step("a", 9.7, 0.005), step("b", 10.0, 0.005), 1.5)[0], "refuted")
        self.assertEqual(seed_report.judge("faster", step("a", 5.0), step("b", 10.0), 1.5)[0], "confirmed")
        self.assertEqual(seed_report.judge("faster", step("a", 10.0, 0.06), step("b", 15.0, 0.06), 1.5)[0],
                         "inconclusive")

    def test_not_faster_holds_for_equal_or_slower_and_fails_for_clearly_faster(self):
        def step(median):
            return seed_report.Step(("l", 0, "s", "cuda", "gpu", "f", 64, 64, "{}", "ok", median, 0.99 * median,
                                     1.01 * median, "events"))
        self.assertEqual(seed_report.judge("not_faster", step(10.0), step(10.1))[0], "confirmed")  # the same
        self.assertEqual(seed_report.judge("not_faster", step(12.0), step(10.0))[0], "confirmed")  # slower
        self.assertEqual(seed_report.judge("not_faster", step(8.0), step(10.0))[0], "refuted")  # 1.25x faster

    def test_steps_named_two_ways_and_verdicts_per_device_class(self):
        seed = next(s for s in seed_report.SEEDS if s["ladder"] == "seed001")

        def step(name, device, median):
            backend, dev = device.split(":")
            return seed_report.Step(("seed001", 0, name, backend, dev, "bgr2rgba", 4096, 4096, "{}", "ok", median,
                                     0.99 * median, 1.01 * median, "events"))
        # The CPU space stages in "local", the GPU space in "shared" memory: one claim over both.
        steps = [step("staged in local memory (64)", "opencl:pocl", 1.0),
                 step("one loop: 1-D grid of 128", "opencl:pocl", 1.02),
                 step("staged in shared memory (64)", "cuda:NVIDIA H200", 0.16),
                 step("one loop: 1-D grid of 128", "cuda:NVIDIA H200", 0.08)]
        rows = {text: (verdict, what) for text, verdict, what in seed_report.claim_rows(seed, steps)}
        verdict, what = rows["staging in shared memory changes little (0.006 s)"]
        self.assertEqual(verdict, "mixed (CPU: confirmed; GPU: refuted)")
        self.assertIn("cuda:NVIDIA H200 4096: 0.16 vs 0.08 ms (0.50x) refuted", what)

    def test_steps_on_different_devices_are_compared_within_one_machine(self):
        seed = next(s for s in seed_report.SEEDS if s["ladder"] == "seed004")
        claim = next(c for c in seed["claims"] if c[0].startswith("OpenCL on the CPU is a little slower"))

        def step(name, device, median, machine):
            backend, dev = device.split(":")
            canonical = '{"family":"semblance","params":"param1"}'
            return seed_report.Step(("seed004", 0, name, backend, dev, "semblance", 1, 1, canonical, "ok", median,
                                     0.99 * median, 1.01 * median, "events"), machine)
        # Machine m1: OpenMP 10 ms, PoCL 20 ms; machine m2: OpenMP 30 ms, no PoCL. Across machines (PoCL of m1
        # against OpenMP of m2) the claim would be refuted; within m1 it holds.
        steps = [step(claim[2], "openmp:a", 10.0, "m1"), step(claim[3], "opencl:pocl-a", 20.0, "m1"),
                 step(claim[2], "openmp:b", 30.0, "m2")]
        rows = {text: (verdict, what) for text, verdict, what in seed_report.claim_rows(seed, steps)}
        verdict, what = rows[claim[0]]
        self.assertEqual(verdict, "confirmed")
        self.assertIn("(openmp:a vs opencl:pocl-a): 10.00 vs 20.00 ms", what)
        self.assertNotIn("openmp:b", what)

    def test_whole_programs_of_one_machine_judge_a_whole_program_claim(self):
        seed = next(s for s in seed_report.SEEDS if s["ladder"] == "seed001")
        claim = next(c for c in seed["claims"] if c[1] == "whole_program")
        canonical = '{"family":"bgr2rgba","width":4096,"height":4096,"channels":3}'
        steps = [seed_report.Step(("seed001", 0, "serial", "host", "cpu", "bgr2rgba", 4096, 4096, canonical, "ok",
                                   30.0, 29.0, 31.0, "events", "2026-11-28T00:00:00Z"), machine)
                 for machine in ("m1", "m2")]

        def program(backend, ahead, machine="m1", config='{"threads":0}', build=20.0):
            return seed_report.Program((backend, "dev", canonical, 4096, "v", config, ahead + build, 1.0, build),
                                       machine)
        # Without their builds (the seed's programs were compiled ahead), OpenMP 100 ms, CUDA 400 and 450 ms (the
        # best, 400, counts): 4x, confirmed. A build of 500 ms would not change it. The other machine's faster
        # CUDA program is not compared with this machine's OpenMP.
        programs = [program("openmp", 100.0, build=500.0), program("cuda", 450.0), program("cuda", 400.0),
                    program("cuda", 50.0, "m2")]
        verdict, what = seed_report.whole_program_row(claim[0], "openmp", "cuda", seed, steps, programs)[1:]
        self.assertEqual(verdict, "confirmed")
        self.assertIn("100 vs 400 ms (4.00x) confirmed", what)
        self.assertNotIn("50.00", what)
        # One run each: 1.3x is within what a process-to-process difference can be.
        verdict = seed_report.whole_program_row(claim[0], "openmp", "cuda", seed, steps,
                                                [program("openmp", 100.0), program("cuda", 130.0)])[1]
        self.assertEqual(verdict, "not testable (within 1.5x, one run each)")
        table = "\n".join(seed_report.programs_table(seed, steps, programs))
        self.assertIn("| 4096 | cuda:dev | v threads=0 | 420 | 20.00 | 400 | 1.00 |", table)
        self.assertIn("| 4096 | openmp:dev | v threads=0 | 600 | 500 | 100 | 1.00 |", table)

    def test_overlapping_intervals_leave_a_claim_untested(self):
        steps = seed_report.load_steps([self.db])
        seed = next(s for s in seed_report.SEEDS if s["ladder"] == "seed003-maxpool")
        rows = {text: verdict for text, verdict, _ in seed_report.claim_rows(seed, steps)}
        self.assertEqual(rows["at 2x2 the tree form is at least as fast as the chain (OpenMP)"],
                         "not testable (intervals overlap)")

    def test_window_ladder_is_keyed_by_the_window(self):
        def step(seq, name, window, median):
            canonical = '{"family":"maxpool","width":64,"height":64,"channels":3%s}' % (
                ',"window":"%d"' % window if window != 2 else "")
            return seed_report.Step(("seed003-maxpool-windows", seq, name, "opencl", "pocl", "maxpool", 64, 64,
                                     canonical, "ok", median, 0.95 * median, 1.05 * median, "events"))
        steps = [step(2, "OpenCL direct", 2, 5.0), step(3, "OpenCL tree in local memory", 2, 9.0),
                 step(2, "OpenCL direct", 3, 10.0), step(3, "OpenCL tree in local memory", 3, 6.0),
                 step(2, "OpenCL direct", 4, 12.0), step(3, "OpenCL tree in local memory", 4, 7.0)]
        self.assertEqual([s.key("window") for s in steps[:3]], [2, 2, 3])
        seed = next(s for s in seed_report.SEEDS if s["ladder"] == "seed003-maxpool-windows")
        rows = {text: (verdict, what) for text, verdict, what in seed_report.claim_rows(seed, steps)}
        verdict, what = rows["the tree reduction in local memory is faster than the direct kernel on 3x3 and 4x4 "
                             "windows (OpenCL)"]
        self.assertEqual(verdict, "confirmed")  # the 2x2 rows, where the tree is slower, are outside the claim
        self.assertIn(" 3: 6.00 vs 10.00 ms", what)
        self.assertNotIn(" 2: ", what)

    def test_batch_ladder_is_keyed_by_the_batch_and_judged_per_image(self):
        seed = next(s for s in seed_report.SEEDS if s["ladder"] == "seed003-batch")
        seeds_launch, all_channels = seed["claims"][0][2], seed["claims"][1][3]

        def step(seq, name, batch, median, device="cuda", width=4096):
            canonical = '{"family":"conv","width":%d,"height":2304,"channels":3%s}' % (
                width, ',"batch":"%d"' % batch if batch != 1 else "")
            return seed_report.Step(("seed003-batch", seq, name, device, "gpu" if device == "cuda" else "pocl", "conv",
                                     width, 2304, canonical, "ok",
                                     median, 0.98 * median, 1.02 * median, "events"))
        # On the GPU 20 images cost 20.4 one-image times (same per image); on the CPU 30 (1.5x per image).
        steps = [step(1, all_channels, 1, 4.0), step(2, seeds_launch, 1, 2.0),
                 step(1, all_channels, 20, 80.0), step(2, seeds_launch, 20, 40.8),
                 step(2, seeds_launch, 1, 1.0, "opencl", 512), step(2, seeds_launch, 20, 30.0, "opencl", 512)]
        self.assertEqual([s.key("batch") for s in steps[:3]], [1, 1, 20])
        rows = {text: (verdict, what) for text, verdict, what in seed_report.claim_rows(seed, steps)}
        verdict, what = rows[seed["claims"][0][0]]
        self.assertEqual(verdict, "mixed (CPU: refuted; GPU: confirmed)")
        self.assertIn("cuda:gpu 4096: per image in a batch of 20 against one image: 2.04 vs 2.00 ms (0.98x) confirmed",
                      what)
        self.assertIn("opencl:pocl 512: per image in a batch of 20 against one image: 1.50 vs 1.00 ms (0.67x) refuted",
                      what)
        self.assertEqual(rows[seed["claims"][1][0]][0], "confirmed")
        md = seed_report.seed_section(seed, steps)
        self.assertIn("40.80 [39.98, 41.62] (2.04 per image)", md)

    def test_report_has_both_tables_and_untested_seeds(self):
        out = os.path.join(self.dir.name, "r.md")
        r = subprocess.run([sys.executable, SCRIPT, "--out", out, self.db], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        md = read(out)
        self.assertIn("## Seed 002: per-channel histograms", md)
        self.assertIn("| 640 | 10.00 [9.50, 10.50] | 10.20 [9.69, 10.71] | 2.00 [1.90, 2.10] |", md)
        self.assertIn("wrong_result", md)
        self.assertIn("| OpenMP is faster than the GPU version (whole programs: 0.053 against 0.226-0.246 s) | "
                      "**not testable** |", md)
        self.assertIn("| 4096 | 704 |", md)  # seed 000's published CPU column, with no rows of ours
        self.assertIn("No measurements of this seed's ladder", md)

    def test_bad_input_exits_2(self):
        bogus = os.path.join(self.dir.name, "bogus.db")
        with open(bogus, "w") as f:
            f.write("not a database")
        out = os.path.join(self.dir.name, "r.md")
        for args in ([bogus], [os.path.join(self.dir.name, "missing.db")]):
            r = subprocess.run([sys.executable, SCRIPT, "--out", out] + args, capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
