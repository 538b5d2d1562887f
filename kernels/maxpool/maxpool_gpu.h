/* 2x2 max pooling, stride 2, on OpenCL and CUDA (one text, see common/pix_portable.h). An image is
   PLANES planes of height rows of width pixels of SAMPLES samples (planar: C planes of 1 sample;
   interleaved: 1 plane of C samples); output pixel (x, y) of each channel is the largest of input
   pixels (2x, 2y), (2x+1, 2y), (2x, 2y+1), (2x+1, 2y+1); an odd last column or row is not read.
   Every entry takes (in, out, width, height, out_width, out_height):
   - maxpool_direct: PIXELS output pixels per thread, 2-D grid over x and every plane's output rows;
   - maxpool_vec16: GROUPS groups of 16 output pixels per thread (block-strided along x); each group
     reads 2*SAMPLES 16-byte vectors from each of its two input rows, takes the byte-wise maximum of the
     rows, then of neighbouring pixels (shifted words), packs the 16*SAMPLES output bytes and writes
     SAMPLES 16-byte vectors; byte path when rows are not 16-byte aligned and for the last partial group;
   - maxpool_tree: seed 003's tree formulation: each thread of a BLOCK_X x BLOCK_Y block (both even)
     stages one input pixel in local memory; the even columns take the maximum of each horizontal pair
     (t1, t2), then the even rows the maximum of t1 and t2, with a barrier between the levels that
     every thread reaches. */
#include "common/pix_portable.h"

#if !defined(PIMG_CHANNELS) || !defined(PIMG_PLANAR) || !defined(PIXELS) || !defined(GROUPS)
#error "maxpool kernels need PIMG_CHANNELS, PIMG_PLANAR, PIXELS and GROUPS"
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
