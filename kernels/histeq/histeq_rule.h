/* The histeq family's equalisation rule, defined once for the C++ reference, OpenMP, OpenCL and CUDA:
 * OpenCV's equalizeHist (imgproc/src/histogram.cpp), so that OpenCV is an exact baseline. With lo the
 * first non-empty bin, h_lo its count, total the pixel count and cdf_v the number of pixels <= v:
 *   - every pixel equal (h_lo == total): the image is unchanged, lut[v] = lo;
 *   - v <= lo: lut[v] = 0 (only v == lo occurs in the image);
 *   - else lut[v] = saturate_u8(rint((float)(cdf_v - h_lo) * scale)), scale = 255.0f / (float)(total - h_lo),
 * in IEEE single precision with a correctly rounded division (OpenCL needs
 * -cl-fp32-correctly-rounded-divide-sqrt; NVRTC's default -prec-div=true is) and rint rounding half to
 * even, as cvRound does. */
#ifndef PIMG_HISTEQ_RULE_H
#define PIMG_HISTEQ_RULE_H

#if defined(__OPENCL_VERSION__)
#define PIMG_HISTEQ_FN inline
#define PIMG_RINTF(x) rint(x)
#elif defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define PIMG_HISTEQ_FN static __device__ __forceinline__
#define PIMG_RINTF(x) rintf(x)
#else
#include <math.h>
#define PIMG_HISTEQ_FN static inline
#define PIMG_RINTF(x) rintf(x)
#endif

PIMG_HISTEQ_FN int pimg_histeq_value(int v, int lo, int h_lo, int cdf_v, int total) {
  if (h_lo == total) return lo;
  if (v <= lo) return 0;
  const float scale = 255.0f / (float)(total - h_lo);
  const float r = PIMG_RINTF((float)(cdf_v - h_lo) * scale);
  return r > 255.0f ? 255 : (int)r;
}

#endif
