/* The conv family's arithmetic rule, shared word for word by the CPU reference, OpenCL, OpenMP and
   CUDA kernels: integer taps accumulate in int, the sum is divided by the divisor rounding half away
   from zero, then saturated to [0, 255]. Border modes and layouts are defined here too. */
#ifndef PIMG_CONV_RULE_H
#define PIMG_CONV_RULE_H

#if defined(__OPENCL_VERSION__)
#define PIMG_FN static inline
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define PIMG_FN static __host__ __device__ __forceinline__
#else
#define PIMG_FN static inline
#endif

#define PIMG_BORDER_ZERO 0      /* outside pixels read as 0; output is width x height */
#define PIMG_BORDER_VALID 1     /* only windows fully inside; output is (w-k+1) x (h-k+1) */
#define PIMG_BORDER_REPLICATE 2 /* outside coordinates clamp to the nearest edge pixel */

PIMG_FN int pimg_div_round(int acc, int divisor) {
  return acc >= 0 ? (acc + divisor / 2) / divisor : -((-acc + divisor / 2) / divisor);
}

PIMG_FN int pimg_saturate_u8(int v) { return v < 0 ? 0 : (v > 255 ? 255 : v); }

PIMG_FN int pimg_conv_finish(int acc, int divisor) { return pimg_saturate_u8(pimg_div_round(acc, divisor)); }

PIMG_FN int pimg_clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Index of channel c of pixel (x, y) in an image of width w, height h, ch channels. */
PIMG_FN long pimg_pixel_index(int x, int y, int c, int w, int h, int ch, int planar) {
  return planar ? ((long)c * h + y) * (long)w + x : ((long)y * w + x) * (long)ch + c;
}

#endif
