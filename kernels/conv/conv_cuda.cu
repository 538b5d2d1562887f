/* CUDA direct KxK convolution from global memory (NVRTC). WIDE 0: conv_cuda_direct, the portable body of
   conv_direct_gpu.h (shared with conv_direct.cl): each thread computes ITEMS_X x ITEMS_Y neighbouring pixels
   (all channels, or with CHANNEL_Z 1 the channel threadIdx.z) through a per-pixel helper, image blockIdx.z of
   a batch. WIDE 1: conv_cuda_wide, each thread computes ITEMS_X 16-byte vectors of an output row (bytes of
   interleaved pixels, or of one plane) for ITEMS_Y rows through a per-vector helper, with 16-byte loads and
   stores where the data allows and byte access at the edges. */
#include "conv/conv_portable.h" /* conv_cuda_common.cuh */

#if !WIDE

#define CONV_DIRECT_ENTRY conv_cuda_direct
#include "conv/conv_direct_gpu.h"

#else

#define SEG (16 + (PIMG_K - 1) * BPP)    /* input bytes of one row that a 16-byte output vector reads */
#define CHUNKS ((SEG + 15 + 15) / 16)    /* aligned 16-byte loads that can cover SEG bytes */

/* seg[j] = byte s + j of the input row y (row coordinates in bytes; s may be negative). Inside the row the
   bytes come from aligned 16-byte loads, which stay in the allocation because the backend pads it to 16
   bytes; a segment crossing the row's ends is read byte by byte with the border rule. */
static __device__ __forceinline__ void load_segment(const uchar* __restrict__ plane, int y, int s, int width,
                                                    uchar* seg) {
  const int row_bytes = width * BPP;
  const uchar* row = plane + (long)y * row_bytes;
  if (s >= 0 && s + SEG <= row_bytes) {
    const unsigned long long first = (unsigned long long)(row + s);
    const uint4* base = (const uint4*)(first & ~15ull);
    const int skip = (int)(first & 15ull);
    const int chunks = (skip + SEG + 15) / 16;
    uint4 buf[CHUNKS];
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i)
      if (i < chunks) buf[i] = __ldg(base + i);
    const uchar* bytes = (const uchar*)buf + skip;
#pragma unroll
    for (int j = 0; j < SEG; ++j) seg[j] = bytes[j];
    return;
  }
#pragma unroll
  for (int j = 0; j < SEG; ++j) {
    const int p = s + j;
    const int ch = ((p % BPP) + BPP) % BPP;
    int x = (p - ch) / BPP;
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
    x = pimg_clamp_int(x, 0, width - 1);
#else
    if (x < 0 || x >= width) { /* zero border; with a valid border only for bytes past the output row */
      seg[j] = 0;
      continue;
    }
#endif
    seg[j] = __ldg(row + x * BPP + ch);
  }
}

/* Output bytes [b0, b0 + 16) of row oy of one plane (the per-vector helper INLINE applies to). */
PIMG_HELPER void conv_vector(const uchar* __restrict__ in_plane, FILTER_PARAMS,
                                                   uchar* __restrict__ out_row, int b0, int oy, int width,
                                                   int height, int out_row_bytes) {
  FILTER_LOCALS
  int acc[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) acc[j] = 0;
  const int s = b0 + (CENTRE - PIMG_R) * BPP;
  TAP_LOOP
  for (int ky = 0; ky < PIMG_K; ++ky) {
    int y = oy + CENTRE - PIMG_R + ky;
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
    y = pimg_clamp_int(y, 0, height - 1);
#else
    if (y < 0 || y >= height) continue;
#endif
    uchar seg[SEG];
    load_segment(in_plane, y, s, width, seg);
    TAP_LOOP
    for (int kx = 0; kx < PIMG_K; ++kx) {
#pragma unroll
      for (int j = 0; j < 16; ++j) acc[j] += TAP_TERM(ky * PIMG_K + kx, (int)seg[j + kx * BPP]);
    }
  }
  uchar res[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) res[j] = (uchar)pimg_conv_finish(acc[j], PIMG_DIVISOR);
  uchar* dst = out_row + b0;
  if (b0 + 16 <= out_row_bytes && ((unsigned long long)dst & 15ull) == 0) {
    uint4 v;
    uchar* vb = (uchar*)&v;
#pragma unroll
    for (int j = 0; j < 16; ++j) vb[j] = res[j];
    *(uint4*)dst = v;
  } else {
#pragma unroll
    for (int j = 0; j < 16; ++j)
      if (b0 + j < out_row_bytes) dst[j] = res[j];
  }
}

/* x: ITEMS_X vectors per thread; y: ITEMS_Y rows per thread over PLANES * out_height rows. */
extern "C" __global__ void PIMG_BOUNDS conv_cuda_wide(const uchar* __restrict__ in, FILTER_PARAMS,
                                                      uchar* __restrict__ out, int width, int height,
                                                      int out_width, int out_height) {
  const int out_row_bytes = out_width * BPP;
  const int v0 = (int)(blockIdx.x * BLOCK_X + threadIdx.x) * ITEMS_X;
  const int r0 = (int)(blockIdx.y * BLOCK_Y + threadIdx.y) * ITEMS_Y;
  for (int iy = 0; iy < ITEMS_Y; ++iy) {
    const int r = r0 + iy;
    if (r >= PLANES * out_height) break;
    const int plane = r / out_height, oy = r - plane * out_height;
    const uchar* in_plane = in + (long)plane * width * height;
    uchar* out_row = out + (long)r * out_row_bytes;
    for (int ix = 0; ix < ITEMS_X; ++ix) {
      const int b0 = (v0 + ix) * 16;
      if (b0 >= out_row_bytes) break;
      conv_vector(in_plane, FILTER_ARGS, out_row, b0, oy, width, height, out_row_bytes);
    }
  }
}

#endif
