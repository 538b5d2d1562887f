/* Direct KxK convolution written once for OpenCL C (conv_direct.cl, entry conv_direct) and CUDA through NVRTC
   (conv_cuda.cu with WIDE 0, entry conv_cuda_direct), over conv_portable.h: each work item (thread) computes
   ITEMS_X x ITEMS_Y neighbouring output pixels (all channels, or with CHANNEL_Z 1 the channel of its local z,
   seed 003's block z = channel) straight from global memory with the border and rounding rule of
   conv/conv_rule.h; a batch of images is one launch, the group's z index the image (seed 003's grid z), the
   images one after another. Knobs: FILTER_MEM 0 global / 1 constant / 2 literal weights, UNROLL 0/1, ARITH 0
   multiply / 1 table. What stays per backend, so that each compiles to the code it did when written apart:
   OpenCL has no required work-group size, reads the filter arguments in FILTER_SPACE (conv_cl.h) or, with
   FILTER_MEM 2, literal arrays of the kernel, and sums a pixel's taps in the kernel; CUDA uses the block size
   it is compiled for in its ids, reads the filter through conv_cuda_common.cuh (FILTER_LOCALS, TAP_TERM:
   FILTER_MEM 1 is compile-time data in __constant__ memory) inside a per-pixel helper that its INLINE knob
   keeps inlined or out of line, and only its pointers are restrict. The wrapper defines CONV_DIRECT_ENTRY. */
#include "conv/conv_portable.h"

#ifndef CONV_DIRECT_ENTRY
#error "the wrapper names the entry: CONV_DIRECT_ENTRY"
#endif

#ifdef __OPENCL_VERSION__
#include "conv/conv_cl.h" /* FILTER_SPACE, TAP_LOOP */
#define DIRECT_RESTRICT
#define DIRECT_KERNEL __kernel void
#define DIRECT_FILTER_PARAMS \
  FILTER_SPACE const int* weights, FILTER_SPACE const int* taps, FILTER_SPACE const int* lut
#define DIRECT_IMAGE ((long)get_group_id(2))
#define DIRECT_CHANNEL ((int)get_local_id(2))
#define DIRECT_GX ((int)get_global_id(0))
#define DIRECT_GY ((int)get_global_id(1))
/* weights: K*K row-major; taps: per tap its distinct-weight index; lut[d * 256 + v] = weight_d * v. */
#if FILTER_MEM == 2 && ARITH == 1
#define DIRECT_KERNEL_LOCALS const int tap_index[PIMG_K * PIMG_K] = {PIMG_TAPS};
#define TAP(t) tap_index[t]
#elif FILTER_MEM == 2
#define DIRECT_KERNEL_LOCALS const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#define WEIGHT(t) weight[t]
#else
#define DIRECT_KERNEL_LOCALS
#define TAP(t) taps[t]
#define WEIGHT(t) weights[t]
#endif
/* acc += tap t of input value `load`. */
#define DIRECT_TAP(acc, t, load) { const int v = (load); (acc) += DIRECT_TERM(t, v); }
#if ARITH == 1
#define DIRECT_TERM(t, v) lut[TAP(t) * 256 + v]
#else
#define DIRECT_TERM(t, v) WEIGHT(t) * v
#endif
#else
#define DIRECT_RESTRICT __restrict__
#define DIRECT_KERNEL CONV_KERNEL
#define DIRECT_FILTER_PARAMS FILTER_PARAMS
#define DIRECT_IMAGE ((long)blockIdx.z)
#define DIRECT_CHANNEL ((int)threadIdx.z)
#define DIRECT_GX ((int)(blockIdx.x * BLOCK_X + threadIdx.x))
#define DIRECT_GY ((int)(blockIdx.y * BLOCK_Y + threadIdx.y))
#define DIRECT_KERNEL_LOCALS
#define DIRECT_TAP(acc, t, load) (acc) += TAP_TERM(t, load);
#endif

/* Channel c of input pixel (x, y); out-of-range coordinates follow the border rule. */
CONV_FN int load_px(PIX_GLOBAL const uchar* DIRECT_RESTRICT in, int x, int y, int c, int width, int height) {
  CONV_BORDER_XY(x, y, width, height);
  return CONV_LDG(in + pimg_pixel_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR));
}

/* acc += the K x K taps of channel c of the window whose top-left tap is input (x0, y0) (of `in`, a width x
   height image). */
#define DIRECT_TAPS(acc, x0, y0, c)                                                              \
  TAP_LOOP                                                                                       \
  for (int ky = 0; ky < PIMG_K; ++ky) {                                                          \
    TAP_LOOP                                                                                     \
    for (int kx = 0; kx < PIMG_K; ++kx)                                                          \
      DIRECT_TAP(acc, ky * PIMG_K + kx, load_px(in, (x0) + kx, (y0) + ky, c, width, height)) \
  }

#ifndef __OPENCL_VERSION__
/* One output value: channel c of the window whose top-left tap is input (x0, y0). */
PIMG_HELPER int conv_pixel(const uchar* __restrict__ in, FILTER_PARAMS, int x0, int y0, int c, int width,
                           int height) {
  FILTER_LOCALS
  int acc = 0;
  DIRECT_TAPS(acc, x0, y0, c)
  return pimg_conv_finish(acc, PIMG_DIVISOR);
}
#endif

DIRECT_KERNEL CONV_DIRECT_ENTRY(PIX_GLOBAL const uchar* DIRECT_RESTRICT in, DIRECT_FILTER_PARAMS,
                                PIX_GLOBAL uchar* DIRECT_RESTRICT out, int width, int height, int out_width,
                                int out_height) {
  DIRECT_KERNEL_LOCALS
  const long image = DIRECT_IMAGE;
  in += image * width * height * PIMG_CHANNELS;
  out += image * out_width * out_height * PIMG_CHANNELS;
#if CHANNEL_Z
  const int c_first = DIRECT_CHANNEL, c_end = c_first + 1;
#else
  const int c_first = 0, c_end = PIMG_CHANNELS;
#endif
  const int ox0 = DIRECT_GX * ITEMS_X;
  const int oy0 = DIRECT_GY * ITEMS_Y;
  for (int iy = 0; iy < ITEMS_Y; ++iy) {
    const int oy = oy0 + iy;
    if (oy >= out_height) break;
    for (int ix = 0; ix < ITEMS_X; ++ix) {
      const int ox = ox0 + ix;
      if (ox >= out_width) break;
      const int x0 = ox + CENTRE - PIMG_R, y0 = oy + CENTRE - PIMG_R; /* top-left tap */
      for (int c = c_first; c < c_end; ++c) {
#ifdef __OPENCL_VERSION__
        int acc = 0;
        DIRECT_TAPS(acc, x0, y0, c)
        const int value = pimg_conv_finish(acc, PIMG_DIVISOR);
#else
        const int value = conv_pixel(in, FILTER_ARGS, x0, y0, c, width, height);
#endif
        out[pimg_pixel_index(ox, oy, c, out_width, out_height, PIMG_CHANNELS, PIMG_PLANAR)] = (uchar)value;
      }
    }
  }
}
