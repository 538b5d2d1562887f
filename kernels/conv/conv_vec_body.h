/* Vectorised KxK convolution written once for OpenCL C (conv_vec.cl, entry conv_vec) and CUDA through NVRTC
   (conv_cuda_vec.cu, entry conv_cuda_vec), over conv_portable.h: each work-item (thread) computes VEC
   consecutive output bytes of a row (interleaved pixels and channels together, or bytes of one plane) for
   ROWS consecutive rows. It walks down the ROWS + K - 1 input rows once, loading each row's segment (the VEC
   bytes plus R * BPP halo bytes on each side) as whole aligned VEC-byte vectors (read-only loads: __ldg on
   CUDA), and adds it into the K rolling accumulator rows that it feeds; a finished row is stored with one
   VEC-byte store. Weights are literals and the loops are unrolled. Work-items whose segment leaves the row,
   or whose rows or buffers are not VEC-aligned, compute their bytes one by one with the border rule (the
   checked path). Planar images are PLANES stacked planes.
   SEPARABLE 1 (only for a filter the family factorised, PIMG_SEPARABLE): each input row is first
   filtered along x with PIMG_ROW_WEIGHTS, then added into the K rows with PIMG_COL_WEIGHTS: 2K instead
   of K*K multiply-adds per output byte, the same integer sum. SHFL 1 (CUDA only): a thread loads only its own
   vector of each row and takes its neighbours' vectors from the lanes beside it (__shfl_sync); lanes at
   a warp's edge load theirs. SHFL needs BLOCK_X to be a multiple of 32 (whole warps along a row).
   PACKED 1 (with SEPARABLE, only where the family set PIMG_PACKED: non-negative factors whose sums fit
   16 bits, divisor 2^PIMG_PACK_SHIFT): both passes run on two 16-bit lanes per 32-bit word, output bytes
   b and b + 2 in one word (conv_packed.h), half the multiply-adds and none of the per-byte unpacking,
   rounding and saturation of the int path; the same integer sums, so the same bytes. OpenCL C has no
   overloading, so the conversions between a vector and its 32-bit words are per-VEC macros.
   SIMD 1 (not with SEPARABLE, only where the family set PIMG_SIMD: small signed integer weights, divisor
   2^PIMG_SIMD_SHIFT): the K x K taps on the same two 16-bit lanes per word, each lane biased so signed sums
   stay in range, finished by a lane shift and a saturation from sign bits (conv_packed.h): one multiply-add
   (an add or a subtract for weights of +-1) per tap for two output bytes, 4 bytes stored from 2 sum words
   with byte permutes; the same integer sums, so the same bytes.
   Defines: VEC (4, 8, 16), ROWS, SEPARABLE, PACKED, SIMD, SHFL, BLOCK_X, BLOCK_Y, (CUDA) LAUNCH_BOUNDS, and the
   problem's PIMG_*; the wrapper defines CONV_VEC_ENTRY, the kernel's name. */
#include "conv/conv_portable.h"
#include "conv/conv_packed.h"

#ifndef CONV_VEC_ENTRY
#error "the wrapper names the entry: CONV_VEC_ENTRY"
#endif
#ifndef SHFL
#define SHFL 0
#endif

/* vec_t, PUT_WORDS(words, vector): the vector's 32-bit words into words[0 .. WV); GET_VEC(words): the vector
   of words[0 .. WV). */
#if VEC == 4
typedef uint vec_t;
#define PUT_WORDS(words, vector) ((words)[0] = (vector))
#define GET_VEC(words) ((words)[0])
#elif VEC == 8
typedef uint2 vec_t;
#define PUT_WORDS(words, vector) \
  do {                           \
    const uint2 put_ = (vector); \
    (words)[0] = put_.x;         \
    (words)[1] = put_.y;         \
  } while (0)
#define GET_VEC(words) CONV_UINT2((words)[0], (words)[1])
#elif VEC == 16
typedef uint4 vec_t;
#define PUT_WORDS(words, vector) \
  do {                           \
    const uint4 put_ = (vector); \
    (words)[0] = put_.x;         \
    (words)[1] = put_.y;         \
    (words)[2] = put_.z;         \
    (words)[3] = put_.w;         \
  } while (0)
