/* bgr2rgba on OpenCL and CUDA (one text, see common/pix_portable.h): B G R interleaved bytes in, R G B A
   out with A = PIMG_ALPHA. Entries, all taking (in, out, width, height):
   - bgr2rgba_2d: a 2-D grid, PIXELS consecutive pixels of one row per thread, guarded by x < width && y < height;
   - bgr2rgba_1d: a 1-D grid over width*height pixels, PIXELS consecutive pixels per thread;
     both with TEMP 0 (each output byte written from global input bytes) or TEMP 1 (the pixel read into
     registers first, then one 32-bit store of R G B A);
   - bgr2rgba_staged: 1-D, the block's BLOCK_X*PIXELS pixels staged in local (shared) memory with
     coalesced 32-bit loads, one barrier that every thread reaches, then 32-bit stores;
   - bgr2rgba_vec16: GROUPS groups of 16 pixels per thread, three 16-byte loads and four 16-byte stores
     per group (groups strided by the block for coalescing), byte path for the last partial group;
     with STAGE 1 the block's BLOCK_X*GROUPS groups are loaded as one contiguous span of 16-byte vectors
     into local (shared) memory and each thread converts 4 pixels at a time there into one 16-byte store
     (consecutive threads, consecutive vectors), where STAGE 0's warps touch a third of each 48-byte and a
     quarter of each 64-byte stretch per instruction. A block whose span passes the image's end takes
     STAGE 0's path. */
#include "common/pix_portable.h"

#if !defined(PIMG_ALPHA) || !defined(PIXELS) || !defined(TEMP) || !defined(GROUPS)
#error "bgr2rgba kernels need PIMG_ALPHA, PIXELS, TEMP and GROUPS"
#endif
#ifndef STAGE
#define STAGE 0
#endif

/* Pixel q of the image: B G R at in[3q..3q+2] to R G B A at out[4q..4q+3]. */
PIX_FN void convert_pixel(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, uint q) {
#if TEMP
  const uint b = in[3 * q], g = in[3 * q + 1], r = in[3 * q + 2];
  *(PIX_GLOBAL uint*)(out + 4 * q) = PIX_WORD(r, g, b, PIMG_ALPHA);
#else
  out[4 * q + 0] = in[3 * q + 2];
  out[4 * q + 1] = in[3 * q + 1];
  out[4 * q + 2] = in[3 * q + 0];
  out[4 * q + 3] = (uchar)PIMG_ALPHA;
#endif
}

PIX_KERNEL void bgr2rgba_2d(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                            int height) {
  const int x0 = PIX_GID_X * PIXELS, y = PIX_GID_Y;
  if (x0 < width && y < height) {
#pragma unroll
    for (int i = 0; i < PIXELS; ++i)
      if (x0 + i < width) convert_pixel(in, out, (uint)y * (uint)width + (uint)(x0 + i));
  }
}

PIX_KERNEL void bgr2rgba_1d(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                            int height) {
  const uint n = (uint)width * (uint)height;
  const uint q0 = (uint)PIX_GID_X * PIXELS;
#pragma unroll
  for (int i = 0; i < PIXELS; ++i)
    if (q0 + i < n) convert_pixel(in, out, q0 + i);
}

#define STAGE_PIXELS (BLOCK_X * PIXELS)
#define STAGE_WORDS ((3 * STAGE_PIXELS + 3) / 4)

