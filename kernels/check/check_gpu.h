/* Validation on the device (docs/measurement.md), one text for OpenCL C (check.cl) and CUDA (check.cu, NVRTC):
   the executor's comparison of a run's output with the reference uploaded once, of the canaries after the output
   and scratch buffers, and the checksum that tells whether an input kept on the device between configurations is
   still what was uploaded. Every kernel is a grid-stride loop over a 1-D grid of groups of exactly 256 work items;
   results go to `res`, eight uints per slot: [0] mismatching elements, [1] the first one's index (atomic min,
   starts at 0xffffffff), [2] the largest error of the floating-point modes (float bits, atomic max), [3] canary
   bytes that lost the poison, [4] the first one's offset, [5] the checksum. */
#ifndef PIMG_CHECK_GPU_H
#define PIMG_CHECK_GPU_H

#define PIMG_GROUP 256

/* The executor launches every check kernel in groups of PIMG_GROUP (residency.cpp's kGroup): the block
   pix_portable.h asks for. */
#define BLOCK_X PIMG_GROUP
#define BLOCK_Y 1
#include "common/pix_portable.h"

/* Beyond pix_portable.h: a 64-bit unsigned type (NVRTC has no ulong), the global id and the grid's width in it,
   its minimum, the function qualifier, atomics on uints, a 16-byte comparison (OpenCL's vector compare, CUDA's
   uint4 loads), the float max, a float's bits and 32-bit word w of a byte buffer, each in its backend's idiom (the
   OpenCL IR and the PTX are the same as the two hand-written files gave). */
#ifdef __OPENCL_VERSION__
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CHECK_U64 ulong
#define CHECK_FN
#define CHECK_GID ((CHECK_U64)get_global_id(0))
#define CHECK_STRIDE ((CHECK_U64)get_global_size(0))
#define CHECK_INC(p) atomic_inc(p)
#define CHECK_ADD(p, v) atomic_add((p), (v))
#define CHECK_MIN(p, v) atomic_min((p), (v))
#define CHECK_MAX(p, v) atomic_max((p), (v))
#define CHECK_MIN64(a, b) min((a), (b))
#define CHECK_SAME16(a, b, c) all(vload16((c), (a)) == vload16((c), (b)))
#define CHECK_FMAXF(a, b) fmax((a), (b))
#define CHECK_FLOAT_BITS(f) as_uint(f)
#define CHECK_WORD(p, w) (*(global const uint*)((p) + (w) * 4))
#else
#define CHECK_U64 unsigned long long
#define CHECK_FN __device__ __forceinline__
#define CHECK_GID ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x)
#define CHECK_STRIDE ((unsigned long long)gridDim.x * blockDim.x)
#define CHECK_INC(p) atomicAdd((p), 1u)
#define CHECK_ADD(p, v) atomicAdd((p), (v))
#define CHECK_MIN(p, v) atomicMin((p), (v))
#define CHECK_MAX(p, v) atomicMax((p), (v))
#define CHECK_MIN64(a, b) ((a) < (b) ? (a) : (b))
#define CHECK_SAME16(a, b, c) check_same16((a), (b), (c))
#define CHECK_FMAXF(a, b) fmaxf((a), (b))
#define CHECK_FLOAT_BITS(f) __float_as_uint(f)
#define CHECK_WORD(p, w) (reinterpret_cast<const uint*>(p)[w])
/* Whether 16-byte vector c of a and of b are equal. */
CHECK_FN bool check_same16(const uchar* a, const uchar* b, CHECK_U64 c) {
  const uint4 x = reinterpret_cast<const uint4*>(a)[c], y = reinterpret_cast<const uint4*>(b)[c];
  return x.x == y.x && x.y == y.y && x.z == y.z && x.w == y.w;
}
#endif

/* One element of a floating-point output against the reference, as the T1 family's compare() decides on
   the host: never written (every byte the run's poison where the reference is not), NaN on one side only, or an error
   above the tolerance (|a - e| in the absolute modes, |a - e| / max(1, |e|) in the relative ones). */
CHECK_FN bool pimg_bad_real(double x, double y, bool poisoned, int relative, double tol, double* err) {
  const double diff = fabs(x - y);
  *err = relative ? diff / fmax(1.0, fabs(y)) : diff;
  return poisoned || (isnan(x) != isnan(y)) || (!isnan(x) && !(*err <= tol));
}

CHECK_FN void pimg_mismatch(PIX_GLOBAL uint* res, CHECK_U64 index) {
  CHECK_INC(&res[0]);
  CHECK_MIN(&res[1], (uint)index);
}

