/* Validation on the device (NVRTC; docs/measurement.md), the CUDA twin of check.cl: the comparison of a
   run's output with the reference uploaded once, of the canaries after the output and scratch buffers, and
   the checksum of an input kept on the device between configurations. Grid-stride loops over a 1-D grid of
   blocks of exactly 256 threads; results in `res`, eight unsigned per slot: [0] mismatching elements, [1]
   the first one's index, [2] the largest error of the floating-point modes (float bits), [3] canary bytes
   that lost the poison, [4] the first one's offset, [5] the checksum. */
#define PIMG_GROUP 256

__device__ __forceinline__ bool pimg_bad_real(double x, double y, bool poisoned, int relative, double tol,
                                              double* err) {
  const double diff = fabs(x - y);
  *err = relative ? diff / fmax(1.0, fabs(y)) : diff;
  return poisoned || (isnan(x) != isnan(y)) || (!isnan(x) && !(*err <= tol));
}

__device__ __forceinline__ void pimg_mismatch(unsigned* res, unsigned long long index) {
  atomicAdd(&res[0], 1u);
  atomicMin(&res[1], (unsigned)index);
}

/* mode 0: bytes, exact; 1/2: float lanes relative/absolute; 3/4: double lanes relative/absolute. Threads
   below `canary` also check byte bytes + tid of `out` against the poison. */
extern "C" __global__ void pimg_check(const unsigned char* out, const unsigned char* ref, unsigned long long bytes,
                                      unsigned long long canary, int poison, int mode, double tol, unsigned* res) {
  const unsigned long long gid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  if (gid < canary && out[bytes + gid] != (unsigned char)poison) {
    atomicAdd(&res[3], 1u);
    atomicMin(&res[4], (unsigned)gid);
  }
  if (mode == 0) {
    const unsigned long long chunks = (bytes + 15) / 16;
    for (unsigned long long c = gid; c < chunks; c += stride) {
      const unsigned long long begin = c * 16, end = begin + 16 < bytes ? begin + 16 : bytes;
      if (end - begin == 16) {
        const uint4 a = reinterpret_cast<const uint4*>(out)[c], e = reinterpret_cast<const uint4*>(ref)[c];
        if (a.x == e.x && a.y == e.y && a.z == e.z && a.w == e.w) continue;
      }
      for (unsigned long long b = begin; b < end; ++b)
        if (out[b] != ref[b]) pimg_mismatch(res, b);
    }
    return;
  }
  const int lane = mode <= 2 ? 4 : 8;
  const int relative = mode == 1 || mode == 3;
  const unsigned long long lanes = bytes / lane;
  float worst = 0;
  for (unsigned long long k = gid; k < lanes; k += stride) {
    const unsigned char* a = out + k * lane;
    const unsigned char* e = ref + k * lane;
    bool a_poison = true, e_poison = true;
    for (int b = 0; b < lane; ++b) {
      a_poison = a_poison && a[b] == (unsigned char)poison;
      e_poison = e_poison && e[b] == (unsigned char)poison;
    }
    const double x = lane == 4 ? (double)*reinterpret_cast<const float*>(a) : *reinterpret_cast<const double*>(a);
    const double y = lane == 4 ? (double)*reinterpret_cast<const float*>(e) : *reinterpret_cast<const double*>(e);
    double err = 0;
    if (pimg_bad_real(x, y, a_poison && !e_poison, relative, tol, &err)) {
      pimg_mismatch(res, k);
    } else if (!isnan(err)) {
      worst = fmaxf(worst, (float)err);
    }
  }
  if (worst > 0) atomicMax(&res[2], __float_as_uint(worst));
}

/* Bytes [offset, offset + n) of `buf` must all hold the poison (the canary of a scratch buffer). */
extern "C" __global__ void pimg_check_poison(const unsigned char* buf, unsigned long long offset, unsigned long long n,
                                             int poison, unsigned* res, int slot) {
  const unsigned long long gid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (gid < n && buf[offset + gid] != (unsigned char)poison) {
    atomicAdd(&res[slot * 8 + 3], 1u);
    atomicMin(&res[slot * 8 + 4], (unsigned)gid);
  }
}

/* A sum of the buffer's 4-byte words, each mixed with its index by a bijection, so that any one changed word
   changes the sum. */
extern "C" __global__ void pimg_checksum(const unsigned char* buf, unsigned long long bytes, unsigned* res, int slot) {
  __shared__ unsigned part[PIMG_GROUP];
  const unsigned long long gid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  const unsigned long long words = (bytes + 3) / 4;
  unsigned sum = 0;
  for (unsigned long long w = gid; w < words; w += stride) {
    unsigned v = 0;
    if (w * 4 + 4 <= bytes) {
      v = reinterpret_cast<const unsigned*>(buf)[w];
    } else {
      for (unsigned long long b = w * 4; b < bytes; ++b) v |= (unsigned)buf[b] << (8 * (b - w * 4));
    }
    unsigned h = (v ^ ((unsigned)w * 0x9E3779B9u)) * 0x85EBCA6Bu;
    sum += h ^ (h >> 16);
  }
  const unsigned l = threadIdx.x;
  part[l] = sum;
  __syncthreads();
  for (unsigned s = PIMG_GROUP / 2; s > 0; s /= 2) {
    if (l < s) part[l] += part[l + s];
    __syncthreads();
  }
  if (l == 0) atomicAdd(&res[slot * 8 + 5], part[0]);
}
