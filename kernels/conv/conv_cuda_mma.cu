/* conv_cuda_mma (CUDA through NVRTC, sm_80 and later): the K x K convolution as integer matrix products on the
   tensor cores, exact. A warp computes TILES tiles of 128 consecutive output bytes of a row (interleaved pixels
   and channels together, or bytes of one plane) for ROWS consecutive rows, walking down the ROWS + K - 1 input
   rows once; each input row is fed to the K accumulators of the output rows it contributes to (rolling, as in
   conv_vec_body.h).
   One input row of one tile is one mma.sync.m16n8k32 per tap row ky (u8 pixels x s8 weights, s32 sums):
   row m of A (16 x 32 bytes) is the 32-byte input window of output bytes 8m .. 8m + 7 of the tile (starting
   PAD bytes before the first input byte they read, so that it is 4-byte aligned); B (32 x 8) is the tap row
   laid along the window: B[k][n] = w[ky][kx] where k = PAD + n + kx * BPP, else 0; D[m][n] is output byte
   8m + n. So every weight must fit in a signed byte and 7 + (K - 1) * BPP + PAD < 32 (the plan refuses other
   filters). Accumulators start at divisor / 2, so the finish is a shift for a power-of-two divisor (any
   negative sum saturates to 0, which is what rounding half away from zero and saturation give) and a
   division otherwise, then cvt.pack.sat packs two bytes with saturation: the family's rule exactly.
   Lane (g, t) of the warp (g = lane / 4, t = lane % 4) holds the A words at bytes 4t and 16 + 4t of windows g
   and g + 8, the B words of bytes 4t and 16 + 4t of column g (kMmaB, computed at compile time from the
   literal weights), and output bytes 8g + 2t, 8g + 2t + 1 and the same 64 bytes on: two 2-byte stores.
   Tiles whose windows leave the row, or rows and pointers that are not 4-byte aligned (inputs) or 2-byte
   aligned (outputs), take the checked path (still on the tensor cores), in a second kernel (conv_cuda_mma_edge,
   the plan's second launch) so that its registers do not limit the first: a word whose bytes lie outside the row,
   or any word of an unaligned row, is built byte by byte with the border rule, and bytes past the row are not
   stored; the other words and stores of an edge tile are the fast path's. Planar images are PLANES stacked planes.
   AHEAD: input rows whose loads are issued before the current row's products (0: each row loaded where it is
   used), bytes in flight against registers (the fast path's; the checked path loads each row where it is used).
   STAGE 1: the input rows go through shared memory instead: each warp keeps a ring of AHEAD + 1 rows of its
   tiles' span (16 x (8 TILES + 3) bytes from the window start rounded down to 16), filled by 16-byte cp.async
   copies (L1 bypassed) AHEAD rows ahead; the A words are read from the ring. The bytes in flight cost shared
   memory, not registers, and each input byte crosses L2 once per warp, not once per overlapping 4-byte
   fragment load. Fast tiles whose span leaves the row, and rows not 16-byte aligned, take the register path
   with no rows ahead.
   Defines: ROWS, TILES, AHEAD, STAGE, WARPS (the block is 32 x WARPS, one warp a row group), LAUNCH_BOUNDS, and
   the problem's PIMG_*. */
#include "conv/conv_cuda_common.cuh"

#define MMA_TILE 128                                   /* output bytes of a row per tile */
#define MMA_OFF ((CENTRE - PIMG_R) * BPP)              /* a window's first input byte relative to its output byte */
#define MMA_PAD (((MMA_OFF % 4) + 4) % 4)              /* window start rounded down to 4 bytes */
#define MMA_A16 (((MMA_OFF % 16) + 16) % 16)         /* window start rounded down to 16 bytes (STAGE) */
#define MMA_CHUNKS (8 * TILES + 3)                     /* 16-byte chunks of a staged row: the tiles' windows */
#define MMA_DIRECT_AHEAD (STAGE ? 0 : AHEAD)           /* rows ahead in registers on the fast register path */
#if 7 + (PIMG_K - 1) * BPP + MMA_PAD > 31
#error "the filter's span does not fit a 32-byte window (7 + (K - 1) * BPP + PAD > 31)"
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "conv_cuda_mma needs sm_80 or later (mma.sync m16n8k32 on u8 and s8)"
#endif

