/* What the conv kernels written once for OpenCL C and CUDA (conv_vec_body.h) need beyond
   common/pix_portable.h (qualifiers, thread and group ids, barriers): the family's rule, the border centre
   and the row layout (CENTRE, BPP, PLANES), read-only loads, a pointer's address bits, 2- and 4-word vectors
   and their construction, helpers inlined or kept out of line, and a kernel's prefix (OpenCL: the required
   work-group size; CUDA: conv_cuda_common.cuh's launch bounds). */
#ifndef PIMG_CONV_PORTABLE_H
#define PIMG_CONV_PORTABLE_H

/* Included outside the branches: kernel_sources.cpp expands each embedded header once, where it first
   appears, so a header both branches need must not first appear inside one of them. */
#include "conv/conv_layout.h" /* the rule, CENTRE, BPP, PLANES */

#ifdef __OPENCL_VERSION__
#if !defined(__ENDIAN_LITTLE__)
#error "the conv kernels read bytes out of 32-bit words in little-endian order"
#endif
#if defined(SHFL) && SHFL
#error "SHFL (warp shuffles) is CUDA's"
#endif

#define CONV_FN static inline
#define CONV_NOINLINE static
#define CONV_KERNEL __kernel __attribute__((reqd_work_group_size(BLOCK_X, BLOCK_Y, 1))) void
#define CONV_LDG(p) (*(p))
#define CONV_ADDR(p) ((size_t)(p))
#define CONV_UINT2(a, b) ((uint2)((a), (b)))
#define CONV_UINT4(a, b, c, d) ((uint4)((a), (b), (c), (d)))
#else
#include "conv/conv_cuda_common.cuh" /* PIMG_BOUNDS */

#define CONV_FN static __device__ __forceinline__
#define CONV_NOINLINE static __device__ __noinline__
#define CONV_KERNEL extern "C" __global__ void PIMG_BOUNDS
#define CONV_LDG(p) __ldg(p)
#define CONV_ADDR(p) ((unsigned long long)(p))
#define CONV_UINT2(a, b) make_uint2((a), (b))
#define CONV_UINT4(a, b, c, d) make_uint4((a), (b), (c), (d))
#endif

#include "common/pix_portable.h"

#endif
