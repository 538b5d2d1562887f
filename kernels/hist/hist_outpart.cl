/* hist: output partition (seed 002's fourth variant): work-group g owns the BPG bins starting at
 * g * BPG of the NBINS = 256 x channels slots, reads the whole input in VEC-byte vectors, counts only
 * its own bins in local memory and writes them: no global atomics, no clear kernel, one launch. */
#include "hist/hist_rule.h"

#define NBINS (PIMG_HIST_BINS * PIMG_CHANNELS)

inline void pimg_count_owned(__local uint* own, int slot, int first) {
  const int k = slot - first;
  if (k >= 0 && k < BPG) atomic_inc(&own[k]);
}

/* Samples i.. i + 3 in `word`, the first of channel c; returns the channel of sample i + 4. */
inline int pimg_owned_word(__local uint* own, uint word, int c, int i, int first) {
  for (int j = 0; j < 4; ++j) {
    pimg_count_owned(own, (c << 8) + ((word >> (8 * j)) & 0xffu), first);
    c = PIMG_HIST_NEXT(c, i + j);
  }
  return c;
}

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void hist_outpart(__global const uchar* in, __global uint* bins, int samples) {
  __local uint own[BPG];
  const int lid = get_local_id(0);
  const int first = get_group_id(0) * BPG;
  for (int i = lid; i < BPG; i += BLOCK) own[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
#if VEC == 4
  const int nvec = samples / 4;
  __global const uint* v = (__global const uint*)in;
  for (int i = lid; i < nvec; i += BLOCK) pimg_owned_word(own, v[i], PIMG_HIST_CHANNEL(i * 4), i * 4, first);
#elif VEC == 16
  const int nvec = samples / 16;
  __global const uint4* v = (__global const uint4*)in;
  for (int i = lid; i < nvec; i += BLOCK) {
    const uint4 q = v[i];
    int c = PIMG_HIST_CHANNEL(i * 16);
    c = pimg_owned_word(own, q.x, c, i * 16, first);
    c = pimg_owned_word(own, q.y, c, i * 16 + 4, first);
    c = pimg_owned_word(own, q.z, c, i * 16 + 8, first);
    pimg_owned_word(own, q.w, c, i * 16 + 12, first);
  }
#elif VEC == 1
  const int nvec = 0;
#else
#error "VEC must be 1, 4 or 16"
#endif
  for (int i = nvec * VEC + lid; i < samples; i += BLOCK)
    pimg_count_owned(own, (PIMG_HIST_CHANNEL(i) << 8) + in[i], first);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = lid; i < BPG; i += BLOCK) bins[first + i] = own[i];
}