/* The B fragments: word h (bytes 16h + 4t .. 16h + 4t + 3 of column g) of tap row ky for lane 4g + t. */
struct MmaB {
  unsigned w[PIMG_K][2][32];
};

static constexpr __host__ __device__ int mma_tap(int ky, int k, int n) {
  const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
  const int d = k - MMA_PAD - n;
  if (d < 0 || d % BPP != 0 || d / BPP >= PIMG_K) return 0;
  return weight[ky * PIMG_K + d / BPP];
}

static constexpr __host__ __device__ MmaB mma_b() {
  MmaB b{};
  for (int ky = 0; ky < PIMG_K; ++ky)
    for (int h = 0; h < 2; ++h)
      for (int lane = 0; lane < 32; ++lane) {
        unsigned word = 0u;
        for (int i = 0; i < 4; ++i)
          word |= (unsigned)(mma_tap(ky, 16 * h + 4 * (lane & 3) + i, lane >> 2) & 0xff) << (8 * i);
        b.w[ky][h][lane] = word;
      }
  return b;
}

static constexpr __host__ __device__ bool mma_weights_fit() {
  const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
  for (int i = 0; i < PIMG_K * PIMG_K; ++i)
    if (weight[i] < -128 || weight[i] > 127) return false;
  return true;
}
static_assert(mma_weights_fit(), "every weight must fit in a signed byte");

__device__ const MmaB kMmaB = mma_b();

static constexpr __host__ __device__ int mma_log2(int d) { return d <= 1 ? 0 : 1 + mma_log2(d / 2); }

/* A biased sum's quotient (negative where the sum was negative, which saturates to 0). */
static __device__ __forceinline__ int mma_quot(int c) {
  if constexpr ((PIMG_DIVISOR & (PIMG_DIVISOR - 1)) == 0) {
    return c >> mma_log2(PIMG_DIVISOR);
  } else {
    return max(c, 0) / PIMG_DIVISOR;
  }
}

/* Two saturated bytes: lo in byte 0, hi in byte 1. */
static __device__ __forceinline__ unsigned mma_pack2(int lo, int hi) {
  unsigned r;
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(r) : "r"(hi), "r"(lo));
  return r;
}