#define GET_VEC(words) CONV_UINT4((words)[0], (words)[1], (words)[2], (words)[3])
#else
#error "VEC must be 4, 8 or 16"
#endif

#define WV (VEC / 4)                         /* 32-bit words per vector */
#define HALO (PIMG_R * BPP)                  /* halo bytes on each side of a segment */
#define OFF ((CENTRE - PIMG_R) * BPP)        /* a window's first input byte relative to its output byte */
#define SEG (VEC + 2 * HALO)                 /* input bytes of one row that VEC output bytes read */
#define FLOOR_DIV(a, b) ((a) >= 0 ? (a) / (b) : -((-(a) + (b) - 1) / (b)))
#define VLO FLOOR_DIV(OFF, VEC)              /* first vector loaded, relative to the output vector */
#define VHI FLOOR_DIV(OFF + SEG - 1, VEC)    /* last vector loaded */
#define NV (VHI - VLO + 1)                   /* vectors loaded per input row */
#define SKIP (OFF - VLO * VEC)               /* the segment's first byte within the loaded vectors */

/* One tap of the K x K sums into accumulator word b (in rows_fast,
   over its even[] and odd[] words or px[] bytes): SIMD, the weight times the lanes of input bytes
   pair_byte(b) + kx BPP and 2 further (mod 2^32, exact once the lanes end in range); else one byte. */
#if SIMD
#define VEC_ACC_WORDS (VEC / 2)
#define VEC_TAP(weight, b, kx) ((uint)(weight)*pimg_pair(even, odd, SKIP + pimg_pair_byte(b) + (kx)*BPP))
#else
#define VEC_ACC_WORDS VEC
#define VEC_TAP(weight, b, kx) ((weight)*px[(b) + (kx)*BPP])
#endif

/* Fast path: bytes [b0, b0 + VEC) of output rows oy0 .. oy0 + ROWS - 1 of one plane; the caller checked that
   every loaded vector lies inside its input row, that rows and pointers are VEC-aligned and that the output
   vector lies inside its row. Rows outside the image follow the border rule (zero / clamp); with the valid
   border they only feed rows past out_height, which are not stored. */