PIX_KERNEL void bgr2rgba_staged(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                                int height) {
  PIX_LOCAL uint stage[STAGE_WORDS];
  PIX_LOCAL_PTR uchar* bytes = (PIX_LOCAL_PTR uchar*)stage;
  const uint n = (uint)width * (uint)height;
  const uint first = (uint)PIX_GROUP(0) * STAGE_PIXELS; /* the block's first pixel */
  const int lid = PIX_LID(0);
  /* The load is uniform per block: whole 32-bit words when the tile lies inside the image and starts
     on a word (STAGE_PIXELS % 4 == 0 puts every tile there), else bytes with a bound check. */
  if ((STAGE_PIXELS % 4) == 0 && first + STAGE_PIXELS <= n) {
    PIX_GLOBAL const uint* src = (PIX_GLOBAL const uint*)(in + 3 * first);
    for (int i = lid; i < 3 * STAGE_PIXELS / 4; i += BLOCK_X) stage[i] = src[i];
  } else {
    for (int i = lid; i < 3 * STAGE_PIXELS; i += BLOCK_X)
      if (3 * first + i < 3 * n) bytes[i] = in[3 * first + i];
  }
  PIX_BARRIER(); /* outside any branch: every thread of the block arrives */
  for (int k = 0; k < PIXELS; ++k) {
    const int p = k * BLOCK_X + lid;
    if (first + p < n)
      *(PIX_GLOBAL uint*)(out + 4 * (first + p)) = PIX_WORD(bytes[3 * p + 2], bytes[3 * p + 1], bytes[3 * p], PIMG_ALPHA);
  }
}

/* Groups base, base+BLOCK_X, ... (GROUPS of them) of the n pixels, each thread on its own. */
PIX_FN void convert_groups(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, uint n,
                           uint base) {
#pragma unroll
  for (int k = 0; k < GROUPS; ++k) {
    const uint g = base + k * BLOCK_X; /* group of pixels 16g .. 16g+15 */
    if (16 * g + 16 <= n) {
      uint w[12], o[16];
      PIX_GLOBAL const uint4* src = (PIX_GLOBAL const uint4*)(in + 48 * g);
      PIX_LOAD16(w, 0, src);
      PIX_LOAD16(w, 1, src + 1);
      PIX_LOAD16(w, 2, src + 2);
#pragma unroll
      for (int i = 0; i < 16; ++i) o[i] = PIX_WORD(PIX_BYTE(w, 3 * i + 2), PIX_BYTE(w, 3 * i + 1), PIX_BYTE(w, 3 * i), PIMG_ALPHA);
      PIX_GLOBAL uint4* dst = (PIX_GLOBAL uint4*)(out + 64 * g);
      PIX_STORE16(dst, o, 0);
      PIX_STORE16(dst + 1, o, 1);
      PIX_STORE16(dst + 2, o, 2);
      PIX_STORE16(dst + 3, o, 3);
    } else {
      for (uint q = 16 * g; q < n && q < 16 * g + 16; ++q)
        *(PIX_GLOBAL uint*)(out + 4 * q) = PIX_WORD(in[3 * q + 2], in[3 * q + 1], in[3 * q], PIMG_ALPHA);
    }
  }
}

#define STAGE_GROUPS (BLOCK_X * GROUPS)

PIX_KERNEL void bgr2rgba_vec16(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                               int height) {
  const uint n = (uint)width * (uint)height;
  const uint first = (uint)PIX_GROUP(0) * STAGE_GROUPS; /* the block's first group */
  const int lid = PIX_LID(0);
#if STAGE
  PIX_LOCAL uint4 stage[3 * STAGE_GROUPS];
  if (16 * (first + STAGE_GROUPS) <= n) { /* uniform in the block: its barrier is reached */
    PIX_GLOBAL const uint4* src = (PIX_GLOBAL const uint4*)(in + 48 * first);
    PIX_GLOBAL uint4* dst = (PIX_GLOBAL uint4*)(out + 64 * first);
    for (int i = lid; i < 3 * STAGE_GROUPS; i += BLOCK_X) stage[i] = src[i];
    PIX_BARRIER();
    PIX_LOCAL_PTR const uint* words = (PIX_LOCAL_PTR const uint*)stage;
    for (int v = lid; v < 4 * STAGE_GROUPS; v += BLOCK_X) { /* output vector v: pixels 4v .. 4v+3 of the span */
      const uint w[3] = {words[3 * v], words[3 * v + 1], words[3 * v + 2]};
      uint o[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) o[i] = PIX_WORD(PIX_BYTE(w, 3 * i + 2), PIX_BYTE(w, 3 * i + 1), PIX_BYTE(w, 3 * i), PIMG_ALPHA);
      PIX_STORE16(dst + v, o, 0);
    }
    return;
  }
#endif
  convert_groups(in, out, n, first + (uint)lid);
}
