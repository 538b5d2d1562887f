/* Max pooling, stride = window (2x2; 3x3 and 4x4 in maxpool_direct and maxpool_tree), on OpenCL and CUDA
   (one text, see common/pix_portable.h). An image is
   PLANES planes of height rows of width pixels of SAMPLES samples (planar: C planes of 1 sample;
   interleaved: 1 plane of C samples); output pixel (x, y) of each channel is the largest of input
   pixels (2x, 2y), (2x+1, 2y), (2x, 2y+1), (2x+1, 2y+1); an odd last column or row is not read.
   Every entry takes (in, out, width, height, out_width, out_height):
   - maxpool_direct: PIXELS output pixels per thread, 2-D grid over x and every plane's output rows;
   - maxpool_vec16: GROUPS groups of 16 output pixels per thread (block-strided along x); each group
     reads 2*SAMPLES 16-byte vectors from each of its two input rows, takes the byte-wise maximum of the
     rows, then of neighbouring pixels (shifted words), packs the 16*SAMPLES output bytes and writes
     SAMPLES 16-byte vectors; byte path when rows are not 16-byte aligned and for the last partial group;
   - maxpool_rgb (3 samples per pixel only): each block row pools a tile of BLOCK_X*GROUPS units of 16
     input pixels (48 bytes, three 16-byte vectors per input row; 8 output pixels, 24 bytes). The block
     reads the tile's two rows with warp-contiguous 16-byte loads, keeps their byte-wise maximum in local
     memory, each thread turns its units' 12 words into 6 output words with 20 byte permutes and 6 packed
     maxima (pool_rgb8), and the block writes the tile with contiguous 16-byte stores; byte path for a
     partial last tile and for rows not 16-byte aligned;
   - maxpool_tree: seed 003's tree formulation: each thread of a BLOCK_X x BLOCK_Y block (both even)
     stages one input pixel in local memory; the even columns take the maximum of each horizontal pair
     (t1, t2), then the even rows the maximum of t1 and t2, with a barrier between the levels that
     every thread reaches. */
#include "common/pix_portable.h"

#if !defined(PIMG_CHANNELS) || !defined(PIMG_PLANAR) || !defined(PIXELS) || !defined(GROUPS)
#error "maxpool kernels need PIMG_CHANNELS, PIMG_PLANAR, PIXELS and GROUPS"
#endif

/* The window side (stride = window): 2 unless the problem says 3 or 4. maxpool_direct and maxpool_tree pool
   any of them; the other entries 2x2 only (their plans refuse larger windows). */
#ifndef PIMG_WINDOW
#define PIMG_WINDOW 2
#endif

#define PLANES (PIMG_PLANAR ? PIMG_CHANNELS : 1)
#define SAMPLES (PIMG_PLANAR ? 1 : PIMG_CHANNELS)

/* Output pixel x of output row r (plane r / out_height) from the byte rows in0 and in1 below it. */
PIX_FN void pool_pixel(PIX_GLOBAL const uchar* PIX_RESTRICT in0, PIX_GLOBAL const uchar* PIX_RESTRICT in1,
                       PIX_GLOBAL uchar* PIX_RESTRICT o, int x) {
#pragma unroll
  for (int c = 0; c < SAMPLES; ++c) {
    const uint a = in0[2 * x * SAMPLES + c], b = in0[(2 * x + 1) * SAMPLES + c];
    const uint d = in1[2 * x * SAMPLES + c], e = in1[(2 * x + 1) * SAMPLES + c];
    o[x * SAMPLES + c] = (uchar)PIX_MAXU(PIX_MAXU(a, b), PIX_MAXU(d, e));
  }
}

#if PIMG_WINDOW != 2
/* Output pixel x from the PIMG_WINDOW input rows from `top` on, `row` bytes apart. */
PIX_FN void pool_window(PIX_GLOBAL const uchar* PIX_RESTRICT top, uint row, PIX_GLOBAL uchar* PIX_RESTRICT o, int x) {
#pragma unroll
  for (int c = 0; c < SAMPLES; ++c) {
    uint m = 0;
#pragma unroll
    for (int dy = 0; dy < PIMG_WINDOW; ++dy)
#pragma unroll
      for (int dx = 0; dx < PIMG_WINDOW; ++dx) m = PIX_MAXU(m, (uint)top[dy * row + (PIMG_WINDOW * x + dx) * SAMPLES + c]);
    o[x * SAMPLES + c] = (uchar)m;
  }
}

