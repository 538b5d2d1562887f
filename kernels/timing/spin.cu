// The kernels of a timed region (docs/measurement.md, "Timing methods").
//
// pimg_spin holds a run's launches back so that their latency stays out of its time (NVBench's blocking
// kernel): it spins until the host sets *release, or gives up after timeout_ns and says so.
extern "C" __global__ void pimg_spin(const volatile int* release, unsigned long long timeout_ns, int* timed_out) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*release == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

// pimg_l2_sweep empties the L2 before a cold run by reading n 16-byte words (a buffer of twice the L2, filled
// once): the lines it leaves are clean. A flush that writes (a memset, NVBench's) leaves the L2 full of dirty lines,
// and the timed kernel then pays for writing them back: on an H200 a 64 MiB read took 25.5 us after a memset
// against 19.0-19.3 us after this sweep (bench/results/2026-12-02-h200-l2-flush). *sink is written only when the
// words' xor equals `never`, which the host chooses so that it does not (the loads cannot be left out).
extern "C" __global__ void pimg_l2_sweep(const uint4* __restrict__ words, unsigned long long n, unsigned never,
                                         unsigned* sink) {
  unsigned acc = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const uint4 q = words[i];
    acc ^= q.x ^ q.y ^ q.z ^ q.w;
  }
  if (acc == never) *sink = acc;
}
