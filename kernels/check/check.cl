/* Validation on the device (docs/measurement.md): the executor's comparison of a run's output with the
   reference uploaded once, of the canaries after the output and scratch buffers, and the checksum that
   tells whether an input kept on the device between configurations is still what was uploaded. Every
   kernel is a grid-stride loop over a 1-D grid of groups of exactly 256 work items; results go to `res`,
   eight uints per slot: [0] mismatching elements, [1] the first one's index (atomic_min, starts at
   0xffffffff), [2] the largest error of the floating-point modes (float bits, atomic_max), [3] canary
   bytes that lost the poison, [4] the first one's offset, [5] the checksum. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define PIMG_GROUP 256

/* One element of a floating-point output against the reference, as the T1 family's compare() decides on
   the host: never written (every byte the run's poison where the reference is not), NaN on one side only, or an error
   above the tolerance (|a - e| in the absolute modes, |a - e| / max(1, |e|) in the relative ones). */
bool pimg_bad_real(double x, double y, bool poisoned, int relative, double tol, double* err) {
  const double diff = fabs(x - y);
  *err = relative ? diff / fmax(1.0, fabs(y)) : diff;
  return poisoned || (isnan(x) != isnan(y)) || (!isnan(x) && !(*err <= tol));
}

void pimg_mismatch(global uint* res, ulong index) {
  atomic_inc(&res[0]);
  atomic_min(&res[1], (uint)index);
}

/* mode 0: bytes, exact; 1/2: float lanes relative/absolute; 3/4: double lanes relative/absolute. Work items
   below `canary` also check byte bytes + gid of `out` against the poison. */
kernel void pimg_check(global const uchar* out, global const uchar* ref, ulong bytes, ulong canary, int poison,
                       int mode, double tol, global uint* res) {
  const ulong gid = get_global_id(0), stride = get_global_size(0);
  if (gid < canary && out[bytes + gid] != (uchar)poison) {
    atomic_inc(&res[3]);
    atomic_min(&res[4], (uint)gid);
  }
  if (mode == 0) {
    const ulong chunks = (bytes + 15) / 16;
    for (ulong c = gid; c < chunks; c += stride) {
      const ulong begin = c * 16, end = min(begin + 16, bytes);
      if (end - begin == 16 && all(vload16(c, out) == vload16(c, ref))) continue;
      for (ulong b = begin; b < end; ++b)
        if (out[b] != ref[b]) pimg_mismatch(res, b);
    }
    return;
  }
  const int lane = mode <= 2 ? 4 : 8;
  const int relative = mode == 1 || mode == 3;
  const ulong lanes = bytes / lane;
  float worst = 0;
  for (ulong k = gid; k < lanes; k += stride) {
    const global uchar* a = out + k * lane;
    const global uchar* e = ref + k * lane;
    bool a_poison = true, e_poison = true;
    for (int b = 0; b < lane; ++b) {
      a_poison = a_poison && a[b] == (uchar)poison;
      e_poison = e_poison && e[b] == (uchar)poison;
    }
    const double x = lane == 4 ? (double)*(global const float*)a : *(global const double*)a;
    const double y = lane == 4 ? (double)*(global const float*)e : *(global const double*)e;
    double err = 0;
    if (pimg_bad_real(x, y, a_poison && !e_poison, relative, tol, &err)) {
      pimg_mismatch(res, k);
    } else if (!isnan(err)) {
      worst = fmax(worst, (float)err);
    }
  }
  if (worst > 0) atomic_max(&res[2], as_uint(worst));
}

/* Bytes [offset, offset + n) of `buf` must all hold the poison (the canary of a scratch buffer). */
kernel void pimg_check_poison(global const uchar* buf, ulong offset, ulong n, int poison, global uint* res, int slot) {
  const ulong gid = get_global_id(0);
  if (gid < n && buf[offset + gid] != (uchar)poison) {
    atomic_inc(&res[slot * 8 + 3]);
    atomic_min(&res[slot * 8 + 4], (uint)gid);
  }
}

/* A sum of the buffer's 4-byte words, each mixed with its index by a bijection, so that any one changed word
   changes the sum. */
kernel void pimg_checksum(global const uchar* buf, ulong bytes, global uint* res, int slot) {
  local uint part[PIMG_GROUP];
  const ulong gid = get_global_id(0), stride = get_global_size(0);
  const ulong words = (bytes + 3) / 4;
  uint sum = 0;
  for (ulong w = gid; w < words; w += stride) {
    uint v = 0;
    if (w * 4 + 4 <= bytes) {
      v = *(global const uint*)(buf + w * 4);
    } else {
      for (ulong b = w * 4; b < bytes; ++b) v |= (uint)buf[b] << (8 * (b - w * 4));
    }
    uint h = (v ^ ((uint)w * 0x9E3779B9u)) * 0x85EBCA6Bu;
    sum += h ^ (h >> 16);
  }
  const uint l = get_local_id(0);
  part[l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = PIMG_GROUP / 2; s > 0; s /= 2) {
    if (l < s) part[l] += part[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) atomic_add(&res[slot * 8 + 5], part[0]);
}