PIX_KERNEL void maxpool_direct(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                               int height, int out_width, int out_height) {
  const int x0 = PIX_GID_X * PIXELS, r = PIX_GID_Y;
  if (x0 < out_width && r < PLANES * out_height) {
    const int p = r / out_height, oy = r % out_height;
    const uint row = (uint)width * SAMPLES;
    PIX_GLOBAL const uchar* top = in + ((uint)p * height + PIMG_WINDOW * oy) * row;
    PIX_GLOBAL uchar* o = out + (uint)r * (uint)out_width * SAMPLES;
#pragma unroll
    for (int i = 0; i < PIXELS; ++i)
      if (x0 + i < out_width) pool_window(top, row, o, x0 + i);
  }
}
#else
PIX_KERNEL void maxpool_direct(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                               int height, int out_width, int out_height) {
  const int x0 = PIX_GID_X * PIXELS, r = PIX_GID_Y;
  if (x0 < out_width && r < PLANES * out_height) {
    const int p = r / out_height, oy = r % out_height;
    PIX_GLOBAL const uchar* in0 = in + ((uint)p * height + 2 * oy) * (uint)width * SAMPLES;
    PIX_GLOBAL const uchar* in1 = in0 + (uint)width * SAMPLES;
    PIX_GLOBAL uchar* o = out + (uint)r * (uint)out_width * SAMPLES;
#pragma unroll
    for (int i = 0; i < PIXELS; ++i)
      if (x0 + i < out_width) pool_pixel(in0, in1, o, x0 + i);
  }
}
#endif

#define VW (8 * SAMPLES) /* input words per row of a group: 32 pixels of SAMPLES bytes */

PIX_KERNEL void maxpool_vec16(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                              int height, int out_width, int out_height) {
  const int r = PIX_GID_Y;
  if (r >= PLANES * out_height) return;
  const int p = r / out_height, oy = r % out_height;
  PIX_GLOBAL const uchar* in0 = in + ((uint)p * height + 2 * oy) * (uint)width * SAMPLES;
  PIX_GLOBAL const uchar* in1 = in0 + (uint)width * SAMPLES;
  PIX_GLOBAL uchar* o = out + (uint)r * (uint)out_width * SAMPLES;
  const int aligned = (width * SAMPLES) % 16 == 0 && (out_width * SAMPLES) % 16 == 0;
  const int groups = (out_width + 15) / 16;
  const int base = PIX_GROUP(0) * BLOCK_X * GROUPS + PIX_LID(0);
#pragma unroll
  for (int k = 0; k < GROUPS; ++k) {
    const int g = base + k * BLOCK_X;
    if (g >= groups) break;
    if (aligned && 16 * g + 16 <= out_width) {
      uint a[VW], b[VW], h[VW], w[4 * SAMPLES];
      PIX_GLOBAL const uint4* s0 = (PIX_GLOBAL const uint4*)(in0 + 32 * SAMPLES * g);
      PIX_GLOBAL const uint4* s1 = (PIX_GLOBAL const uint4*)(in1 + 32 * SAMPLES * g);
#pragma unroll
      for (int v = 0; v < 2 * SAMPLES; ++v) {
        PIX_LOAD16(a, v, s0 + v);
        PIX_LOAD16(b, v, s1 + v);
      }
#pragma unroll
      for (int i = 0; i < VW; ++i) a[i] = PIX_VMAX4(a[i], b[i]); /* the two rows */
      /* h byte j = max(row byte j, row byte j + SAMPLES): the horizontal pair when j is a left pixel's */
#pragma unroll
      for (int i = 0; i < VW; ++i)
        h[i] = PIX_VMAX4(a[i], (a[i] >> (8 * SAMPLES)) | (i + 1 < VW ? a[i + 1] << (32 - 8 * SAMPLES) : 0u));
#pragma unroll
      for (int m = 0; m < 4 * SAMPLES; ++m) {
        uint by[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int ob = 4 * m + j; /* output byte: pixel ob / SAMPLES, channel ob % SAMPLES */
          by[j] = PIX_BYTE(h, 2 * SAMPLES * (ob / SAMPLES) + ob % SAMPLES);
        }
        w[m] = PIX_WORD(by[0], by[1], by[2], by[3]);
      }
      PIX_GLOBAL uint4* dst = (PIX_GLOBAL uint4*)(o + 16 * SAMPLES * g);
#pragma unroll
      for (int v = 0; v < SAMPLES; ++v) PIX_STORE16(dst + v, w, v);
    } else {
      for (int x = 16 * g; x < out_width && x < 16 * g + 16; ++x) pool_pixel(in0, in1, o, x);
    }
  }
}

