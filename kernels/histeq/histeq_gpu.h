/* histeq on OpenCL and CUDA (one text, hist/hist_portable.h; seed 000 done right): the entries a pipeline chains.
 *   histeq_clear  zeroes the 256-bin histogram (fused pipeline, whose histogram kernel adds with atomics);
 *   histeq_hist   GROUPS groups of HIST_BLOCK items count VEC-byte loads into COPIES local sub-histograms (one
 *                 per warp when COPIES = HIST_BLOCK / 32), initialised cooperatively by every item (seed 000 let
 *                 one item do it: the trap), then MERGE 0 writes the group's 256 bins to partials[group * 256 + b],
 *                 MERGE 1 adds them to hist[b] with global atomics; INTERLEAVED 0 keeps each copy's bins
 *                 contiguous (copy r of bin b at r * 256 + b), INTERLEAVED 1 interleaves them (b * COPIES + r)
 *                 with item i counting into copy i % COPIES: with COPIES = 32 a warp's atomics are
 *                 bank-conflict-free;
 *   histeq_lut    one group of 256 items: bin b sums the partials (or reads hist[b]), a local scan gives
 *                 the CDF, and every item writes lut[b] under histeq_rule.h;
 *   histeq_map    every group loads the LUT into local memory (LUT_IN_MAP 1: builds it there from hist,
 *                 the fused pipeline) and maps MAP_VEC-byte vectors of the image, strided over the range;
 *                 MAP_REVERSE 1 walks the vectors from the last: histeq_hist's range strides forward, so the
 *                 image's end is what it read last and what a large cache (the L2) still holds, and mapping it
 *                 first turns part of the map's reads into cache hits. */
#include "hist/hist_portable.h"
#include "histeq/histeq_rule.h"

PIX_KERNEL void histeq_clear(PIX_GLOBAL uint* hist) {
  const int i = HIST_GID(0);
  if (i < 256) hist[i] = 0;
}

#ifdef HIST_BLOCK
#if INTERLEAVED
#define STEP COPIES
#else
#define STEP 1
#endif

/* Counts the 4 bytes of w into the sub-histogram whose bin b is at h[b * STEP]. */
PIX_FN void histeq_count_word(PIX_LOCAL_PTR uint* h, uint w) {
  HIST_INC(&h[(w & 0xffu) * STEP]);
  HIST_INC(&h[((w >> 8) & 0xffu) * STEP]);
  HIST_INC(&h[((w >> 16) & 0xffu) * STEP]);
  HIST_INC(&h[(w >> 24) * STEP]);
}

PIX_KERNEL HIST_BOUNDS(HIST_BLOCK) void histeq_hist(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uint* dst,
                                                    int n) {
  PIX_LOCAL uint sub[COPIES * 256];
  const int lid = PIX_LID(0);
  for (int i = lid; i < COPIES * 256; i += HIST_BLOCK) sub[i] = 0;
  PIX_BARRIER();
#if INTERLEAVED
  PIX_LOCAL_PTR uint* mine = sub + lid % COPIES;
#else
  PIX_LOCAL_PTR uint* mine = sub + (lid * COPIES / HIST_BLOCK) * 256;
#endif
  const int stride = HIST_GROUPS * HIST_BLOCK;
  const int id = PIX_GROUP(0) * HIST_BLOCK + lid;
#if VEC == 16
  const int nvec = n / 16;
  PIX_GLOBAL const uint4* v = (PIX_GLOBAL const uint4*)in;
  for (int i = id; i < nvec; i += stride) {
    const uint4 q = HIST_LDG(v + i);
    histeq_count_word(mine, q.x);
    histeq_count_word(mine, q.y);
    histeq_count_word(mine, q.z);
    histeq_count_word(mine, q.w);
  }
#elif VEC == 4
  const int nvec = n / 4;
  PIX_GLOBAL const uint* v = (PIX_GLOBAL const uint*)in;
  for (int i = id; i < nvec; i += stride) histeq_count_word(mine, HIST_LDG(v + i));
#else
#error "VEC must be 4 or 16"
#endif
  for (int i = nvec * VEC + id; i < n; i += stride) HIST_INC(&mine[in[i] * STEP]);
  PIX_BARRIER();
  for (int b = lid; b < 256; b += HIST_BLOCK) {
    uint total = 0;
#if INTERLEAVED
    /* Each item starts at copy b % COPIES so that consecutive items read distinct banks. */
#pragma unroll
    for (int r = 0; r < COPIES; ++r) total += sub[b * COPIES + (r + b) % COPIES];
#else
#pragma unroll
    for (int r = 0; r < COPIES; ++r) total += sub[r * 256 + b];
#endif
#if MERGE == 0
    dst[PIX_GROUP(0) * 256 + b] = total;
#else
    if (total) HIST_ADD(&dst[b], total);
#endif
  }
}
#endif

