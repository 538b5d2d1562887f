#!/usr/bin/env python3
"""What NVRTC's cost per milo configuration is made of on this machine (issue 20: can the compile be made
cheaper without changing the code it makes?). For a few configurations of the T1 milo kernel, from the
cheapest tile to the dearest, each compiled in a fresh process (no in-process state shared) with the options
pimg-tune passes, then with each candidate option added: the CPU time of the compile and whether the cubin is
byte for byte the same. An option that changes no cubin and saves time could be used; one that changes a cubin
would measure other code than the kernel as written, and is reported as such.
Caution: NVRTC 13.0 on the H100 machine reused an earlier compile of the same configuration across processes
(an option compiled after the base one took 0.02-0.05 s and gave the same cubin): there a "same cubin" column's
time measures that reuse, not the option; the base column and columns with other cubins are sound.
Usage: nvrtc-options-cost.py KERNEL.cu [LIBNVRTC] [--repeat N]"""
import argparse, ctypes, hashlib, multiprocessing as mp, resource, sys, time

CONFIGS = [  # block_size_x, block_size_y, tile_size_x, tile_size_y
    (64, 1, 1, 1), (64, 4, 2, 2), (32, 8, 2, 4), (64, 2, 4, 3), (128, 2, 4, 4),
]
BASE = ["--gpu-architecture=sm_90", "-std=c++17", "-default-device"]
CANDIDATES = [[], ["-minimal"], ["-dopt=on"], ["--Ofast-compile=min"], ["--split-compile=0"]]


def compile_once(args):
    path, lib_name, cfg, extra = args
    lib = ctypes.CDLL(lib_name)
    src = open(path, "rb").read()
    bx, by, tx, ty = cfg
    defs = dict(block_size_x=bx, block_size_y=by, tile_size_x=tx, tile_size_y=ty, read_only=1, use_padding=0,
                use_cmem=1, filter_height=15, filter_width=15)
    opts = [o.encode() for o in BASE + extra] + [f"-D{k}={v}".encode() for k, v in defs.items()]
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"convolution_milo.cu", 0, None, None) == 0
    c0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_SELF)
    digest = ""
    if rc == 0:
        size = ctypes.c_size_t()
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetCUBIN(prog, buf)
        digest = hashlib.sha256(buf.raw).hexdigest()[:16]
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    return rc, wall, cpu, digest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel")
    ap.add_argument("lib", nargs="?", default="libnvrtc.so.13")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    ctx = mp.get_context("spawn")  # a fresh process per compile
    print(f"NVRTC {a.lib}; base options {' '.join(BASE)}; CPU seconds of one compile in a fresh process, "
          f"best of {a.repeat}")
    print("| block | tile | " + " | ".join(" ".join(c) or "(base)" for c in CANDIDATES) + " |")
    print("|---|---|" + "---|" * len(CANDIDATES))
    totals = [0.0] * len(CANDIDATES)
    for cfg in CONFIGS:
        cells, base_digest = [], None
        for i, extra in enumerate(CANDIDATES):
            best = None
            for _ in range(a.repeat):
                with ctx.Pool(1) as p:
                    r = p.apply(compile_once, ((a.kernel, a.lib, cfg, extra),))
                if best is None or r[2] < best[2]:
                    best = r
            rc, wall, cpu, digest = best
            if i == 0:
                base_digest = digest
            totals[i] += cpu
            same = "" if i == 0 else (" same cubin" if digest == base_digest and digest else " OTHER CUBIN")
            cells.append(f"{cpu:.2f} s{same}" if rc == 0 else f"error {rc}")
        print(f"| {cfg[0]}x{cfg[1]} | {cfg[2]}x{cfg[3]} | " + " | ".join(cells) + " |")
    print("| all | | " + " | ".join(f"{t:.2f} s" for t in totals) + " |")


if __name__ == "__main__":
    sys.exit(main())
