/* OpenCL vectorised KxK convolution, conv_vec (the port of conv_cuda_vec.cu): each work-item computes VEC
   consecutive output bytes of a row (interleaved pixels and channels together, or bytes of one plane) for
   ROWS consecutive rows. It walks down the ROWS + K - 1 input rows once, loading each row's segment (the VEC
   bytes plus R * BPP halo bytes on each side) as whole aligned VEC-byte vectors (uint / uint2 / uint4), and
   adds it into the K rolling accumulator rows that it feeds; a finished row is stored with one VEC-byte
   store. Weights are literals and the loops are unrolled. Work-items whose segment leaves the row, or whose
   rows or buffers are not VEC-aligned, compute their bytes one by one with the border rule (the checked
   path). Planar images are PLANES stacked planes.
   SEPARABLE 1 (only for a filter the family factorised, PIMG_SEPARABLE): each input row is first filtered
   along x with PIMG_ROW_WEIGHTS, then added into the K rows with PIMG_COL_WEIGHTS: 2K instead of K*K
   multiply-adds per output byte, the same integer sum. OpenCL C 1.2 has no overloading, so the conversions
   between a vector and its 32-bit words are per-VEC macros. PACKED 1 (with SEPARABLE, where the family
   set PIMG_PACKED): both passes on two 16-bit lanes per 32-bit word, as conv_cuda_vec (conv_packed.h).
   Defines: VEC (4, 8, 16), ROWS, SEPARABLE, PACKED, BLOCK_X, BLOCK_Y, and the problem's PIMG_*. */
#include "conv/conv_rule.h"
#include "conv/conv_packed.h"

#if !defined(__ENDIAN_LITTLE__)
#error "conv_vec reads bytes out of 32-bit words in little-endian order"
#endif

/* Output (ox, oy) is centred on input (ox + CENTRE, oy + CENTRE). */
#if PIMG_BORDER == PIMG_BORDER_VALID
#define CENTRE PIMG_R
#else
#define CENTRE 0
#endif

/* A row holds BPP bytes per pixel: interleaved rows carry all channels, planar rows one plane's. */
#if PIMG_PLANAR
#define BPP 1
#define PLANES PIMG_CHANNELS
#else
#define BPP PIMG_CHANNELS
#define PLANES 1
#endif

/* vec_t, PUT_WORDS(words, vector): the vector's 32-bit words into words[0 .. WV); GET_VEC(words): the vector
   of words[0 .. WV). Components are named .s0 .. .s3 (a parameter named w would also replace .w). */
#if VEC == 4
typedef uint vec_t;
#define PUT_WORDS(words, vector) ((words)[0] = (vector))
#define GET_VEC(words) ((words)[0])
#elif VEC == 8
typedef uint2 vec_t;
#define PUT_WORDS(words, vector) \
  do {                           \
    const uint2 put_ = (vector); \
    (words)[0] = put_.s0;        \
    (words)[1] = put_.s1;        \
  } while (0)
#define GET_VEC(words) ((uint2)((words)[0], (words)[1]))
#elif VEC == 16
typedef uint4 vec_t;
#define PUT_WORDS(words, vector) \
  do {                           \
    const uint4 put_ = (vector); \
    (words)[0] = put_.s0;        \
    (words)[1] = put_.s1;        \
    (words)[2] = put_.s2;        \
    (words)[3] = put_.s3;        \
  } while (0)
#define GET_VEC(words) ((uint4)((words)[0], (words)[1], (words)[2], (words)[3]))
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

/* Fast path: bytes [b0, b0 + VEC) of output rows oy0 .. oy0 + ROWS - 1 of one plane; the caller checked that
   every loaded vector lies inside its input row, that rows and buffers are VEC-aligned and that the output
   vector lies inside its row. Rows outside the image follow the border rule (zero / clamp); with the valid
   border they only feed rows past out_height, which are not stored. */
