/* The hist and histeq GPU kernels' one text for OpenCL C and CUDA (NVRTC): common/pix_portable.h and what they
   need beyond it: the global id and the range's width at run time, the group count, atomic increments and adds
   (OpenCL's atomic_inc/atomic_add, CUDA's atomicAdd), read-only loads (CUDA's __ldg, a plain load in OpenCL) and
   the entry's fixed group size (reqd_work_group_size, __launch_bounds__), written before the return type. */
#ifndef PIMG_HIST_PORTABLE_H
#define PIMG_HIST_PORTABLE_H

/* pix_portable.h asks for one compile-time block (BLOCK_X, BLOCK_Y); these programs hold entries of several
   (a clear kernel's 256 beside the knobs' BLOCK, HIST_BLOCK, MAP_BLOCK), so the names are left undeclared: a
   kernel that used them would not compile. */
#ifndef BLOCK_X
#define BLOCK_X pimg_hist_block_is_a_knob
#define BLOCK_Y pimg_hist_block_is_a_knob
#endif
#include "common/pix_portable.h"

#ifdef __OPENCL_VERSION__
#define HIST_GID(d) ((int)get_global_id(d))
#define HIST_RANGE ((int)get_global_size(0))
#define HIST_GROUPS ((int)get_num_groups(0))
#define HIST_INC(p) atomic_inc(p)
#define HIST_ADD(p, v) atomic_add((p), (v))
#define HIST_LDG(p) (*(p))
#define HIST_BOUNDS(n) __attribute__((reqd_work_group_size(n, 1, 1)))
#else
#define HIST_GID(d) ((int)((d) == 0 ? blockIdx.x * blockDim.x + threadIdx.x : blockIdx.y * blockDim.y + threadIdx.y))
#define HIST_RANGE ((int)(gridDim.x * blockDim.x))
#define HIST_GROUPS ((int)gridDim.x)
#define HIST_INC(p) atomicAdd((p), 1u)
#define HIST_ADD(p, v) atomicAdd((p), (v))
#define HIST_LDG(p) __ldg(p)
#define HIST_BOUNDS(n) __launch_bounds__(n)
#endif

#endif
