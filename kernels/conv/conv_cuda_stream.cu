/* conv_cuda_stream (CUDA through NVRTC): each thread walks down a column strip, VEC output bytes of a row
   (interleaved pixels and channels together, or one plane's bytes) for ROWS consecutive rows. Where cuda_vec's
   threads take a few rows each and load the K - 1 halo rows again for every group, a strip loads each input
   row once per ROWS output rows, keeps DEPTH rows of loads in flight ahead of the row it computes (a ring of
   registers), and takes its neighbours' halo words from the lanes beside it (__shfl_sync); the warp's edge
   lanes load the words beyond the warp, and a lane at the row's edge builds them by the border rule (the edge
   pixel's bytes replicated, or zero).
   The arithmetic is conv_packed.h's, two 16-bit lanes per 32-bit word: SIMD 1, the K x K taps of a filter
   with small signed weights; SEPARABLE 1 and PACKED 1, a row pass then a column pass of a separable filter
   with non-negative factors. Both give the family's integer sums, so its bytes.
   Rows past the image follow the border rule (zero / clamp). There is no checked path: the plan refuses what
   this one cannot do (a valid border, rows not a whole number of VEC-byte vectors, a halo wider than a vector).
   Defines: VEC (4, 8, 16), ROWS, DEPTH (1 .. 8), BLOCK_X (a multiple of 32), BLOCK_Y, LAUNCH_BOUNDS, SIMD or
   SEPARABLE + PACKED, and the problem's PIMG_*. */
#include "conv/conv_portable.h"
#include "conv/conv_packed.h"

#if !(SIMD || (SEPARABLE && PACKED)) || PIMG_BORDER == PIMG_BORDER_VALID || BPP > 4
#error "conv_cuda_stream: SIMD taps or packed separable passes, zero or replicated border, at most 4 bytes a pixel"
#endif
#if BLOCK_X % 32 != 0
#error "conv_cuda_stream: BLOCK_X a multiple of 32 (whole warps along a row)"
#endif

#if VEC == 4
typedef uint vec_t;
#elif VEC == 8
typedef uint2 vec_t;
#elif VEC == 16
typedef uint4 vec_t;
#else
#error "VEC must be 4, 8 or 16"
#endif
#define WV (VEC / 4)                /* 32-bit words per vector */
#define HALO (PIMG_R * BPP)         /* halo bytes on each side */
#define HW ((HALO + 3) / 4)         /* halo words on each side, from the neighbours' vectors */
#define NW (HW + WV + HW)           /* a row's words: the left halo, this lane's vector, the right halo */
#define SKIP (4 * HW - HALO)        /* a window's first input byte within them */
#if HW > WV
#error "conv_cuda_stream: the halo (K / 2 pixels) must fit one vector"
#endif

struct StreamVec {
  uint w[WV];
};

static __device__ __forceinline__ StreamVec stream_load(const vec_t* p) {
  StreamVec v;
#if VEC == 4
  v.w[0] = __ldg(p);
#elif VEC == 8
  const uint2 t = __ldg(p);
  v.w[0] = t.x;
  v.w[1] = t.y;
#else
  const uint4 t = __ldg(p);
  v.w[0] = t.x;
  v.w[1] = t.y;
  v.w[2] = t.z;
  v.w[3] = t.w;
#endif
  return v;
}

static __device__ __forceinline__ void stream_store(uchar* p, const uint* o) {
#if VEC == 4
  *(uint*)p = o[0];
#elif VEC == 8
  *(uint2*)p = make_uint2(o[0], o[1]);
#else
  *(uint4*)p = make_uint4(o[0], o[1], o[2], o[3]);
#endif
}

/* The byte-permute selectors of the halo words beyond a row's edge with the border replicated: left halo
   word h (h = 0 the farthest) from the row's first word, whose bytes 0 .. BPP-1 are the first pixel's channels;
   right halo word h (h = 0 the nearest) from the row's last word, whose bytes 4-BPP .. 3 are the last pixel's. */