static inline void rows_fast(__global const uchar* restrict in_plane, __global uchar* restrict out_plane, int b0,
                             int oy0, int height, int out_height, int in_row_bytes, int out_row_bytes) {
#if SEPARABLE
  const int colw[PIMG_K] = {PIMG_COL_WEIGHTS};
  const int roww[PIMG_K] = {PIMG_ROW_WEIGHTS};
#else
  const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#endif
#if PACKED
  uint acc[PIMG_K][VEC / 2]; /* output bytes (pimg_pair_byte(p), pimg_pair_byte(p) + 2) in lanes of word p */
#else
  int acc[PIMG_K][VEC];
#endif
#pragma unroll
  for (int i = 0; i < ROWS + PIMG_K - 1; ++i) {
    if (i < ROWS) {
#pragma unroll
      for (int b = 0; b < (PACKED ? VEC / 2 : VEC); ++b) acc[i % PIMG_K][b] = 0;
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
      __global const vec_t* src = (__global const vec_t*)(in_plane + (long)y * in_row_bytes + b0) + VLO;
#pragma unroll
      for (int v = 0; v < NV; ++v) PUT_WORDS(w + v * WV, src[v]);
    } else {
#pragma unroll
      for (int q = 0; q < NV * WV; ++q) w[q] = 0u;
    }
#if PACKED
    uint even[NV * WV], odd[NV * WV]; /* bytes 0, 2 and bytes 1, 3 of each word, as 16-bit lanes */
#pragma unroll
    for (int q = 0; q < NV * WV; ++q) {
      even[q] = w[q] & 0x00ff00ffu;
      odd[q] = (w[q] >> 8) & 0x00ff00ffu;
    }
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
#else
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
      const int j = i - ky; /* the output row this input row feeds through tap row ky */
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
        for (int b = 0; b < VEC; ++b) acc[j % PIMG_K][b] += weight[ky * PIMG_K + kx] * px[b + kx * BPP];
      }
    }
#endif
    const int done = i - (PIMG_K - 1); /* the output row complete after this input row */
    if (done >= 0 && oy0 + done < out_height) {
      uint o[WV];
#pragma unroll
      for (int q = 0; q < WV; ++q) {
#if PACKED
        o[q] = pimg_packed_word(acc[done % PIMG_K][2 * q], acc[done % PIMG_K][2 * q + 1]);
#else
        uint word = 0u;
#pragma unroll
        for (int e = 0; e < 4; ++e)
          word |= (uint)pimg_conv_finish(acc[done % PIMG_K][4 * q + e], PIMG_DIVISOR) << (8 * e);
        o[q] = word;
#endif
      }
      *(__global vec_t*)(out_plane + (long)(oy0 + done) * out_row_bytes + b0) = GET_VEC(o);
    }
  }
}

/* Byte c of input pixel (x, y) of one plane with the border rule (valid: only reached inside the image). */
static inline int load_checked(__global const uchar* restrict in_plane, int x, int y, int c, int width,
                               int height) {
#if PIMG_BORDER == PIMG_BORDER_ZERO
  if (x < 0 || y < 0 || x >= width || y >= height) return 0;
#elif PIMG_BORDER == PIMG_BORDER_REPLICATE
  x = pimg_clamp_int(x, 0, width - 1);
  y = pimg_clamp_int(y, 0, height - 1);
#endif
  return in_plane[((long)y * width + x) * BPP + c];
}

/* Checked path: the same bytes and rows, each byte computed on its own with the border rule and stored alone;
   bytes past the row and rows past out_height are skipped. */
static void rows_checked(__global const uchar* restrict in_plane, __global uchar* restrict out_plane, int b0,
                         int oy0, int width, int height, int out_height, int out_row_bytes) {
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

/* x: one VEC-byte output vector per work-item; y: one group of ROWS rows per work-item over every plane. */
__kernel __attribute__((reqd_work_group_size(BLOCK_X, BLOCK_Y, 1))) void conv_vec(
    __global const uchar* restrict in, __global uchar* restrict out, int width, int height, int out_width,
    int out_height) {
  const int in_row_bytes = width * BPP, out_row_bytes = out_width * BPP;
  const int b0 = (int)get_global_id(0) * VEC;
  const int groups = (out_height + ROWS - 1) / ROWS;
  const int gy = (int)get_global_id(1);
  if (b0 >= out_row_bytes || gy >= PLANES * groups) return;
  const int plane = gy / groups;
  const int oy0 = (gy - plane * groups) * ROWS;
  __global const uchar* in_plane = in + (long)plane * in_row_bytes * height;
  __global uchar* out_plane = out + (long)plane * out_row_bytes * out_height;
  const bool aligned = (in_row_bytes % VEC) == 0 && (out_row_bytes % VEC) == 0 &&
                       (((size_t)in | (size_t)out) & (size_t)(VEC - 1)) == 0;
  if (aligned && b0 + VLO * VEC >= 0 && b0 + (VHI + 1) * VEC <= in_row_bytes && b0 + VEC <= out_row_bytes)
    rows_fast(in_plane, out_plane, b0, oy0, height, out_height, in_row_bytes, out_row_bytes);
  else
    rows_checked(in_plane, out_plane, b0, oy0, width, height, out_height, out_row_bytes);
}
