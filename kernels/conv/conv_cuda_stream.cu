/* conv_cuda_stream (CUDA through NVRTC): a K x K filter with small signed integer weights (the family's
   PIMG_SIMD) on one byte per pixel of a row (one channel, or planar planes), each thread walking down a
   column strip: VEC output bytes of ROWS consecutive rows. Where cuda_vec's threads take a few rows each and
   load K - 1 halo rows again for every group, a strip loads each input row once per ROWS output rows, keeps
   DEPTH rows of loads in flight ahead of the row it computes (a ring of registers), and takes its
   neighbours' halo words from the lanes beside it (__shfl_sync); the warp's edge lanes load the word beyond
   the warp, and a lane at the row's edge builds it by the border rule (replicated edge byte, or zero).
   The taps run on two biased 16-bit lanes per 32-bit word (conv_packed.h's SIMD): the same integer sums as
   the family's rule, so the same bytes.
   Rows past the image follow the border rule (zero / clamp). There is no checked path: the plan refuses
   what the fast path cannot do (a valid border, interleaved channels, rows not a multiple of VEC bytes).
   Defines: VEC (4, 8, 16), ROWS, DEPTH (1 .. 8), BLOCK_X (a multiple of 32), BLOCK_Y, LAUNCH_BOUNDS, SIMD 1,
   SEPARABLE 0, PACKED 0, and the problem's PIMG_*. */
#include "conv/conv_portable.h"
#include "conv/conv_packed.h"

#if !SIMD || BPP != 1 || PIMG_BORDER == PIMG_BORDER_VALID
#error "conv_cuda_stream: SIMD taps on one byte per pixel, zero or replicated border"
#endif
#if BLOCK_X % 32 != 0
#error "conv_cuda_stream: BLOCK_X a multiple of 32 (whole warps along a row)"
#endif
#if PIMG_R > 4
#error "conv_cuda_stream: the halo (K / 2 bytes) must fit one 32-bit word (K at most 9)"
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
#define WV (VEC / 4)        /* 32-bit words per vector */
#define SKIP (4 - PIMG_R) /* a window's first input byte within the row's words w[] (from 4 bytes left) */

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

/* The word beyond a row's edge by the border rule: every byte the row's edge byte (replicate) or zero. */
static __device__ __forceinline__ uint stream_edge(uint word, uint selector) {
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
  return __byte_perm(word, 0u, selector);
#else
  return 0u;
#endif
}

static __host__ __device__ constexpr int stream_gcd(int a, int b) { return b == 0 ? a : stream_gcd(b, a % b); }
#define UNROLL_ROWS (PIMG_K * DEPTH / stream_gcd(PIMG_K, DEPTH)) /* rows per turn: slots are constants */

extern "C" __global__ void PIMG_BOUNDS conv_cuda_stream(const uchar* __restrict__ in, uchar* __restrict__ out,
                                                        int width, int height, int out_width, int out_height) {
  const int row_bytes = width; /* BPP 1; out_width == width (zero or replicated border) */
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
  /* The one word this lane loads beyond its own vector: the warp's first lane the word to its left, the last
     lane the word to its right (none beyond the row); in words from the vector's first. */
  const int ext = lane == 0 && !left_out ? -1 : lane == 31 && !right_out ? WV : 0;
  const int n_in = ROWS + PIMG_K - 1;
  const int n_rows = min(ROWS, out_height - oy0); /* rows this strip stores */

  StreamVec ring[DEPTH];
  uint ring_ext[DEPTH];
  auto load_row = [&](int i, StreamVec& v, uint& e) {
    int y = oy0 - PIMG_R + i;
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
    y = min(max(y, 0), height - 1);
#else
    if (y < 0 || y >= height) {
#pragma unroll
      for (int q = 0; q < WV; ++q) v.w[q] = 0u;
      e = 0u;
      return;
    }
#endif
    const uchar* row = in_plane + (long)y * row_bytes + own;
    v = stream_load((const vec_t*)row);
    if (ext != 0) e = __ldg((const uint*)row + ext);
  };
#pragma unroll
  for (int d = 0; d < DEPTH; ++d)
    if (d < n_in) load_row(d, ring[d], ring_ext[d]);

  uint acc[PIMG_K][VEC / 2];
#pragma unroll 1
  for (int base = 0; base < n_in; base += UNROLL_ROWS) {
#pragma unroll
    for (int u = 0; u < UNROLL_ROWS; ++u) {
      const int i = base + u;
      if (i >= n_in) break;
      const int slot = u % DEPTH, a0 = u % PIMG_K;
      /* the row's words: the left neighbour's last, this lane's vector, the right neighbour's first */
      uint w[WV + 2];
#pragma unroll
      for (int q = 0; q < WV; ++q) w[1 + q] = ring[slot].w[q];
      const uint from_left = __shfl_up_sync(0xffffffffu, w[WV], 1);
      const uint from_right = __shfl_down_sync(0xffffffffu, w[1], 1);
      w[0] = lane == 0 ? ring_ext[slot] : from_left;
      w[WV + 1] = lane == 31 ? ring_ext[slot] : from_right;
      if (left_out) w[0] = stream_edge(w[1], 0x0000u);
      if (right_out) w[WV + 1] = stream_edge(w[WV], 0x3333u);
      /* the next load into the slot just read */
      if (i + DEPTH < n_in) load_row(i + DEPTH, ring[slot], ring_ext[slot]);

      uint even[WV + 2], odd[WV + 2];
#pragma unroll
      for (int q = 0; q < WV + 2; ++q) {
        even[q] = pimg_even(w[q]);
        odd[q] = pimg_odd(w[q]);
      }
      const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#pragma unroll
      for (int b = 0; b < VEC / 2; ++b) acc[a0][b] = PIMG_SIMD_BIAS;
#pragma unroll
      for (int ky = 0; ky < PIMG_K; ++ky) {
        const int a = (u - ky + PIMG_K * UNROLL_ROWS) % PIMG_K; /* output row i - ky's slot */
#pragma unroll
        for (int kx = 0; kx < PIMG_K; ++kx) {
#pragma unroll
          for (int b = 0; b < VEC / 2; ++b)
            acc[a][b] += (uint)weight[ky * PIMG_K + kx] * pimg_pair(even, odd, SKIP + pimg_pair_byte(b) + kx);
        }
      }
      const int done = i - (PIMG_K - 1); /* the output row complete after this input row */
      if (inside && done >= 0 && done < n_rows) {
        const int a = (u + 1) % PIMG_K;
        uint o[WV];
#pragma unroll
        for (int q = 0; q < WV; ++q) o[q] = pimg_simd_word(acc[a][2 * q], acc[a][2 * q + 1]);
        stream_store(out_plane + (long)(oy0 + done) * row_bytes + b0, o);
      }
    }
  }
}
