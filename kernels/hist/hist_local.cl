/* hist: input partition (seed 002's third variant, as experts write it): GROUPS work-groups of BLOCK
 * items stride over the input in VEC-byte vectors (1, 4 or 16 bytes per load); each group counts into
 * COPIES local sub-histograms (BLOCK / COPIES consecutive items share one: COPIES = BLOCK / 32 is one
 * per warp), initialised cooperatively by every item, and adds its non-zero bins to the global
 * histogram with atomics at the end. INTERLEAVED as in hist_cuda_shared.cu: 0 keeps each copy's bins
 * contiguous (copy r of slot s at r * NBINS + s), 1 interleaves the copies (s * COPIES + r) with item
 * i counting into copy i % COPIES, so that with COPIES = 32 the items of a warp hit distinct banks. */
#include "hist/hist_cl_common.cl"

#define NBINS (PIMG_HIST_BINS * PIMG_CHANNELS)

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void hist_local(__global const uchar* in, __global uint* bins, int samples) {
  __local uint sub[COPIES * NBINS];
  const int lid = get_local_id(0);
  for (int i = lid; i < COPIES * NBINS; i += BLOCK) sub[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

#if INTERLEAVED
  __local uint* mine = sub + lid % COPIES;
  const int step = COPIES;
#else
  __local uint* mine = sub + (lid * COPIES / BLOCK) * NBINS;
  const int step = 1;
#endif
  const int stride = get_global_size(0);
#if VEC == 1
  for (int i = get_global_id(0); i < samples; i += stride) atomic_inc(&mine[((PIMG_HIST_CHANNEL(i) << 8) + in[i]) * step]);
#else
  const int nvec = samples / VEC;
#if VEC == 4
  __global const uint* v = (__global const uint*)in;
  for (int i = get_global_id(0); i < nvec; i += stride) pimg_count_word_local(mine, step, v[i], PIMG_HIST_CHANNEL(i * 4), i * 4);
#elif VEC == 16
  __global const uint4* v = (__global const uint4*)in;
  for (int i = get_global_id(0); i < nvec; i += stride) pimg_count_vec4_local(mine, step, v[i], PIMG_HIST_CHANNEL(i * 16), i * 16);
#else
#error "VEC must be 1, 4 or 16"
#endif
  for (int i = nvec * VEC + get_global_id(0); i < samples; i += stride)
    atomic_inc(&mine[((PIMG_HIST_CHANNEL(i) << 8) + in[i]) * step]);
#endif
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int b = lid; b < NBINS; b += BLOCK) {
    uint total = 0;
#if INTERLEAVED
    /* Each item starts at copy b % COPIES so that consecutive items read distinct banks. */
    for (int r = 0; r < COPIES; ++r) total += sub[b * COPIES + (r + b) % COPIES];
#else
    for (int r = 0; r < COPIES; ++r) total += sub[r * NBINS + b];
#endif
    if (total) atomic_add(&bins[b], total);
  }
}
