/* flip about the vertical axis (x -> width-1-x) on OpenCL and CUDA (one text, see common/pix_portable.h).
   An image is PLANES planes of height rows of width pixels of SAMPLES samples (planar: C planes of 1 sample;
   interleaved: 1 plane of C samples). Out of place, taking (in, out, width, height):
   - flip_out: PIXELS pixels per thread, byte copies, 2-D grid over x and every plane's rows;
   - flip_vec16: GROUPS groups of 16 pixels per thread (block-strided along x), each read and written
     with SAMPLES 16-byte vectors and reversed in registers; byte path when rows are not 16-byte aligned;
   - flip_staged16: the same groups, but a block's BLOCK_X*GROUPS groups of each of its rows pass through local
     (shared) memory: read as one contiguous span with coalesced 16-byte loads, reversed in registers, written
     back and stored as one contiguous span. With 3 samples a thread's own 16-byte vectors lie 48 bytes apart,
     so flip_vec16's warps read and write a third of each 48-byte stretch per instruction; here each
     instruction moves whole consecutive vectors. Blocks whose span is partial (the row's last) take
     flip_vec16's per-thread path. Compiled only with STAGE 1.
   In place (seed 002), taking (in, out, width, height): the output starts poisoned, so each block first
   copies its BLOCK_Y rows from in to out (16-byte vectors when rows are 16-byte aligned), waits at a
   barrier every thread reaches, then swaps in place within out, BLOCK_X threads per row:
   - flip_inplace: pixel pairs (x, width-1-x), x < width/2, strided by BLOCK_X;
   - flip_inplace_vec16: group g of 16 pixels and its mirror group swapped and reversed with 16-byte
     vectors (the middle group of an odd count reversed onto itself). */
#include "common/pix_portable.h"

#if !defined(PIMG_CHANNELS) || !defined(PIMG_PLANAR) || !defined(PIXELS) || !defined(GROUPS)
#error "flip kernels need PIMG_CHANNELS, PIMG_PLANAR, PIXELS and GROUPS"
#endif

#define PLANES (PIMG_PLANAR ? PIMG_CHANNELS : 1)
#define SAMPLES (PIMG_PLANAR ? 1 : PIMG_CHANNELS)

PIX_KERNEL void flip_out(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                         int height) {
  const int x0 = PIX_GID_X * PIXELS, r = PIX_GID_Y;
  if (x0 < width && r < PLANES * height) {
    const uint row = (uint)r * (uint)width * SAMPLES;
#pragma unroll
    for (int i = 0; i < PIXELS; ++i) {
      const int x = x0 + i;
      if (x < width) {
#pragma unroll
        for (int c = 0; c < SAMPLES; ++c) out[row + (uint)x * SAMPLES + c] = in[row + (uint)(width - 1 - x) * SAMPLES + c];
      }
    }
  }
}

/* The 16 pixels (16*SAMPLES bytes, 4*SAMPLES words) of w in reverse pixel order into o. */
#define PIX_REVERSE16(o, w)                                                                      \
  _Pragma("unroll") for (int pix_m_ = 0; pix_m_ < 4 * SAMPLES; ++pix_m_) {                            \
    uint pix_by_[4];                                                                             \
    _Pragma("unroll") for (int pix_j_ = 0; pix_j_ < 4; ++pix_j_) {                               \
      const int pix_b_ = 4 * pix_m_ + pix_j_;                                                    \
      pix_by_[pix_j_] = PIX_BYTE(w, (15 - pix_b_ / SAMPLES) * SAMPLES + pix_b_ % SAMPLES);                         \
    }                                                                                            \
    (o)[pix_m_] = PIX_WORD(pix_by_[0], pix_by_[1], pix_by_[2], pix_by_[3]);                      \
  }

/* Output groups base, base+BLOCK_X, ... (GROUPS of them) of the row at byte `row`, each thread on its own. */
PIX_FN void flip_groups(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, uint row,
                        int width, int base) {
  const int groups = (width + 15) / 16;
#pragma unroll
  for (int k = 0; k < GROUPS; ++k) {
    const int g = base + k * BLOCK_X;
    if (g >= groups) break;
    if (width % 16 == 0) {
      uint w[4 * SAMPLES], o[4 * SAMPLES];
      PIX_GLOBAL const uint4* src = (PIX_GLOBAL const uint4*)(in + row + (uint)(width - 16 * g - 16) * SAMPLES);
      PIX_GLOBAL uint4* dst = (PIX_GLOBAL uint4*)(out + row + (uint)(16 * g) * SAMPLES);
#pragma unroll
      for (int v = 0; v < SAMPLES; ++v) PIX_LOAD16(w, v, src + v);
      PIX_REVERSE16(o, w)
#pragma unroll
      for (int v = 0; v < SAMPLES; ++v) PIX_STORE16(dst + v, o, v);
    } else {
      for (int x = 16 * g; x < width && x < 16 * g + 16; ++x)
        for (int c = 0; c < SAMPLES; ++c) out[row + (uint)x * SAMPLES + c] = in[row + (uint)(width - 1 - x) * SAMPLES + c];
    }
  }
}

PIX_KERNEL void flip_vec16(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                           int height) {
  const int r = PIX_GID_Y;
  if (r >= PLANES * height) return;
  flip_groups(in, out, (uint)r * (uint)width * SAMPLES, width, PIX_GROUP(0) * BLOCK_X * GROUPS + PIX_LID(0));
}

#ifndef STAGE
#define STAGE 0
#endif
#if STAGE /* only where planned: its shared array, sized by the block, would fail larger blocks' builds */
#define STAGE_GROUPS (BLOCK_X * GROUPS)

