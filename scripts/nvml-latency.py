#!/usr/bin/env python3
"""How long one NVML query takes on this machine (the nvml observer's cost per call), by ctypes."""
import ctypes, time, statistics

nvml = ctypes.CDLL("libnvidia-ml.so.1")
assert nvml.nvmlInit_v2() == 0
dev = ctypes.c_void_p()
assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) == 0
u = ctypes.c_uint()
ull = ctypes.c_ulonglong()
calls = {
    "energy": lambda: nvml.nvmlDeviceGetTotalEnergyConsumption(dev, ctypes.byref(ull)),
    "clock_sm": lambda: nvml.nvmlDeviceGetClockInfo(dev, 1, ctypes.byref(u)),
    "clock_mem": lambda: nvml.nvmlDeviceGetClockInfo(dev, 2, ctypes.byref(u)),
    "temperature": lambda: nvml.nvmlDeviceGetTemperature(dev, 0, ctypes.byref(u)),
    "power": lambda: nvml.nvmlDeviceGetPowerUsage(dev, ctypes.byref(u)),
    "reasons": lambda: nvml.nvmlDeviceGetCurrentClocksEventReasons(dev, ctypes.byref(ull)),
}
for name, call in calls.items():
    times = []
    for _ in range(50):
        t = time.perf_counter()
        rc = call()
        times.append((time.perf_counter() - t) * 1e3)
    print(f"{name:12s} rc {rc}  median {statistics.median(times):.3f} ms  max {max(times):.3f} ms")
nvml.nvmlShutdown()
