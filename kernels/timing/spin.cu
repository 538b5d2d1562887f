// The kernel that holds a run's launches back so that their latency stays out of its time (NVBench's
// blocking kernel): it spins until the host sets *release, or gives up after timeout_ns and says so.
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
