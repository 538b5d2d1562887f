/* The conv kernels' border centre and row layout, in OpenCL C and CUDA alike (conv_portable.h,
   conv_cuda_common.cuh and conv_cl.h include it, outside any branch). */
#ifndef PIMG_CONV_LAYOUT_H
#define PIMG_CONV_LAYOUT_H

#include "conv/conv_rule.h"

/* Output (ox, oy) is centred on input (ox + CENTRE, oy + CENTRE). */
#if PIMG_BORDER == PIMG_BORDER_VALID
#define CENTRE PIMG_R
#else
#define CENTRE 0
#endif

/* A row holds BPP bytes per pixel: interleaved rows carry all channels, planar rows one plane's, PLANES
   planes stacked. */
#if PIMG_PLANAR
#define BPP 1
#define PLANES PIMG_CHANNELS
#else
#define BPP PIMG_CHANNELS
#define PLANES 1
#endif

/* The border rule at the top of a helper that loads input pixel (x, y) of a width x height image: with the
   zero border a pixel outside reads as 0 (the helper returns it), the replicated one clamps x and y to the
   nearest edge; a valid border only reaches pixels inside. */
#if PIMG_BORDER == PIMG_BORDER_ZERO
#define CONV_BORDER_XY(x, y, width, height)                                \
  do {                                                                     \
    if ((x) < 0 || (y) < 0 || (x) >= (width) || (y) >= (height)) return 0; \
  } while (0)
#elif PIMG_BORDER == PIMG_BORDER_REPLICATE
#define CONV_BORDER_XY(x, y, width, height)     \
  do {                                          \
    (x) = pimg_clamp_int((x), 0, (width) - 1);  \
    (y) = pimg_clamp_int((y), 0, (height) - 1); \
  } while (0)
#else
#define CONV_BORDER_XY(x, y, width, height) do {} while (0)
#endif

#endif