#if SAMPLES == 3 && defined(RGB_KERNEL) /* only in cl_rgb / cuda_rgb plans: its staging grows with the block */
/* 8 output pixels (3 words) from the 6 words of 8 input pixel pairs, already the maximum of the two rows:
   output byte k (pixel k / 3, channel k % 3) is the maximum of bytes L = 6 (k / 3) + k % 3 and L + 3.
   Each output word gathers its four L bytes and its four R bytes with byte permutes (selector nibbles
   index the 8 bytes hi:lo), then one packed maximum. */
PIX_FN void pool_rgb8(const uint* h, uint* o) {
  const uint l0 = PIX_PERM(h[0], h[1], 0x6210);                          /* bytes 0 1 2 6 */
  const uint r0 = PIX_PERM(PIX_PERM(h[0], h[1], 0x0543), h[2], 0x5210);  /* 3 4 5 9 */
  const uint l1 = PIX_PERM(PIX_PERM(h[1], h[2], 0x0043), h[3], 0x5410);  /* 7 8 12 13 */
  const uint r1 = PIX_PERM(PIX_PERM(h[2], h[3], 0x0732), h[4], 0x4210);  /* 10 11 15 16 */
  const uint l2 = PIX_PERM(PIX_PERM(h[3], h[4], 0x0762), h[5], 0x4210);  /* 14 18 19 20 */
  const uint r2 = PIX_PERM(h[4], h[5], 0x7651);                          /* 17 21 22 23 */
  o[0] = PIX_VMAX4(l0, r0);
  o[1] = PIX_VMAX4(l1, r1);
  o[2] = PIX_VMAX4(l2, r2);
}

#define TILE (BLOCK_X * GROUPS) /* units of 16 input pixels (48 bytes per row, 24 output bytes) per block row */

PIX_KERNEL void maxpool_rgb(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                            int height, int out_width, int out_height) {
  PIX_LOCAL uint4 rows[BLOCK_Y][3 * TILE];    /* byte-wise maximum of the tile's two input rows */
  PIX_LOCAL uint4 pooled[BLOCK_Y][3 * TILE / 2]; /* the tile's output row (TILE is even) */
  const int lx = PIX_LID(0), ly = PIX_LID(1);
  /* Rows past the output (interleaved: one plane) pool the last row again and store nothing, so that
     every pointer stays inside the buffers. */
  const int live = PIX_GID_Y < out_height, r = live ? PIX_GID_Y : out_height - 1;
  PIX_GLOBAL const uchar* in0 = in + 2 * (uint)r * (uint)width * 3;
  PIX_GLOBAL const uchar* in1 = in0 + (uint)width * 3;
  PIX_GLOBAL uchar* o = out + (uint)r * (uint)out_width * 3;
  const int x0 = PIX_GROUP(0) * TILE * 8; /* the tile's first output pixel */
  /* The same answer for the whole block, so every thread reaches the barriers below or none does. */
  const int vector = width % 32 == 0 && x0 + TILE * 8 <= out_width;
  if (vector) {
    PIX_GLOBAL const uint4* s0 = (PIX_GLOBAL const uint4*)(in0 + 48 * (uint)(x0 / 8));
    PIX_GLOBAL const uint4* s1 = (PIX_GLOBAL const uint4*)(in1 + 48 * (uint)(x0 / 8));
    uint4 a[3 * GROUPS], b[3 * GROUPS]; /* every load issued before the first maximum */
#pragma unroll
    for (int v = 0; v < 3 * GROUPS; ++v) {
      a[v] = s0[lx + v * BLOCK_X];
      b[v] = s1[lx + v * BLOCK_X];
    }
#pragma unroll
    for (int v = 0; v < 3 * GROUPS; ++v) rows[ly][lx + v * BLOCK_X] = pix_vmax16(a[v], b[v]);
    PIX_BARRIER();
#pragma unroll
    for (int u = 0; u < GROUPS; ++u) {
      const int j = lx + u * BLOCK_X; /* unit j of the tile: vectors 3j..3j+2, output words 6j..6j+5 */
      const uint4 v0 = rows[ly][3 * j], v1 = rows[ly][3 * j + 1], v2 = rows[ly][3 * j + 2];
      const uint h[12] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w, v2.x, v2.y, v2.z, v2.w};
      uint w[6];
      pool_rgb8(h, w);
      pool_rgb8(h + 6, w + 3);
      PIX_LOCAL_PTR uint* dst = (PIX_LOCAL_PTR uint*)pooled[ly] + 6 * j;
#pragma unroll
      for (int i = 0; i < 6; ++i) dst[i] = w[i];
    }
    PIX_BARRIER();
    if (live) {
      PIX_GLOBAL uint4* d = (PIX_GLOBAL uint4*)(o + 24 * (uint)(x0 / 8));
      for (int i = lx; i < 3 * TILE / 2; i += BLOCK_X) d[i] = pooled[ly][i];
    }
  } else if (live) {
    for (int x = x0 + lx; x < out_width && x < x0 + TILE * 8; x += BLOCK_X) pool_pixel(in0, in1, o, x);
  }
}
#endif

