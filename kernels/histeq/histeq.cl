/* histeq on OpenCL (seed 000 done right): the entries a pipeline chains.
 *   histeq_clear  zeroes the 256-bin histogram (fused pipeline, whose histogram kernel adds with atomics);
 *   histeq_hist   GROUPS groups of BLOCK items count VEC-byte loads into COPIES local sub-histograms,
 *                 initialised cooperatively by every item (seed 000 let one item do it: the trap), then
 *                 MERGE 0 writes the group's 256 bins to partials[group * 256 + b], MERGE 1 adds them to
 *                 hist[b] with global atomics; INTERLEAVED 0 keeps each copy's bins contiguous (copy r of
 *                 bin b at r * 256 + b), INTERLEAVED 1 interleaves them (b * COPIES + r) with item i
 *                 counting into copy i % COPIES (distinct banks for the items of a warp when COPIES = 32);
 *   histeq_lut    one group of 256 items: bin b sums the partials (or reads hist[b]), a local scan gives
 *                 the CDF, and every item writes lut[b] under histeq_rule.h;
 *   histeq_map    every group loads the LUT into local memory (LUT_IN_MAP 1: builds it there from hist,
 *                 the fused pipeline) and maps VEC-byte vectors of the image, strided over the range;
 *                 MAP_REVERSE 1 walks the vectors from the last, the bytes histeq_hist read last (its
 *                 range strides forward) and a large cache may still hold. */
#include "histeq/histeq_rule.h"

__kernel void histeq_clear(__global uint* hist) {
  const int i = get_global_id(0);
  if (i < 256) hist[i] = 0;
}

#ifdef HIST_BLOCK
#if INTERLEAVED
#define STEP COPIES
#else
#define STEP 1
#endif

/* Counts the 4 bytes of w into the sub-histogram whose bin b is at h[b * STEP]. */
inline void histeq_count_word(__local uint* h, uint w) {
  atomic_inc(&h[(w & 0xffu) * STEP]);
  atomic_inc(&h[((w >> 8) & 0xffu) * STEP]);
  atomic_inc(&h[((w >> 16) & 0xffu) * STEP]);
  atomic_inc(&h[(w >> 24) * STEP]);
}

