/* One kernel text for OpenCL C and CUDA (NVRTC), used by the bgr2rgba, flip and maxpool families:
   qualifiers, thread indices, the local-memory barrier, byte-wise max of packed words (4 and 16 bytes),
   byte permutes of two words (PIX_PERM), and byte access to arrays of 32-bit words (constant indices
   after unrolling compile to byte permutes). Every kernel
   also receives BLOCK_X and BLOCK_Y, the work-group (thread-block) size it is launched with. */
#ifndef PIX_PORTABLE_H
#define PIX_PORTABLE_H

#ifdef __OPENCL_VERSION__
#define PIX_KERNEL __kernel
#define PIX_GLOBAL __global
#define PIX_LOCAL __local
#define PIX_LOCAL_PTR __local /* address space of a pointer into local memory */
#define PIX_RESTRICT restrict
#define PIX_FN inline
#define PIX_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define PIX_BARRIER_GLOBAL() barrier(CLK_GLOBAL_MEM_FENCE) /* the block's global writes visible to it */
#define PIX_LID(d) ((int)get_local_id(d))
#define PIX_GROUP(d) ((int)get_group_id(d))
#define PIX_VMAX4(a, b) as_uint(max(as_uchar4(a), as_uchar4(b)))
#define PIX_MAXU(a, b) max((a), (b))
/* Byte-wise max of two 16-byte vectors, and CUDA's __byte_perm: byte i of the result is byte
   (s >> 4i) & 7 of the 8 bytes hi:lo (lo's bytes 0-3, hi's 4-7); selectors are constants. */
inline uint4 pix_vmax16(uint4 a, uint4 b) { return as_uint4(max(as_uchar16(a), as_uchar16(b))); }
inline uint pix_perm(uint lo, uint hi, uint s) {
  const uchar4 sel = (uchar4)(s & 7, (s >> 4) & 7, (s >> 8) & 7, (s >> 12) & 7);
  return as_uint(shuffle(as_uchar8(upsample(hi, lo)), sel));
}
#define PIX_PERM(lo, hi, s) pix_perm((lo), (hi), (s))
#else
typedef unsigned char uchar;
typedef unsigned int uint;
#define PIX_KERNEL extern "C" __global__
#define PIX_GLOBAL
#define PIX_LOCAL __shared__
#define PIX_LOCAL_PTR
#define PIX_RESTRICT __restrict__
#define PIX_FN static __device__ __forceinline__
#define PIX_BARRIER() __syncthreads()
#define PIX_BARRIER_GLOBAL() __syncthreads()
#define PIX_LID(d) ((int)((d) == 0 ? threadIdx.x : (d) == 1 ? threadIdx.y : threadIdx.z))
#define PIX_GROUP(d) ((int)((d) == 0 ? blockIdx.x : (d) == 1 ? blockIdx.y : blockIdx.z))
#define PIX_VMAX4(a, b) __vmaxu4((a), (b))
#define PIX_MAXU(a, b) umax((a), (b))
static __device__ __forceinline__ uint4 pix_vmax16(uint4 a, uint4 b) {
  return make_uint4(__vmaxu4(a.x, b.x), __vmaxu4(a.y, b.y), __vmaxu4(a.z, b.z), __vmaxu4(a.w, b.w));
}
#define PIX_PERM(lo, hi, s) __byte_perm((lo), (hi), (s)) /* one PRMT */
#endif

#if !defined(BLOCK_X) || !defined(BLOCK_Y)
#error "pix kernels need BLOCK_X and BLOCK_Y (the work-group size)"
#endif

/* Global index along dimension d with the compile-time block size. */
#define PIX_GID_X (PIX_GROUP(0) * BLOCK_X + PIX_LID(0))
#define PIX_GID_Y (PIX_GROUP(1) * BLOCK_Y + PIX_LID(1))

/* Byte i (little-endian) of an array w of 32-bit words, and a word built from four bytes. */
#define PIX_BYTE(w, i) (((w)[(i) >> 2] >> (((i)&3) * 8)) & 0xffu)
#define PIX_WORD(b0, b1, b2, b3) ((uint)(b0) | ((uint)(b1) << 8) | ((uint)(b2) << 16) | ((uint)(b3) << 24))

/* 16-byte vector load of *ptr_ into words 4k_..4k_+3 of arr_, and the store back (ptr_ 16-byte aligned). */
#define PIX_LOAD16(arr_, k_, ptr_)           \
  do {                                       \
    const uint4 pix_v_ = *(ptr_);            \
    (arr_)[4 * (k_) + 0] = pix_v_.x;         \
    (arr_)[4 * (k_) + 1] = pix_v_.y;         \
    (arr_)[4 * (k_) + 2] = pix_v_.z;         \
    (arr_)[4 * (k_) + 3] = pix_v_.w;         \
  } while (0)
#define PIX_STORE16(ptr_, arr_, k_)          \
  do {                                       \
    uint4 pix_v_;                            \
    pix_v_.x = (arr_)[4 * (k_) + 0];         \
    pix_v_.y = (arr_)[4 * (k_) + 1];         \
    pix_v_.z = (arr_)[4 * (k_) + 2];         \
    pix_v_.w = (arr_)[4 * (k_) + 3];         \
    *(ptr_) = pix_v_;                        \
  } while (0)

#endif
