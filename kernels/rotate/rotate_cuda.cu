/* CUDA rotation (NVRTC), gather formulation: every thread computes ITEMS_X x ITEMS_Y output pixels (every
   channel). SPREAD 0: neighbouring pixels, whose bytes PACK=1 stores as 16-, 8- or 4-byte words where the run
   is complete and aligned; SPREAD 1: pixels BLOCK_X (BLOCK_Y) apart, so a warp's byte stores are contiguous.
   LDG=1 reads the source through the read-only data cache (__ldg); INCR=1 steps the source point by the rule's
   integer increments along a run (one add per pixel), INCR=0 evaluates the rule's formula at every pixel.
   TEXTURE=1 (cuda_texture) reads the source from a texture object over a CUDA array of 1-byte texels (2-D
   block-linear layout, so a rotated walk stays in few cache lines): interleaved pixels are w*channels
   texels wide, planes are stacked vertically; fetched at integer texel centres with point sampling, so
   the bytes are the rule's exactly.
   GATHER=1 (nearest, 3 interleaved channels, global memory): each source pixel's 3 bytes come from the two
   aligned 32-bit words that hold them (two loads and one funnel shift instead of three byte loads); a pixel
   whose second word would pass the buffer's last whole word, or an input pointer not 4-byte aligned, is read
   byte by byte. */
#if LDG
#define PIMG_ROT_LOAD(p) __ldg(p)
#endif
#if TEXTURE
#define PIMG_ROT_IMAGE unsigned long long
#define PIMG_ROT_TEXEL(in, tx, ty) ((int)tex2D<unsigned char>((in), (float)(tx) + 0.5f, (float)(ty) + 0.5f))
#endif
#include "rotate/rotate_rule.h"

typedef unsigned char uchar;

#if TEXTURE
#define IN_PARAM unsigned long long in
#define SAMPLE pimg_rot_sample_texels
#else
#define IN_PARAM const uchar* __restrict__ in
#define SAMPLE pimg_rot_sample
#endif

#if SPREAD
#define STEP_X BLOCK_X
#define STEP_Y BLOCK_Y
#else
#define STEP_X 1
#define STEP_Y 1
#endif

#if PIMG_PLANAR
#define RUN ITEMS_X /* bytes of one plane's run */
#define RUNS PIMG_CHANNELS
#else
#define RUN (ITEMS_X * PIMG_CHANNELS)
#define RUNS 1
#endif

/* Stores the RUN bytes of run r (a plane, or the interleaved pixels) at out + off: as words when the whole run
   lies inside the row (n == ITEMS_X) and off is aligned to them, else byte by byte. */
static __device__ __forceinline__ void store_run(uchar* __restrict__ out, int off, const uchar* bytes, int n) {
  const int count = PIMG_PLANAR ? n : n * PIMG_CHANNELS;
#if PACK
  if (n == ITEMS_X) {
    if (RUN % 16 == 0 && (off & 15) == 0) {
#pragma unroll
      for (int i = 0; i < RUN; i += 16) {
        uint4 v;
        v.x = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | ((unsigned)bytes[i + 3] << 24);
        v.y = bytes[i + 4] | (bytes[i + 5] << 8) | (bytes[i + 6] << 16) | ((unsigned)bytes[i + 7] << 24);
        v.z = bytes[i + 8] | (bytes[i + 9] << 8) | (bytes[i + 10] << 16) | ((unsigned)bytes[i + 11] << 24);
        v.w = bytes[i + 12] | (bytes[i + 13] << 8) | (bytes[i + 14] << 16) | ((unsigned)bytes[i + 15] << 24);
        *reinterpret_cast<uint4*>(out + off + i) = v;
      }
      return;
    }
    if (RUN % 8 == 0 && (off & 7) == 0) {
#pragma unroll
      for (int i = 0; i < RUN; i += 8) {
        uint2 v;
        v.x = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | ((unsigned)bytes[i + 3] << 24);
        v.y = bytes[i + 4] | (bytes[i + 5] << 8) | (bytes[i + 6] << 16) | ((unsigned)bytes[i + 7] << 24);
        *reinterpret_cast<uint2*>(out + off + i) = v;
      }
      return;
    }
    if (RUN % 4 == 0 && (off & 3) == 0) {
#pragma unroll
      for (int i = 0; i < RUN; i += 4)
        *reinterpret_cast<unsigned*>(out + off + i) =
            bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | ((unsigned)bytes[i + 3] << 24);
      return;
    }
  }
#endif
  for (int i = 0; i < count; ++i) out[off + i] = bytes[i];
}

