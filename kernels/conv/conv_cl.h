/* What the OpenCL conv kernels written apart (conv_direct.cl, conv_image.cl, conv_tiled.cl) share: the rule and
   layout (conv_layout.h), FILTER_SPACE, the weights' address space (FILTER_MEM 1: __constant, else __global),
   and TAP_LOOP, the tap loops' unrolling (UNROLL). */
#ifndef PIMG_CONV_CL_H
#define PIMG_CONV_CL_H

#include "conv/conv_layout.h"

#if FILTER_MEM == 1
#define FILTER_SPACE __constant
#else
#define FILTER_SPACE __global
#endif

#if UNROLL
#define TAP_LOOP _Pragma("unroll")
#else
#define TAP_LOOP
#endif

#endif