/* Items 0..255 of a group of at least 256 hold cdf[lid] = count of bin lid on entry; on return cdf is
 * the inclusive scan and lut[b] the rule's value for every bin. Called by every item of the group. */
PIX_FN void histeq_build_lut(PIX_LOCAL_PTR uint* cdf, PIX_LOCAL_PTR uchar* lut, PIX_LOCAL_PTR int* lo, int total) {
  const int lid = PIX_LID(0);
  for (int off = 1; off < 256; off <<= 1) {
    const uint add = (lid < 256 && lid >= off) ? cdf[lid - off] : 0u;
    PIX_BARRIER();
    if (lid < 256) cdf[lid] += add;
    PIX_BARRIER();
  }
  if (lid < 256 && cdf[lid] > 0u && (lid == 0 || cdf[lid - 1] == 0u)) *lo = lid;
  PIX_BARRIER();
  if (lid < 256) lut[lid] = (uchar)pimg_histeq_value(lid, *lo, (int)cdf[*lo], (int)cdf[lid], total);
  PIX_BARRIER();
}

/* src: GROUPS x 256 partial histograms (MERGE 0) or the 256-bin histogram (MERGE 1). */
PIX_KERNEL HIST_BOUNDS(256) void histeq_lut(PIX_GLOBAL const uint* src, PIX_GLOBAL uchar* lut_out, int groups,
                                            int total) {
  PIX_LOCAL uint cdf[256];
  PIX_LOCAL uchar lut[256];
  PIX_LOCAL int lo;
  const int b = PIX_LID(0);
  uint sum = 0;
  for (int g = 0; g < groups; ++g) sum += src[g * 256 + b];
  cdf[b] = sum;
  PIX_BARRIER();
  histeq_build_lut(cdf, lut, &lo, total);
  lut_out[b] = lut[b];
}

#ifdef MAP_BLOCK
/* The 4 bytes of w, each through the LUT. */
PIX_FN uint histeq_map_word(PIX_LOCAL_PTR const uchar* lut, uint w) {
  return (uint)lut[w & 0xffu] | ((uint)lut[(w >> 8) & 0xffu] << 8) | ((uint)lut[(w >> 16) & 0xffu] << 16) |
         ((uint)lut[w >> 24] << 24);
}

/* table: the 256-byte LUT (LUT_IN_MAP 0) or the 256-bin histogram (LUT_IN_MAP 1). */
PIX_KERNEL HIST_BOUNDS(MAP_BLOCK) void histeq_map(PIX_GLOBAL const uchar* PIX_RESTRICT in,
                                                  PIX_GLOBAL const uchar* PIX_RESTRICT table,
                                                  PIX_GLOBAL uchar* PIX_RESTRICT out, int n, int total) {
  PIX_LOCAL uchar lut[256];
  const int lid = PIX_LID(0);
#if LUT_IN_MAP
  PIX_LOCAL uint cdf[256];
  PIX_LOCAL int lo;
  PIX_GLOBAL const uint* hist = (PIX_GLOBAL const uint*)table;
  for (int i = lid; i < 256; i += MAP_BLOCK) cdf[i] = hist[i];
  PIX_BARRIER();
  histeq_build_lut(cdf, lut, &lo, total);
#else
  for (int i = lid; i < 256; i += MAP_BLOCK) lut[i] = table[i];
  PIX_BARRIER();
#endif
  const int stride = HIST_GROUPS * MAP_BLOCK;
  const int id = PIX_GROUP(0) * MAP_BLOCK + lid;
#if MAP_VEC == 16
  const int nvec = n / 16;
  PIX_GLOBAL const uint4* v = (PIX_GLOBAL const uint4*)in;
  PIX_GLOBAL uint4* o = (PIX_GLOBAL uint4*)out;
  for (int k = id; k < nvec; k += stride) {
    const int i = MAP_REVERSE ? nvec - 1 - k : k;
    const uint4 q = HIST_LDG(v + i);
    uint4 r;
    r.x = histeq_map_word(lut, q.x);
    r.y = histeq_map_word(lut, q.y);
    r.z = histeq_map_word(lut, q.z);
    r.w = histeq_map_word(lut, q.w);
    o[i] = r;
  }
#elif MAP_VEC == 4
  const int nvec = n / 4;
  PIX_GLOBAL const uint* v = (PIX_GLOBAL const uint*)in;
  PIX_GLOBAL uint* o = (PIX_GLOBAL uint*)out;
  for (int k = id; k < nvec; k += stride) {
    const int i = MAP_REVERSE ? nvec - 1 - k : k;
    o[i] = histeq_map_word(lut, HIST_LDG(v + i));
  }
#else
#error "MAP_VEC must be 4 or 16"
#endif
  for (int i = nvec * MAP_VEC + id; i < n; i += stride) out[i] = lut[in[i]];
}
#endif