PIX_KERNEL void flip_staged16(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                              int height) {
  PIX_LOCAL uint4 stage[BLOCK_Y][STAGE_GROUPS * SAMPLES];
  const int r = PIX_GID_Y, lx = PIX_LID(0), ly = PIX_LID(1);
  const int active = r < PLANES * height;
  const uint row = (uint)r * (uint)width * SAMPLES;
  const int groups = (width + 15) / 16;
  const int first = PIX_GROUP(0) * STAGE_GROUPS; /* the block's first output group */
  if (width % 16 == 0 && first + STAGE_GROUPS <= groups) { /* uniform in the block: its barriers are reached */
    /* Output groups first .. first+STAGE_GROUPS-1 come from source groups groups-first-STAGE_GROUPS ..
       groups-first-1: one span of STAGE_GROUPS*SAMPLES vectors, in reverse group order. */
    PIX_GLOBAL const uint4* src = (PIX_GLOBAL const uint4*)(in + row) + (groups - first - STAGE_GROUPS) * SAMPLES;
    PIX_GLOBAL uint4* dst = (PIX_GLOBAL uint4*)(out + row) + first * SAMPLES;
    if (active)
      for (int i = lx; i < STAGE_GROUPS * SAMPLES; i += BLOCK_X) stage[ly][i] = src[i];
    PIX_BARRIER();
    uint o[GROUPS][4 * SAMPLES];
#pragma unroll
    for (int k = 0; k < GROUPS; ++k) {
      const int j = k * BLOCK_X + lx; /* output group first+j, staged at STAGE_GROUPS-1-j */
      uint w[4 * SAMPLES];
#pragma unroll
      for (int v = 0; v < SAMPLES; ++v) PIX_LOAD16(w, v, &stage[ly][(STAGE_GROUPS - 1 - j) * SAMPLES + v]);
      PIX_REVERSE16(o[k], w)
    }
    PIX_BARRIER(); /* every read of the stage done before it is overwritten */
#pragma unroll
    for (int k = 0; k < GROUPS; ++k) {
#pragma unroll
      for (int v = 0; v < SAMPLES; ++v) PIX_STORE16(&stage[ly][(k * BLOCK_X + lx) * SAMPLES + v], o[k], v);
    }
    PIX_BARRIER();
    if (active)
      for (int i = lx; i < STAGE_GROUPS * SAMPLES; i += BLOCK_X) dst[i] = stage[ly][i];
  } else if (active) {
    flip_groups(in, out, row, width, first + lx);
  }
}
#endif

/* Pixel x of the row starting at byte `row` swapped with its mirror width-1-x. */
PIX_FN void swap_pixel(PIX_GLOBAL uchar* img, uint row, int x, int width) {
#pragma unroll
  for (int c = 0; c < SAMPLES; ++c) {
    const uint a = row + (uint)x * SAMPLES + c, b = row + (uint)(width - 1 - x) * SAMPLES + c;
    const uchar t = img[a];
    img[a] = img[b];
    img[b] = t;
  }
}

/* Groups g and groups-1-g of 16 pixels of the row at byte `row` (16-byte aligned) swapped, each reversed. */
PIX_FN void swap_groups(PIX_GLOBAL uchar* img, uint row, int g, int width) {
  uint a[4 * SAMPLES], b[4 * SAMPLES], ra[4 * SAMPLES], rb[4 * SAMPLES];
  PIX_GLOBAL uint4* left = (PIX_GLOBAL uint4*)(img + row + (uint)(16 * g) * SAMPLES);
  PIX_GLOBAL uint4* right = (PIX_GLOBAL uint4*)(img + row + (uint)(width - 16 * g - 16) * SAMPLES);
#pragma unroll
  for (int v = 0; v < SAMPLES; ++v) {
    PIX_LOAD16(a, v, left + v);
    PIX_LOAD16(b, v, right + v);
  }
  PIX_REVERSE16(ra, a)
  PIX_REVERSE16(rb, b)
#pragma unroll
  for (int v = 0; v < SAMPLES; ++v) {
    PIX_STORE16(left + v, rb, v);
    PIX_STORE16(right + v, ra, v);
  }
}

/* Block: BLOCK_X threads per row, BLOCK_Y rows; VEC selects the swap of flip_inplace_vec16. */
#define FLIP_INPLACE_BODY(VEC)                                                                        \
  const int r = PIX_GID_Y, lx = PIX_LID(0);                                                           \
  const int active = r < PLANES * height;                                                             \
  const uint row = (uint)r * (uint)width * SAMPLES;                                                   \
  const int row_bytes = width * SAMPLES;                                                              \
  if (active) {                                                                                       \
    if (row_bytes % 16 == 0) {                                                                        \
      for (int v = lx; v < row_bytes / 16; v += BLOCK_X)                                              \
        ((PIX_GLOBAL uint4*)(out + row))[v] = ((PIX_GLOBAL const uint4*)(in + row))[v];               \
    } else {                                                                                          \
      for (int i = lx; i < row_bytes; i += BLOCK_X) out[row + i] = in[row + i];                       \
    }                                                                                                 \
  }                                                                                                   \
  PIX_BARRIER_GLOBAL(); /* outside any branch: every thread of the block arrives */                   \
  if (active) {                                                                                       \
    if (VEC && width % 16 == 0) {                                                                     \
      for (int g = lx; g < (width / 16 + 1) / 2; g += BLOCK_X) swap_groups(out, row, g, width);       \
    } else {                                                                                          \
      for (int x = lx; x < width / 2; x += BLOCK_X) swap_pixel(out, row, x, width);                   \
    }                                                                                                 \
  }

PIX_KERNEL void flip_inplace(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                             int height) {
  FLIP_INPLACE_BODY(0)
}

PIX_KERNEL void flip_inplace_vec16(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out,
                                   int width, int height) {
  FLIP_INPLACE_BODY(1)
}