CONV_FN void rows_fast(PIX_GLOBAL const uchar* PIX_RESTRICT in_plane, PIX_GLOBAL uchar* PIX_RESTRICT out_plane, int b0,
                       int oy0, int height, int out_height, int in_row_bytes, int out_row_bytes, bool store) {
#if SEPARABLE
  const int colw[PIMG_K] = {PIMG_COL_WEIGHTS};
  const int roww[PIMG_K] = {PIMG_ROW_WEIGHTS};
#else
  const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#endif
#if SHFL
  const int lane = PIX_LID(0) & 31;
#endif
#if PACKED || SIMD
  uint acc[PIMG_K][VEC / 2]; /* output bytes (pair_byte(p), pair_byte(p) + 2) in lanes of word p */
#else
  int acc[PIMG_K][VEC];
#endif
#pragma unroll
  for (int i = 0; i < ROWS + PIMG_K - 1; ++i) {
    if (i < ROWS) {
#if SIMD
#pragma unroll
      for (int b = 0; b < VEC / 2; ++b) acc[i % PIMG_K][b] = PIMG_SIMD_BIAS;
#else
#pragma unroll
      for (int b = 0; b < (PACKED ? VEC / 2 : VEC); ++b) acc[i % PIMG_K][b] = 0;
#endif
    }
    int y = oy0 + (CENTRE - PIMG_R) + i;
    uint w[NV * WV];
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
    y = pimg_clamp_int(y, 0, height - 1);
    const bool have = true;
#else
    const bool have = y >= 0 && y < height;
#endif
    if (have) {
#if SHFL
      /* Every lane of the warp comes here (the caller keeps them together); a lane whose own vector lies
         past the row reads the row's last vector instead, and its neighbours do not use what it shares. */
      const int own = b0 + VEC <= in_row_bytes ? b0 : in_row_bytes - VEC;
      const vec_t* src = (const vec_t*)(in_plane + (long)y * in_row_bytes + own);
      uint mine[WV];
      PUT_WORDS(mine, CONV_LDG(src));
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        const int d = VLO + v; /* which neighbour's vector */
        if (d == 0) {
#pragma unroll
          for (int q = 0; q < WV; ++q) w[v * WV + q] = mine[q];
        } else {
#pragma unroll
          for (int q = 0; q < WV; ++q) w[v * WV + q] = __shfl_sync(0xffffffffu, mine[q], lane + d);
          if ((lane + d < 0 || lane + d > 31) && store) PUT_WORDS(w + v * WV, CONV_LDG(src + d));
        }
      }
#else
      PIX_GLOBAL const vec_t* src = (PIX_GLOBAL const vec_t*)(in_plane + (long)y * in_row_bytes + b0) + VLO;
#pragma unroll
      for (int v = 0; v < NV; ++v) PUT_WORDS(w + v * WV, CONV_LDG(src + v));
#endif
    } else {
#pragma unroll
      for (int q = 0; q < NV * WV; ++q) w[q] = 0u;
    }
#if PACKED || SIMD
    uint even[NV * WV], odd[NV * WV]; /* bytes 0, 2 and bytes 1, 3 of each word, as 16-bit lanes */
#pragma unroll
    for (int q = 0; q < NV * WV; ++q) {
      even[q] = pimg_even(w[q]);
      odd[q] = pimg_odd(w[q]);
    }
#endif
#if PACKED
    uint h[VEC / 2]; /* this row filtered along x, two output bytes per word */
#pragma unroll
    for (int p = 0; p < VEC / 2; ++p) {
      h[p] = 0u;
#pragma unroll
      for (int kx = 0; kx < PIMG_K; ++kx)
        h[p] += (uint)roww[kx] * pimg_pair(even, odd, SKIP + pimg_pair_byte(p) + kx * BPP);
    }
#pragma unroll
    for (int ky = 0; ky < PIMG_K; ++ky) {
      const int j = i - ky;
      if (j < 0 || j >= ROWS) continue;
#pragma unroll
      for (int p = 0; p < VEC / 2; ++p) acc[j % PIMG_K][p] += (uint)colw[ky] * h[p];
    }
#elif !SIMD
    int px[SEG];
#pragma unroll
    for (int n = 0; n < SEG; ++n) px[n] = (int)((w[(SKIP + n) >> 2] >> (((SKIP + n) & 3) * 8)) & 0xffu);
#endif
#if PACKED
#elif SEPARABLE
    int h[VEC]; /* this row filtered along x */
#pragma unroll
    for (int b = 0; b < VEC; ++b) {
      h[b] = 0;
#pragma unroll
      for (int kx = 0; kx < PIMG_K; ++kx) h[b] += roww[kx] * px[b + kx * BPP];
    }
#pragma unroll
    for (int ky = 0; ky < PIMG_K; ++ky) {
      const int j = i - ky;
      if (j < 0 || j >= ROWS) continue;
#pragma unroll
      for (int b = 0; b < VEC; ++b) acc[j % PIMG_K][b] += colw[ky] * h[b];
    }
#else
#pragma unroll
    for (int ky = 0; ky < PIMG_K; ++ky) {
      const int j = i - ky; /* the output row this input row feeds through tap row ky */
      if (j < 0 || j >= ROWS) continue;
#pragma unroll
      for (int kx = 0; kx < PIMG_K; ++kx) {
#pragma unroll
        for (int b = 0; b < VEC_ACC_WORDS; ++b) acc[j % PIMG_K][b] += VEC_TAP(weight[ky * PIMG_K + kx], b, kx);
      }
    }
#endif
    const int done = i - (PIMG_K - 1); /* the output row complete after this input row */
    if (store && done >= 0 && oy0 + done < out_height) {
      uint o[WV];
#pragma unroll
      for (int q = 0; q < WV; ++q) {
#if SIMD
        o[q] = pimg_simd_word(acc[done % PIMG_K][2 * q], acc[done % PIMG_K][2 * q + 1]);
#elif PACKED
        o[q] = pimg_packed_word(acc[done % PIMG_K][2 * q], acc[done % PIMG_K][2 * q + 1]);
#else
        uint word = 0u;
#pragma unroll
        for (int e = 0; e < 4; ++e)
          word |= (uint)pimg_conv_finish(acc[done % PIMG_K][4 * q + e], PIMG_DIVISOR) << (8 * e);
        o[q] = word;
#endif
      }
      *(PIX_GLOBAL vec_t*)(out_plane + (long)(oy0 + done) * out_row_bytes + b0) = GET_VEC(o);
    }
  }
}

