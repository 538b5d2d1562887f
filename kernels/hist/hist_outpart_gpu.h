/* hist: output partition (seed 002's fourth variant) on OpenCL and CUDA (one text, hist_portable.h): work-group
   g owns the BPG bins starting at g * BPG of the 256 x channels slots, reads the whole input in VEC-byte vectors
   (1, 4 or 16 bytes per load), counts only its own bins in local memory and writes them: no global atomics, no
   clear kernel, one launch. */
#include "hist/hist_portable.h"
#include "hist/hist_rule.h"

PIX_FN void hist_count_owned(PIX_LOCAL_PTR uint* own, int slot, int first) {
  const uint k = (uint)(slot - first);
  if (k < (uint)BPG) HIST_INC(&own[k]);
}

/* Samples i.. i + 3 in `word`, the first of channel c; returns the channel of sample i + 4. */
PIX_FN int hist_owned_word(PIX_LOCAL_PTR uint* own, uint word, int c, int i, int first) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    hist_count_owned(own, (c << 8) + ((word >> (8 * j)) & 0xffu), first);
    c = PIMG_HIST_NEXT(c, i + j);
  }
  return c;
}

PIX_KERNEL HIST_BOUNDS(BLOCK) void hist_outpart(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uint* bins,
                                                int samples) {
  PIX_LOCAL uint own[BPG];
  const int lid = PIX_LID(0);
  const int first = PIX_GROUP(0) * BPG;
  for (int i = lid; i < BPG; i += BLOCK) own[i] = 0;
  PIX_BARRIER();
#if VEC == 4
  const int nvec = samples / 4;
  PIX_GLOBAL const uint* v = (PIX_GLOBAL const uint*)in;
  for (int i = lid; i < nvec; i += BLOCK) hist_owned_word(own, HIST_LDG(v + i), PIMG_HIST_CHANNEL(i * 4), i * 4, first);
#elif VEC == 16
  const int nvec = samples / 16;
  PIX_GLOBAL const uint4* v = (PIX_GLOBAL const uint4*)in;
  for (int i = lid; i < nvec; i += BLOCK) {
    const uint4 q = HIST_LDG(v + i);
    int c = PIMG_HIST_CHANNEL(i * 16);
    c = hist_owned_word(own, q.x, c, i * 16, first);
    c = hist_owned_word(own, q.y, c, i * 16 + 4, first);
    c = hist_owned_word(own, q.z, c, i * 16 + 8, first);
    hist_owned_word(own, q.w, c, i * 16 + 12, first);
  }
#elif VEC == 1
  const int nvec = 0;
#else
#error "VEC must be 1, 4 or 16"
#endif
  for (int i = nvec * VEC + lid; i < samples; i += BLOCK) hist_count_owned(own, (PIMG_HIST_CHANNEL(i) << 8) + in[i], first);
  PIX_BARRIER();
  for (int i = lid; i < BPG; i += BLOCK) bins[first + i] = own[i];
}