__kernel __attribute__((reqd_work_group_size(HIST_BLOCK, 1, 1)))
void histeq_hist(__global const uchar* in, __global uint* dst, int n) {
  __local uint sub[COPIES * 256];
  const int lid = get_local_id(0);
  for (int i = lid; i < COPIES * 256; i += HIST_BLOCK) sub[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
#if INTERLEAVED
  __local uint* mine = sub + lid % COPIES;
#else
  __local uint* mine = sub + (lid * COPIES / HIST_BLOCK) * 256;
#endif
  const int stride = get_global_size(0);
#if VEC == 16
  const int nvec = n / 16;
  __global const uint4* v = (__global const uint4*)in;
  for (int i = get_global_id(0); i < nvec; i += stride) {
    const uint4 q = v[i];
    histeq_count_word(mine, q.x);
    histeq_count_word(mine, q.y);
    histeq_count_word(mine, q.z);
    histeq_count_word(mine, q.w);
  }
#elif VEC == 4
  const int nvec = n / 4;
  __global const uint* v = (__global const uint*)in;
  for (int i = get_global_id(0); i < nvec; i += stride) histeq_count_word(mine, v[i]);
#else
#error "VEC must be 4 or 16"
#endif
  for (int i = nvec * VEC + get_global_id(0); i < n; i += stride) atomic_inc(&mine[in[i] * STEP]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = lid; b < 256; b += HIST_BLOCK) {
    uint total = 0;
#if INTERLEAVED
    /* Each item starts at copy b % COPIES so that consecutive items read distinct banks. */
    for (int r = 0; r < COPIES; ++r) total += sub[b * COPIES + (r + b) % COPIES];
#else
    for (int r = 0; r < COPIES; ++r) total += sub[r * 256 + b];
#endif
#if MERGE == 0
    dst[get_group_id(0) * 256 + b] = total;
#else
    if (total) atomic_add(&dst[b], total);
#endif
  }
}
#endif

/* Items 0..255 of a group of at least 256 hold cdf[lid] = count of bin lid on entry; on return cdf is
 * the inclusive scan and lut[b] the rule's value for every bin. Called by every item of the group. */
inline void histeq_build_lut(__local uint* cdf, __local uchar* lut, __local int* lo, int total) {
  const int lid = get_local_id(0);
  for (int off = 1; off < 256; off <<= 1) {
    const uint add = (lid < 256 && lid >= off) ? cdf[lid - off] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 256) cdf[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid < 256 && cdf[lid] > 0u && (lid == 0 || cdf[lid - 1] == 0u)) *lo = lid;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 256) lut[lid] = (uchar)pimg_histeq_value(lid, *lo, (int)cdf[*lo], (int)cdf[lid], total);
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* src: GROUPS x 256 partial histograms (MERGE 0) or the 256-bin histogram (MERGE 1). */
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void histeq_lut(__global const uint* src, __global uchar* lut_out, int groups, int total) {
  __local uint cdf[256];
  __local uchar lut[256];
  __local int lo;
  const int b = get_local_id(0);
  uint sum = 0;
  for (int g = 0; g < groups; ++g) sum += src[g * 256 + b];
  cdf[b] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  histeq_build_lut(cdf, lut, &lo, total);
  lut_out[b] = lut[b];
}

#ifdef MAP_BLOCK
/* table: the 256-byte LUT (LUT_IN_MAP 0) or the 256-bin histogram (LUT_IN_MAP 1). */
__kernel __attribute__((reqd_work_group_size(MAP_BLOCK, 1, 1)))
void histeq_map(__global const uchar* in, __global const uchar* table, __global uchar* out, int n, int total) {
  __local uchar lut[256];
  const int lid = get_local_id(0);
#if LUT_IN_MAP
  __local uint cdf[256];
  __local int lo;
  __global const uint* hist = (__global const uint*)table;
  for (int i = lid; i < 256; i += MAP_BLOCK) cdf[i] = hist[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  histeq_build_lut(cdf, lut, &lo, total);
#else
  for (int i = lid; i < 256; i += MAP_BLOCK) lut[i] = table[i];
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  const int stride = get_global_size(0);
#if MAP_VEC == 16
  const int nvec = n / 16;
  __global const uint4* v = (__global const uint4*)in;
  __global uint4* o = (__global uint4*)out;
  for (int k = get_global_id(0); k < nvec; k += stride) {
    const int i = MAP_REVERSE ? nvec - 1 - k : k;
    const uchar16 q = as_uchar16(v[i]);
    uchar16 r;
    r.s0 = lut[q.s0]; r.s1 = lut[q.s1]; r.s2 = lut[q.s2]; r.s3 = lut[q.s3];
    r.s4 = lut[q.s4]; r.s5 = lut[q.s5]; r.s6 = lut[q.s6]; r.s7 = lut[q.s7];
    r.s8 = lut[q.s8]; r.s9 = lut[q.s9]; r.sa = lut[q.sa]; r.sb = lut[q.sb];
    r.sc = lut[q.sc]; r.sd = lut[q.sd]; r.se = lut[q.se]; r.sf = lut[q.sf];
    o[i] = as_uint4(r);
  }
#elif MAP_VEC == 4
  const int nvec = n / 4;
  __global const uint* v = (__global const uint*)in;
  __global uint* o = (__global uint*)out;
  for (int k = get_global_id(0); k < nvec; k += stride) {
    const int i = MAP_REVERSE ? nvec - 1 - k : k;
    const uchar4 q = as_uchar4(v[i]);
    o[i] = as_uint((uchar4)(lut[q.x], lut[q.y], lut[q.z], lut[q.w]));
  }
#else
#error "MAP_VEC must be 4 or 16"
#endif
  for (int i = nvec * MAP_VEC + get_global_id(0); i < n; i += stride) out[i] = lut[in[i]];
}
#endif