/* Byte c of input pixel (x, y) of one plane with the border rule (valid: only reached inside the image). */
CONV_FN int load_checked(PIX_GLOBAL const uchar* PIX_RESTRICT in_plane, int x, int y, int c, int width, int height) {
  CONV_BORDER_XY(x, y, width, height);
  return CONV_LDG(in_plane + ((long)y * width + x) * BPP + c);
}

/* Checked path: the same bytes and rows, each byte computed on its own with the border rule and stored alone;
   bytes past the row and rows past out_height are skipped. */
CONV_NOINLINE void rows_checked(PIX_GLOBAL const uchar* PIX_RESTRICT in_plane, PIX_GLOBAL uchar* PIX_RESTRICT out_plane,
                                int b0, int oy0, int width, int height, int out_height, int out_row_bytes) {
  const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#pragma unroll 1
  for (int j = 0; j < ROWS; ++j) {
    const int oy = oy0 + j;
    if (oy >= out_height) break;
#pragma unroll 1
    for (int b = b0; b < b0 + VEC; ++b) {
      if (b >= out_row_bytes) break;
      const int ox = b / BPP, c = b - ox * BPP;
      const int x0 = ox + CENTRE - PIMG_R, y0 = oy + CENTRE - PIMG_R;
      int acc = 0;
#pragma unroll
      for (int ky = 0; ky < PIMG_K; ++ky) {
#pragma unroll
        for (int kx = 0; kx < PIMG_K; ++kx)
          acc += weight[ky * PIMG_K + kx] * load_checked(in_plane, x0 + kx, y0 + ky, c, width, height);
      }
      out_plane[(long)oy * out_row_bytes + b] = (uchar)pimg_conv_finish(acc, PIMG_DIVISOR);
    }
  }
}

/* x: one VEC-byte output vector per thread; y: one group of ROWS rows per thread over every plane. */
CONV_KERNEL CONV_VEC_ENTRY(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out, int width,
                           int height, int out_width, int out_height) {
  const int in_row_bytes = width * BPP, out_row_bytes = out_width * BPP;
  const int b0 = PIX_GID_X * VEC;
  const int groups = (out_height + ROWS - 1) / ROWS;
  const int gy = PIX_GID_Y;
  /* With SHFL a warp (one row group, BLOCK_X a multiple of 32) stays together through rows_fast. */
  if (gy >= PLANES * groups) return;
#if !SHFL
  if (b0 >= out_row_bytes) return;
#endif
  const int plane = gy / groups;
  const int oy0 = (gy - plane * groups) * ROWS;
  PIX_GLOBAL const uchar* in_plane = in + (long)plane * in_row_bytes * height;
  PIX_GLOBAL uchar* out_plane = out + (long)plane * out_row_bytes * out_height;
  const bool aligned = (in_row_bytes % VEC) == 0 && (out_row_bytes % VEC) == 0 &&
                       ((CONV_ADDR(in) | CONV_ADDR(out)) & (VEC - 1)) == 0;
  const bool fast = aligned && b0 + VLO * VEC >= 0 && b0 + (VHI + 1) * VEC <= in_row_bytes &&
                    b0 + VEC <= out_row_bytes;
#if SHFL
  if (aligned) rows_fast(in_plane, out_plane, b0, oy0, height, out_height, in_row_bytes, out_row_bytes, fast);
  if (!fast && b0 < out_row_bytes) rows_checked(in_plane, out_plane, b0, oy0, width, height, out_height, out_row_bytes);
#else
  if (fast)
    rows_fast(in_plane, out_plane, b0, oy0, height, out_height, in_row_bytes, out_row_bytes, true);
  else
    rows_checked(in_plane, out_plane, b0, oy0, width, height, out_height, out_row_bytes);
#endif
}