#if GATHER
#if TEXTURE || PIMG_PLANAR || PIMG_CHANNELS != 3 || PIMG_INTERP != PIMG_ROT_NEAREST
#error "GATHER reads whole 3-byte interleaved pixels for nearest from global memory"
#endif
/* The 3 bytes of the nearest source pixel of (px, py) in the low 24 bits (channel c in bits 8c), or the fill. */
static __device__ __forceinline__ unsigned gather_pixel(const uchar* __restrict__ in, int px, int py, int width,
                                                        int height) {
  const int n = pimg_rot_nearest_pixel(px, py, width, height);
  if (n < 0) return (unsigned)PIMG_FILL * 0x010101u;
  const int off = 3 * n, q = off >> 2;
  const int words = (3 * width * height) >> 2; /* whole 32-bit words inside the buffer */
  if (q + 1 < words && ((unsigned long long)in & 3u) == 0) {
    const unsigned* w = reinterpret_cast<const unsigned*>(in);
    return __funnelshift_r(__ldg(w + q), __ldg(w + q + 1), 8 * (off & 3));
  }
  return (unsigned)PIMG_ROT_LOAD(in + off) | ((unsigned)PIMG_ROT_LOAD(in + off + 1) << 8) |
         ((unsigned)PIMG_ROT_LOAD(in + off + 2) << 16);
}
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
    rotate_cuda(IN_PARAM, uchar* __restrict__ out, int width, int height) {
#if SPREAD
  const int x0 = (int)blockIdx.x * BLOCK_X * ITEMS_X + (int)threadIdx.x;
  const int y0 = (int)blockIdx.y * BLOCK_Y * ITEMS_Y + (int)threadIdx.y;
#else
  const int x0 = ((int)blockIdx.x * BLOCK_X + (int)threadIdx.x) * ITEMS_X;
  const int y0 = ((int)blockIdx.y * BLOCK_Y + (int)threadIdx.y) * ITEMS_Y;
#endif
  if (x0 >= width) return;
  int row_px = pimg_rot_px(x0, y0, width, height, PIMG_COS, PIMG_SIN);
  int row_py = pimg_rot_py(x0, y0, width, height, PIMG_COS, PIMG_SIN);
#pragma unroll
  for (int iy = 0; iy < ITEMS_Y; ++iy) {
    const int y = y0 + iy * STEP_Y;
    if (y >= height) break;
    int px = row_px, py = row_py;
    uchar bytes[RUNS][RUN];
    int n = 0; /* pixels of this run inside the row */
#pragma unroll
    for (int ix = 0; ix < ITEMS_X; ++ix) {
      const int x = x0 + ix * STEP_X;
      if (x < width) {
        n = ix + 1;
#if !INCR
        px = pimg_rot_px(x, y, width, height, PIMG_COS, PIMG_SIN);
        py = pimg_rot_py(x, y, width, height, PIMG_COS, PIMG_SIN);
#endif
#if GATHER
        const unsigned pixel = gather_pixel(in, px, py, width, height);
#endif
#pragma unroll
        for (int c = 0; c < PIMG_CHANNELS; ++c) {
#if GATHER
          const uchar v = (uchar)(pixel >> (8 * c));
#else
          const uchar v =
              (uchar)SAMPLE(in, px, py, c, width, height, PIMG_CHANNELS, PIMG_PLANAR, PIMG_INTERP, PIMG_FILL);
#endif
#if SPREAD
          out[pimg_rot_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)] = v;
#elif PIMG_PLANAR
          bytes[c][ix] = v;
#else
          bytes[0][ix * PIMG_CHANNELS + c] = v;
#endif
        }
      }
#if INCR
      px += 2 * STEP_X * PIMG_COS;
      py += 2 * STEP_X * PIMG_SIN;
#endif
    }
#if !SPREAD
#pragma unroll
    for (int r = 0; r < RUNS; ++r) store_run(out, pimg_rot_index(x0, y, r, width, height, PIMG_CHANNELS, PIMG_PLANAR), bytes[r], n);
#endif
    row_px -= 2 * STEP_Y * PIMG_SIN;
    row_py += 2 * STEP_Y * PIMG_COS;
  }
}
