// Empties a GPU's cache before a cold run by reading n 16-byte words (a buffer of twice
// CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, filled once): the lines it leaves are clean, where a fill before every run
// left them dirty and the timed kernel paid for writing them back (docs/measurement.md; on an H200 a 64 MiB read
// took 25.5 us after a memset against 19.0-19.3 us after a read, bench/results/2026-12-02-h200-l2-flush). The word
// after the n is written only when the words' xor equals `never`, which the host chooses so that it does not.
__kernel void pimg_cache_sweep(__global uint4* words, ulong n, uint never) {
  uint acc = 0;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    const uint4 q = words[i];
    acc ^= q.x ^ q.y ^ q.z ^ q.w;
  }
  if (acc == never) words[n].x = acc;
}