#if PIMG_WINDOW != 2
/* Windows of 3 and 4: the same staging, then levels of pairs: along x, column lx % W == j (j a multiple of 2s)
   takes the maximum of itself and column j + s while j + s < W (s = 1, 2), a barrier after each level; then
   the same along y; the window's first thread writes. Every thread reaches every barrier. */
PIX_KERNEL void maxpool_tree(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                             int height, int out_width, int out_height) {
  PIX_LOCAL uchar tile[BLOCK_Y][BLOCK_X * SAMPLES];
  const int lx = PIX_LID(0), ly = PIX_LID(1);
  const int gx = PIX_GID_X, gy = PIX_GID_Y; /* input column; row over every plane's W*out_height rows */
  const int p = gy / (PIMG_WINDOW * out_height), iy = gy % (PIMG_WINDOW * out_height);
  const int inside = gx < PIMG_WINDOW * out_width && p < PLANES;
  const int jx = lx % PIMG_WINDOW, jy = ly % PIMG_WINDOW;
  if (inside) {
#pragma unroll
    for (int c = 0; c < SAMPLES; ++c)
      tile[ly][lx * SAMPLES + c] = in[(((uint)p * height + iy) * (uint)width + gx) * SAMPLES + c];
  }
  PIX_BARRIER();
#pragma unroll
  for (int s = 1; s < PIMG_WINDOW; s *= 2) {
    if (inside && jx % (2 * s) == 0 && jx + s < PIMG_WINDOW) {
#pragma unroll
      for (int c = 0; c < SAMPLES; ++c)
        tile[ly][lx * SAMPLES + c] =
            (uchar)PIX_MAXU((uint)tile[ly][lx * SAMPLES + c], (uint)tile[ly][(lx + s) * SAMPLES + c]);
    }
    PIX_BARRIER();
  }
#pragma unroll
  for (int s = 1; s < PIMG_WINDOW; s *= 2) {
    if (inside && jx == 0 && jy % (2 * s) == 0 && jy + s < PIMG_WINDOW) {
#pragma unroll
      for (int c = 0; c < SAMPLES; ++c)
        tile[ly][lx * SAMPLES + c] =
            (uchar)PIX_MAXU((uint)tile[ly][lx * SAMPLES + c], (uint)tile[ly + s][lx * SAMPLES + c]);
    }
    PIX_BARRIER();
  }
  if (inside && jx == 0 && jy == 0) {
#pragma unroll
    for (int c = 0; c < SAMPLES; ++c)
      out[(((uint)p * out_height + iy / PIMG_WINDOW) * (uint)out_width + gx / PIMG_WINDOW) * SAMPLES + c] =
          tile[ly][lx * SAMPLES + c];
  }
}
#else
PIX_KERNEL void maxpool_tree(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                             int height, int out_width, int out_height) {
  PIX_LOCAL uchar tile[BLOCK_Y][BLOCK_X * SAMPLES];
  const int lx = PIX_LID(0), ly = PIX_LID(1);
  const int gx = PIX_GID_X, gy = PIX_GID_Y; /* input column; row over every plane's 2*out_height rows */
  const int p = gy / (2 * out_height), iy = gy % (2 * out_height);
  const int inside = gx < 2 * out_width && p < PLANES;
  if (inside) {
#pragma unroll
    for (int c = 0; c < SAMPLES; ++c)
      tile[ly][lx * SAMPLES + c] = in[(((uint)p * height + iy) * (uint)width + gx) * SAMPLES + c];
  }
  PIX_BARRIER();
  if (inside && (lx & 1) == 0) {
#pragma unroll
    for (int c = 0; c < SAMPLES; ++c)
      tile[ly][lx * SAMPLES + c] = (uchar)PIX_MAXU((uint)tile[ly][lx * SAMPLES + c], (uint)tile[ly][(lx + 1) * SAMPLES + c]);
  }
  PIX_BARRIER();
  if (inside && (lx & 1) == 0 && (ly & 1) == 0) {
#pragma unroll
    for (int c = 0; c < SAMPLES; ++c)
      out[(((uint)p * out_height + iy / 2) * (uint)out_width + gx / 2) * SAMPLES + c] =
          (uchar)PIX_MAXU((uint)tile[ly][lx * SAMPLES + c], (uint)tile[ly + 1][lx * SAMPLES + c]);
  }
}
#endif