static __device__ __forceinline__ void mma_16832(int (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* 16 bytes from global to shared memory, asynchronously, L1 bypassed; the group commit and the wait for all but
   the N latest groups. The "memory" clobbers keep the ring's reads after the wait. */
static __device__ __forceinline__ void mma_cp16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
static __device__ __forceinline__ void mma_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
static __device__ __forceinline__ void mma_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

/* Input bytes q .. q + 3 of row y of one plane as a word, each with the border rule (q may lie outside the row;
   the valid border only reaches such bytes for outputs that are not stored). Out of line: the checked path's
   words are called, not unrolled, which keeps NVRTC's time for a whole row group's code small. */
static __device__ __noinline__ unsigned mma_word_bytes(const uchar* __restrict__ in_plane, long q, int y, int width,
                                                       int height) {
  unsigned word = 0u;
#pragma unroll 1
  for (int j = 0; j < 4; ++j, ++q) {
    int x = (int)(q >= 0 ? q / BPP : -((-q + BPP - 1) / BPP)), yy = y;
    const int c = (int)(q - (long)x * BPP);
#if PIMG_BORDER == PIMG_BORDER_ZERO
    if (x < 0 || x >= width || yy < 0 || yy >= height) continue;
#else
    x = x < 0 ? 0 : (x >= width ? width - 1 : x);
    yy = yy < 0 ? 0 : (yy >= height ? height - 1 : yy);
#endif
    word |= (unsigned)__ldg(in_plane + ((long)yy * width + x) * BPP + c) << (8 * j);
  }
  return word;
}

/* The checked path's word: one aligned load where its 4 bytes lie inside an aligned row (most words of an edge
   tile), else byte by byte. */
static __device__ __forceinline__ unsigned mma_word_checked(const uchar* __restrict__ in_plane, long q, int y,
                                                            int width, int height, int in_row_bytes, bool aligned) {
  if (aligned && q >= 0 && q + 4 <= in_row_bytes && y >= 0 && y < height)
    return __ldg((const unsigned*)(in_plane + (long)y * in_row_bytes + q));
  return mma_word_bytes(in_plane, q, y, width, height);
}

/* One warp's row group: output rows oy0 .. oy0 + ROWS - 1, tiles starting at output byte x0. CHECKED: the
   words byte by byte with the border rule, the stores byte by byte inside the row. STAGED (not CHECKED): the
   input rows through the warp's ring in shared memory (AHEAD + 1 rows of 16 x MMA_CHUNKS bytes). */
template <bool CHECKED, bool STAGED>
static __device__ __forceinline__ void mma_rows(const uchar* __restrict__ in_plane, uchar* __restrict__ out_plane,
                                                int x0, int oy0, int width, int height, int out_height,
                                                int in_row_bytes, int out_row_bytes, bool aligned,
                                                uchar* __restrict__ ring) {
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  unsigned b[PIMG_K][2];
#pragma unroll
  for (int ky = 0; ky < PIMG_K; ++ky) {
    b[ky][0] = __ldg(&kMmaB.w[ky][0][lane]);
    b[ky][1] = __ldg(&kMmaB.w[ky][1][lane]);
  }
  int acc[PIMG_K][TILES][4];
  /* byte offsets of this lane's A words from the tile's first output byte: windows g and g + 8, bytes 4t and
     16 + 4t (a0 .. a3 in the order mma.sync reads them) */
  const int wofs[4] = {8 * g + 4 * t, 8 * (g + 8) + 4 * t, 8 * g + 16 + 4 * t, 8 * (g + 8) + 16 + 4 * t};
  /* the A words of input row i (0 .. ROWS + K - 2 of the group), loaded AHEAD rows before their products */
  unsigned a[ROWS + PIMG_K - 1][TILES][4];
  /* input row i's image row under the border rule, and whether it exists (the zero border's rows outside the
     image are zeros: not loaded, not copied) */
  auto row_y = [&](int i, bool& have) {
    int y = oy0 + (CENTRE - PIMG_R) + i;
#if PIMG_BORDER == PIMG_BORDER_ZERO
    have = y >= 0 && y < height;
#else
    y = y < 0 ? 0 : (y >= height ? height - 1 : y);
    have = true;
#endif
    return y;
  };
  auto load_row = [&](int i) {
    if constexpr (CHECKED) {
      const int y = oy0 + (CENTRE - PIMG_R) + i; /* the border rule is applied byte by byte */
#pragma unroll
      for (int s = 0; s < TILES; ++s)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          a[i][s][r] = mma_word_checked(in_plane, (long)x0 + s * MMA_TILE + wofs[r] + MMA_OFF - MMA_PAD, y, width, height,
                                        in_row_bytes, aligned);
    } else {
      bool have;
      const int y = row_y(i, have);
      const uchar* row = in_plane + (long)y * in_row_bytes + x0 + MMA_OFF - MMA_PAD;
#pragma unroll
      for (int s = 0; s < TILES; ++s)
#pragma unroll
        for (int r = 0; r < 4; ++r) a[i][s][r] = have ? __ldg((const unsigned*)(row + s * MMA_TILE + wofs[r])) : 0u;
    }
  };
  /* STAGED: input row i's span copied into ring slot i % (AHEAD + 1), one 16-byte chunk a lane */
  auto stage_row = [&](int i) {
    bool have;
    const int y = row_y(i, have);
    if (!have) return;
    const uchar* src = in_plane + (long)y * in_row_bytes + x0 + MMA_OFF - MMA_A16;
    const unsigned dst = (unsigned)__cvta_generic_to_shared(ring + (i % (AHEAD + 1)) * (16 * MMA_CHUNKS));
#pragma unroll
    for (int c = lane; c < MMA_CHUNKS; c += 32) mma_cp16(dst + 16 * c, src + 16 * c);
  };
  if constexpr (STAGED) {
    /* AHEAD groups, empty past the group's last row: the wait for all but AHEAD groups below then always means
       rows 0 .. i (with fewer groups here it would let row i pass unfinished once AHEAD >= ROWS + K - 1) */
#pragma unroll
    for (int i = 0; i < AHEAD; ++i) {
      if (i < ROWS + PIMG_K - 1) stage_row(i);
      mma_commit();
    }
  } else {
#pragma unroll
    for (int i = 0; i < (CHECKED ? 0 : MMA_DIRECT_AHEAD) && i < ROWS + PIMG_K - 1; ++i) load_row(i);
  }
#pragma unroll
  for (int i = 0; i < ROWS + PIMG_K - 1; ++i) {
    if constexpr (STAGED) {
      __syncwarp();  /* every lane has read row i - 1, whose slot row i + AHEAD takes */
      if (i + AHEAD < ROWS + PIMG_K - 1) stage_row(i + AHEAD);
      mma_commit();  /* a group per row, empty at the end, so that the wait below counts rows */
      mma_wait<AHEAD>();
      __syncwarp();  /* row i's chunks, copied by every lane, visible to all */
      bool have;
      row_y(i, have);
      const uchar* slot = ring + (i % (AHEAD + 1)) * (16 * MMA_CHUNKS) + (MMA_A16 - MMA_PAD);
#pragma unroll
      for (int s = 0; s < TILES; ++s)
#pragma unroll
        for (int r = 0; r < 4; ++r) a[i][s][r] = have ? *(const unsigned*)(slot + s * MMA_TILE + wofs[r]) : 0u;
    } else if (i + (CHECKED ? 0 : MMA_DIRECT_AHEAD) < ROWS + PIMG_K - 1) {
      load_row(i + (CHECKED ? 0 : MMA_DIRECT_AHEAD));
    }
    if (i < ROWS) {
#pragma unroll
      for (int s = 0; s < TILES; ++s)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i % PIMG_K][s][e] = PIMG_DIVISOR / 2;
    }
#pragma unroll
    for (int ky = 0; ky < PIMG_K; ++ky) {
      const int j = i - ky; /* the output row this input row feeds through tap row ky */
      if (j < 0 || j >= ROWS) continue;
#pragma unroll
      for (int s = 0; s < TILES; ++s) mma_16832(acc[j % PIMG_K][s], a[i][s], b[ky][0], b[ky][1]);
    }
    const int done = i - (PIMG_K - 1); /* the output row complete after this input row */
    if (done >= 0 && oy0 + done < out_height) {
      uchar* out_row = out_plane + (long)(oy0 + done) * out_row_bytes + x0;
#pragma unroll
      for (int s = 0; s < TILES; ++s) {
        const int* c = acc[done % PIMG_K][s];
        const unsigned lo = mma_pack2(mma_quot(c[0]), mma_quot(c[1]));
        const unsigned hi = mma_pack2(mma_quot(c[2]), mma_quot(c[3]));
        const int b0 = s * MMA_TILE + 8 * g + 2 * t, b1 = b0 + 64;
        if constexpr (CHECKED) {
          if (aligned && x0 + b0 + 1 < out_row_bytes) {
            *(unsigned short*)(out_row + b0) = (unsigned short)lo;
          } else {
            if (x0 + b0 < out_row_bytes) out_row[b0] = (uchar)lo;
            if (x0 + b0 + 1 < out_row_bytes) out_row[b0 + 1] = (uchar)(lo >> 8);
          }
          if (aligned && x0 + b1 + 1 < out_row_bytes) {
            *(unsigned short*)(out_row + b1) = (unsigned short)hi;
          } else {
            if (x0 + b1 < out_row_bytes) out_row[b1] = (uchar)hi;
            if (x0 + b1 + 1 < out_row_bytes) out_row[b1 + 1] = (uchar)(hi >> 8);
          }
        } else {
          *(unsigned short*)(out_row + b0) = (unsigned short)lo;
          *(unsigned short*)(out_row + b1) = (unsigned short)hi;
        }
      }
    }
  }
}

/* Whether the tile at output byte x0 takes a fast path (whole aligned words and stores, its windows inside the row):
   conv_cuda_mma computes those tiles, conv_cuda_mma_edge the others. */
static __device__ __forceinline__ bool mma_fast_tile(int x0, int in_row_bytes, int out_row_bytes, bool aligned) {
  return aligned && x0 + MMA_OFF - MMA_PAD >= 0 &&
         x0 + (TILES - 1) * MMA_TILE + 8 * 15 + 32 + MMA_OFF - MMA_PAD <= in_row_bytes &&
         x0 + TILES * MMA_TILE <= out_row_bytes;
}

static __device__ __forceinline__ bool mma_aligned(const uchar* in, const uchar* out, int in_row_bytes,
                                                   int out_row_bytes) {
  return (in_row_bytes % 4) == 0 && (out_row_bytes % 2) == 0 &&
         (((unsigned long long)in & 3) | ((unsigned long long)out & 1)) == 0;
}

/* x: TILES tiles of 128 output bytes per block; y: WARPS row groups of ROWS rows per block, over every plane.
   The fast tiles only: the edge tiles are conv_cuda_mma_edge's (a second launch), whose checked path would
   otherwise set this kernel's registers (ptxas: 96 against 62 on gaussian5, 3 channels, rows 16). Every branch below is uniform
   across a warp (mma.sync needs all 32 lanes). */
extern "C" __global__ void PIMG_BOUNDS conv_cuda_mma(const uchar* __restrict__ in, uchar* __restrict__ out, int width,
                                                     int height, int out_width, int out_height) {
  const int in_row_bytes = width * BPP, out_row_bytes = out_width * BPP;
  const int x0 = blockIdx.x * (TILES * MMA_TILE);
  const int groups = (out_height + ROWS - 1) / ROWS;
  const int gy = blockIdx.y * WARPS + threadIdx.y;
  if (gy >= PLANES * groups || !mma_fast_tile(x0, in_row_bytes, out_row_bytes, mma_aligned(in, out, in_row_bytes,
                                                                                            out_row_bytes)))
    return;
  const int plane = gy / groups;
  const int oy0 = (gy - plane * groups) * ROWS;
  const uchar* in_plane = in + (long)plane * in_row_bytes * height;
  uchar* out_plane = out + (long)plane * out_row_bytes * out_height;
#if STAGE
  __shared__ __align__(16) uchar ring[WARPS][AHEAD + 1][16 * MMA_CHUNKS];
  const bool staged = (in_row_bytes % 16) == 0 && ((unsigned long long)in & 15) == 0 &&
                      x0 + MMA_OFF - MMA_A16 >= 0 && x0 + MMA_OFF - MMA_A16 + 16 * MMA_CHUNKS <= in_row_bytes;
  if (staged) {
    mma_rows<false, true>(in_plane, out_plane, x0, oy0, width, height, out_height, in_row_bytes, out_row_bytes, true,
                          &ring[threadIdx.y][0][0]);
    return;
  }
#endif
  mma_rows<false, false>(in_plane, out_plane, x0, oy0, width, height, out_height, in_row_bytes, out_row_bytes, true,
                         nullptr);
}

/* The tiles conv_cuda_mma leaves: block x 0 is the row's first tile column, block x i > 0 the column
   columns - right + i - 1 (the plan's right covers the row's last columns that are not fast, or all of them where
   rows are not aligned); a tile that is fast is conv_cuda_mma's and skipped here. */
extern "C" __global__ void PIMG_BOUNDS conv_cuda_mma_edge(const uchar* __restrict__ in, uchar* __restrict__ out,
                                                          int width, int height, int out_width, int out_height,
                                                          int right) {
  const int in_row_bytes = width * BPP, out_row_bytes = out_width * BPP;
  const int columns = (out_row_bytes + TILES * MMA_TILE - 1) / (TILES * MMA_TILE);
  const int column = blockIdx.x == 0 ? 0 : columns - right + (int)blockIdx.x - 1;
  if (blockIdx.x > 0 && column < 1) return;
  const int x0 = column * (TILES * MMA_TILE);
  const int groups = (out_height + ROWS - 1) / ROWS;
  const int gy = blockIdx.y * WARPS + threadIdx.y;
  const bool aligned = mma_aligned(in, out, in_row_bytes, out_row_bytes);
  if (gy >= PLANES * groups || x0 >= out_row_bytes || mma_fast_tile(x0, in_row_bytes, out_row_bytes, aligned)) return;
  const int plane = gy / groups;
  const int oy0 = (gy - plane * groups) * ROWS;
  mma_rows<true, false>(in + (long)plane * in_row_bytes * height, out + (long)plane * out_row_bytes * out_height, x0,
                        oy0, width, height, out_height, in_row_bytes, out_row_bytes, aligned, nullptr);
}