static __host__ __device__ constexpr uint stream_left_selector(int h) {
  uint s = 0;
  for (int j = 0; j < 4; ++j) {
    const int offset = -4 * (HW - h) + j; /* bytes before the row's first */
    s |= (uint)(((offset % BPP) + BPP) % BPP) << (4 * j);
  }
  return s;
}
static __host__ __device__ constexpr uint stream_right_selector(int h) {
  uint s = 0;
  for (int j = 0; j < 4; ++j) s |= (uint)(4 - BPP + (4 * h + j) % BPP) << (4 * j);
  return s;
}

static __host__ __device__ constexpr int stream_gcd(int a, int b) { return b == 0 ? a : stream_gcd(b, a % b); }
#define UNROLL_ROWS (PIMG_K * DEPTH / stream_gcd(PIMG_K, DEPTH)) /* rows per turn: ring slots are constants */

extern "C" __global__ void PIMG_BOUNDS conv_cuda_stream(const uchar* __restrict__ in, uchar* __restrict__ out,
                                                        int width, int height, int out_width, int out_height) {
  const int row_bytes = width * BPP; /* out_width == width (zero or replicated border) */
  const int lane = threadIdx.x & 31;
  const int b0 = (blockIdx.x * BLOCK_X + threadIdx.x) * VEC;
  const int groups = (out_height + ROWS - 1) / ROWS;
  const int gy = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (gy >= PLANES * groups) return; /* whole warps: a warp shares gy */
  const int plane = gy / groups;
  const int oy0 = (gy - plane * groups) * ROWS;
  const uchar* in_plane = in + (long)plane * row_bytes * height;
  uchar* out_plane = out + (long)plane * row_bytes * out_height;
  const bool inside = b0 < row_bytes;
  const int own = inside ? b0 : row_bytes - VEC; /* a lane past the row loads the last vector, stores nothing */
  const bool left_out = own == 0, right_out = own + VEC >= row_bytes;
  /* The words this lane loads beyond its own vector: the warp's first lane the HW words to its left, the last
     lane the HW words to its right (none beyond the row); in words from the vector's first. */
  const int ext = lane == 0 && !left_out ? -HW : lane == 31 && !right_out ? WV : 0;
  const int n_in = ROWS + PIMG_K - 1;
  const int n_rows = min(ROWS, out_height - oy0); /* rows this strip stores */

  StreamVec ring[DEPTH];
  uint ring_ext[DEPTH][HW];
  auto load_row = [&](int i, StreamVec& v, uint* e) {
    int y = oy0 - PIMG_R + i;
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
    y = min(max(y, 0), height - 1);
#else
    if (y < 0 || y >= height) {
#pragma unroll
      for (int q = 0; q < WV; ++q) v.w[q] = 0u;
#pragma unroll
      for (int h = 0; h < HW; ++h) e[h] = 0u;
      return;
    }
#endif
    const uchar* row = in_plane + (long)y * row_bytes + own;
    v = stream_load((const vec_t*)row);
    if (ext != 0) {
#pragma unroll
      for (int h = 0; h < HW; ++h) e[h] = __ldg((const uint*)row + ext + h);
    }
  };
#pragma unroll
  for (int d = 0; d < DEPTH; ++d)
    if (d < n_in) load_row(d, ring[d], ring_ext[d]);

#if SIMD
  const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#else
  const int colw[PIMG_K] = {PIMG_COL_WEIGHTS};
  const int roww[PIMG_K] = {PIMG_ROW_WEIGHTS};
#endif
  uint acc[PIMG_K][VEC / 2]; /* output bytes (pair_byte(p), pair_byte(p) + 2) in the lanes of word p */
#pragma unroll 1
  for (int base = 0; base < n_in; base += UNROLL_ROWS) {
#pragma unroll
    for (int u = 0; u < UNROLL_ROWS; ++u) {
      const int i = base + u;
      if (i >= n_in) break;
      const int slot = u % DEPTH, a0 = u % PIMG_K;
      uint w[NW];
#pragma unroll
      for (int q = 0; q < WV; ++q) w[HW + q] = ring[slot].w[q];
#pragma unroll
      for (int h = 0; h < HW; ++h) {
        const uint from_left = __shfl_up_sync(0xffffffffu, w[WV + h], 1);  /* the left lane's last HW words */
        const uint from_right = __shfl_down_sync(0xffffffffu, w[HW + h], 1); /* the right lane's first HW words */
        w[h] = lane == 0 ? ring_ext[slot][h] : from_left;
        w[HW + WV + h] = lane == 31 ? ring_ext[slot][h] : from_right;
      }
      if (left_out) {
#pragma unroll
        for (int h = 0; h < HW; ++h) {
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
          w[h] = __byte_perm(w[HW], 0u, stream_left_selector(h));
#else
          w[h] = 0u;
#endif
        }
      }
      if (right_out) {
#pragma unroll
        for (int h = 0; h < HW; ++h) {
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
          w[HW + WV + h] = __byte_perm(w[HW + WV - 1], 0u, stream_right_selector(h));
#else
          w[HW + WV + h] = 0u;
#endif
        }
      }
      /* the next load into the slot just read */
      if (i + DEPTH < n_in) load_row(i + DEPTH, ring[slot], ring_ext[slot]);

      uint even[NW], odd[NW];
#pragma unroll
      for (int q = 0; q < NW; ++q) {
        even[q] = pimg_even(w[q]);
        odd[q] = pimg_odd(w[q]);
      }
#if SIMD
#pragma unroll
      for (int b = 0; b < VEC / 2; ++b) acc[a0][b] = PIMG_SIMD_BIAS;
#pragma unroll
      for (int ky = 0; ky < PIMG_K; ++ky) {
        const int a = (u - ky + PIMG_K * UNROLL_ROWS) % PIMG_K; /* output row i - ky's slot */
#pragma unroll
        for (int kx = 0; kx < PIMG_K; ++kx) {
#pragma unroll
          for (int b = 0; b < VEC / 2; ++b)
            acc[a][b] += (uint)weight[ky * PIMG_K + kx] * pimg_pair(even, odd, SKIP + pimg_pair_byte(b) + kx * BPP);
        }
      }
#else
      uint hrow[VEC / 2]; /* this row filtered along x */
#pragma unroll
      for (int b = 0; b < VEC / 2; ++b) {
        hrow[b] = 0u;
#pragma unroll
        for (int kx = 0; kx < PIMG_K; ++kx)
          hrow[b] += (uint)roww[kx] * pimg_pair(even, odd, SKIP + pimg_pair_byte(b) + kx * BPP);
      }
#pragma unroll
      for (int b = 0; b < VEC / 2; ++b) acc[a0][b] = 0u;
#pragma unroll
      for (int ky = 0; ky < PIMG_K; ++ky) {
        const int a = (u - ky + PIMG_K * UNROLL_ROWS) % PIMG_K;
#pragma unroll
        for (int b = 0; b < VEC / 2; ++b) acc[a][b] += (uint)colw[ky] * hrow[b];
      }
#endif
      const int done = i - (PIMG_K - 1); /* the output row complete after this input row */
      if (inside && done >= 0 && done < n_rows) {
        const int a = (u + 1) % PIMG_K;
        uint o[WV];
#pragma unroll
        for (int q = 0; q < WV; ++q) {
#if SIMD
          o[q] = pimg_simd_word(acc[a][2 * q], acc[a][2 * q + 1]);
#else
          o[q] = pimg_packed_word(acc[a][2 * q], acc[a][2 * q + 1]);
#endif
        }
        stream_store(out_plane + (long)(oy0 + done) * row_bytes + b0, o);
      }
    }
  }
}