/* mode 0: bytes, exact; 1/2: float lanes relative/absolute; 3/4: double lanes relative/absolute. Work items
   below `canary` also check byte bytes + gid of `out` against the poison. */
PIX_KERNEL void pimg_check(PIX_GLOBAL const uchar* out, PIX_GLOBAL const uchar* ref, CHECK_U64 bytes,
                           CHECK_U64 canary, int poison, int mode, double tol, PIX_GLOBAL uint* res) {
  const CHECK_U64 gid = CHECK_GID, stride = CHECK_STRIDE;
  if (gid < canary && out[bytes + gid] != (uchar)poison) {
    CHECK_INC(&res[3]);
    CHECK_MIN(&res[4], (uint)gid);
  }
  if (mode == 0) {
    const CHECK_U64 chunks = (bytes + 15) / 16;
    for (CHECK_U64 c = gid; c < chunks; c += stride) {
      const CHECK_U64 begin = c * 16, end = CHECK_MIN64(begin + 16, bytes);
      if (end - begin == 16 && CHECK_SAME16(out, ref, c)) continue;
      for (CHECK_U64 b = begin; b < end; ++b)
        if (out[b] != ref[b]) pimg_mismatch(res, b);
    }
    return;
  }
  const int lane = mode <= 2 ? 4 : 8;
  const int relative = mode == 1 || mode == 3;
  const CHECK_U64 lanes = bytes / lane;
  float worst = 0;
  for (CHECK_U64 k = gid; k < lanes; k += stride) {
    PIX_GLOBAL const uchar* a = out + k * lane;
    PIX_GLOBAL const uchar* e = ref + k * lane;
    bool a_poison = true, e_poison = true;
    for (int b = 0; b < lane; ++b) {
      a_poison = a_poison && a[b] == (uchar)poison;
      e_poison = e_poison && e[b] == (uchar)poison;
    }
    const double x = lane == 4 ? (double)*(PIX_GLOBAL const float*)a : *(PIX_GLOBAL const double*)a;
    const double y = lane == 4 ? (double)*(PIX_GLOBAL const float*)e : *(PIX_GLOBAL const double*)e;
    double err = 0;
    if (pimg_bad_real(x, y, a_poison && !e_poison, relative, tol, &err)) {
      pimg_mismatch(res, k);
    } else if (!isnan(err)) {
      worst = CHECK_FMAXF(worst, (float)err);
    }
  }
  if (worst > 0) CHECK_MAX(&res[2], CHECK_FLOAT_BITS(worst));
}

/* Bytes [offset, offset + n) of `buf` must all hold the poison (the canary of a scratch buffer). */
PIX_KERNEL void pimg_check_poison(PIX_GLOBAL const uchar* buf, CHECK_U64 offset, CHECK_U64 n, int poison,
                                  PIX_GLOBAL uint* res, int slot) {
  const CHECK_U64 gid = CHECK_GID;
  if (gid < n && buf[offset + gid] != (uchar)poison) {
    CHECK_INC(&res[slot * 8 + 3]);
    CHECK_MIN(&res[slot * 8 + 4], (uint)gid);
  }
}

/* A sum of the buffer's 4-byte words, each mixed with its index by a bijection, so that any one changed word
   changes the sum. */
PIX_KERNEL void pimg_checksum(PIX_GLOBAL const uchar* buf, CHECK_U64 bytes, PIX_GLOBAL uint* res, int slot) {
  PIX_LOCAL uint part[PIMG_GROUP];
  const CHECK_U64 gid = CHECK_GID, stride = CHECK_STRIDE;
  const CHECK_U64 words = (bytes + 3) / 4;
  uint sum = 0;
  for (CHECK_U64 w = gid; w < words; w += stride) {
    uint v = 0;
    if (w * 4 + 4 <= bytes) {
      v = CHECK_WORD(buf, w);
    } else {
      for (CHECK_U64 b = w * 4; b < bytes; ++b) v |= (uint)buf[b] << (8 * (b - w * 4));
    }
    uint h = (v ^ ((uint)w * 0x9E3779B9u)) * 0x85EBCA6Bu;
    sum += h ^ (h >> 16);
  }
  const uint l = PIX_LID(0);
  part[l] = sum;
  PIX_BARRIER();
  for (uint s = PIMG_GROUP / 2; s > 0; s /= 2) {
    if (l < s) part[l] += part[l + s];
    PIX_BARRIER();
  }
  if (l == 0) CHECK_ADD(&res[slot * 8 + 5], part[0]);
}

#endif
