/* The semblance search in CUDA: the spelling of semblance_device.h's macros for NVRTC. Knobs beyond
   the body's: GEOM_MEM (0: geometry, headers and axes read from the arguments in global memory;
   1: compiled in as __constant__ arrays from PIMG_GEOM_LIST, PIMG_HDR_LIST, PIMG_AXES_LIST), LDG
   (1: samples through the read-only data cache, __ldg), LAUNCH_BOUNDS (0: none; N: at least N
   blocks per multiprocessor). */
#define restrict __restrict__
#define SEMB_GEOM_AS
#define SEMB_GMEM
#define SEMB_LOCAL(type, name, count) __shared__ type name[count]
#define SEMB_BARRIER __syncthreads()
#define SEMB_GID(d) ((d) == 0 ? blockIdx.x * blockDim.x + threadIdx.x : (d) == 1 ? blockIdx.y * blockDim.y + threadIdx.y : blockIdx.z * blockDim.z + threadIdx.z)
#define SEMB_LID(d) ((d) == 0 ? threadIdx.x : (d) == 1 ? threadIdx.y : threadIdx.z)
#define SEMB_GROUP(d) ((d) == 0 ? blockIdx.x : (d) == 1 ? blockIdx.y : blockIdx.z)
#define SEMB_NGROUPS(d) ((d) == 0 ? gridDim.x : (d) == 1 ? gridDim.y : gridDim.z)
#if LDG
#define SEMB_LOAD(p) __ldg(p)
#else
#define SEMB_LOAD(p) (*(p))
#endif
#if LAUNCH_BOUNDS > 0
#define SEMB_BOUNDS __launch_bounds__(BLOCK_X * BLOCK_Y * BLOCK_Z, LAUNCH_BOUNDS)
#else
#define SEMB_BOUNDS
#endif
#define SEMB_KERNEL extern "C" __global__
#define SEMB_KERNEL_MAIN extern "C" __global__ SEMB_BOUNDS
#define SEMB_ENTRY semb_grid

#if GEOM_MEM == 1
__constant__ float c_geom[PIMG_NTR * 8] = {PIMG_GEOM_LIST};
__constant__ int c_hdr[PIMG_NTR * 4] = {PIMG_HDR_LIST};
__constant__ float c_axes[PIMG_NA + PIMG_NB + PIMG_NC + PIMG_ND + PIMG_NE] = {PIMG_AXES_LIST};
#define GEOM(i, f) c_geom[(i) * SEMB_GEOM_STRIDE + (f)]
#define HDR(i, f) c_hdr[(i) * SEMB_HDR_STRIDE + (f)]
#define AXIS(k) c_axes[k]
#else
#define GEOM(i, f) geom[(i) * SEMB_GEOM_STRIDE + (f)]
#define HDR(i, f) hdr[(i) * SEMB_HDR_STRIDE + (f)]
#define AXIS(k) axes[k]
#endif
#include "semblance/semblance_device.h"
