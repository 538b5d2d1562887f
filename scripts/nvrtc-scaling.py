#!/usr/bin/env python3
"""NVRTC's throughput on this machine (issue 20: is a many-core machine's compile pipeline bound by NVRTC
itself?): the T1 milo kernel compiled for sm_90 under configurations' defines, one after another, then on
N threads (ctypes releases the GIL) and on N processes. Usage: nvrtc-scaling.py KERNEL.cu [LIBNVRTC]"""
import ctypes, itertools, os, sys, time
from concurrent.futures import ThreadPoolExecutor, ProcessPoolExecutor

src = open(sys.argv[1], "rb").read()
lib = ctypes.CDLL(sys.argv[2] if len(sys.argv) > 2 else "libnvrtc.so.13")
configs = [dict(block_size_x=bx, block_size_y=by, tile_size_x=tx, tile_size_y=ty, read_only=1, use_padding=0,
                use_shmem=1, use_cmem=1, filter_height=15, filter_width=15)
           for bx, by, tx, ty in itertools.product([32, 64], [4, 8], [1], [1, 2])]


def compile_one(defs):
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"k.cu", 0, None, None) == 0
    opts = [b"--gpu-architecture=sm_90", b"-std=c++11"] + [f"-D{k}={v}".encode() for k, v in defs.items()]
    t = time.perf_counter()
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    dt = time.perf_counter() - t
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return dt, rc


if __name__ == "__main__":
    work = configs * 4
    t = time.perf_counter()
    one = [compile_one(c) for c in configs]
    serial = (time.perf_counter() - t) / len(configs)
    print(f"serial: {serial:.3f} s a compile, errors {sum(1 for _, e in one if e)}")
    for name, pool, n in [("threads", ThreadPoolExecutor, k) for k in (2, 4, 8, 16)] + [("processes", ProcessPoolExecutor, 16)]:
        with pool(n) as p:
            list(p.map(compile_one, configs[:2]))
            t = time.perf_counter()
            got = list(p.map(compile_one, work))
            wall = time.perf_counter() - t
        print(f"{name} x{n}: {len(work)} compiles in {wall:.2f} s, {wall / len(work):.3f} s each, speed-up "
              f"{serial * len(work) / wall:.1f}x, errors {sum(1 for _, e in got if e)}")
