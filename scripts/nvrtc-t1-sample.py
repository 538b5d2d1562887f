#!/usr/bin/env python3
"""What NVRTC costs per configuration of a T1 CUDA kernel: N configurations drawn at random (seeded) from the
T1 file's space (its parameters' values, its conditions evaluated as the Python expressions they are), each
compiled once for the given architecture with the file's compiler options and the configuration as defines,
one after another on one CPU. Prints each configuration's time and the mean, median and longest (issue 20:
is an exhaustive tune bound by the compiler?).
Usage: nvrtc-t1-sample.py T1_FILE [N] [SEED] [ARCH] [LIBNVRTC]"""
import ctypes, itertools, json, os, random, statistics, sys, time

t1_path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 3
arch = sys.argv[4] if len(sys.argv) > 4 else "sm_90"
lib = ctypes.CDLL(sys.argv[5] if len(sys.argv) > 5 else "libnvrtc.so.13")
t1 = json.load(open(t1_path))
spec, space = t1["KernelSpecification"], t1["ConfigurationSpace"]
src = open(os.path.join(os.path.dirname(t1_path), spec["KernelFile"]), "rb").read()
names = [p["Name"] for p in space["TuningParameters"]]
values = [eval(p["Values"]) if isinstance(p["Values"], str) else p["Values"] for p in space["TuningParameters"]]
configs = [dict(zip(names, v)) for v in itertools.product(*values)]
configs = [c for c in configs if all(eval(cond["Expression"], {}, dict(c)) for cond in space.get("Conditions", []))]


def compile_one(config):
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, spec["KernelFile"].encode(), 0, None, None) == 0
    opts = [f"--gpu-architecture={arch}".encode()] + [o.encode() for o in spec.get("CompilerOptions", [])]
    opts += [f"-D{k}={v}".encode() for k, v in config.items()]
    t = time.perf_counter()
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    dt = time.perf_counter() - t
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return dt, rc


print(f"{t1_path}: {len(configs)} configurations; {n} drawn with seed {seed}, compiled for {arch}, one at a time")
times = []
for config in random.Random(seed).sample(configs, n):
    dt, rc = compile_one(config)
    times.append(dt)
    print(f"{dt:7.3f} s  rc {rc}  " + " ".join(f"{k}={v}" for k, v in config.items()))
print(f"mean {statistics.mean(times):.3f} s, median {statistics.median(times):.3f} s, longest {max(times):.3f} s; "
      f"the whole space at the mean: {statistics.mean(times) * len(configs):.0f} CPU-seconds")
