/* Two 16-bit lanes per 32-bit word for the conv kernels written once for CUDA and OpenCL (conv_vec_body.h):
   output bytes b and b + 2 of a row share a word, so one multiply-add by a weight serves two bytes. Word p
   of a row's VEC/2 words holds output bytes pimg_pair_byte(p) and pimg_pair_byte(p) + 2: words 2q and
   2q + 1 together are output bytes 4q .. 4q + 3. Two uses:
   PACKED 1 (separable passes): the family allows it (PIMG_PACKED) only where no lane can carry into the
   other: non-negative row and column weights, the row pass's sums and the whole sum plus the rounding half
   under 2^16, the divisor 2^PIMG_PACK_SHIFT with a shift of at most 8 and no quotient over 255.
   SIMD 1 (the K x K taps, signed weights): every lane starts at 2^15 + divisor/2, so with the family's
   bounds (PIMG_SIMD: 255 x the negative weights' magnitudes at most 2^15 - 256, 255 x the positive
   weights + divisor/2 under 2^15, divisor 2^PIMG_SIMD_SHIFT) each lane's final sum lies in [256, 2^16):
   the word sums are exact mod 2^32 whatever the intermediate borrows between lanes, because linear sums
   of packed words equal the packed lane sums once both lanes end in range. The finish divides (a lane
   shift), rebiases to 2^15 + q, and saturates q to [0, 255] from two sign bits: q >= 0 is the lane's top
   bit, q >= 256 the top bit of the lane minus 256 (conv_rule.h's rounding half away from zero gives
   the same byte: a negative sum saturates to 0 either way).
   The sums are the int path's sums, so the bytes are too. */
#ifndef PIMG_CONV_PACKED_H
#define PIMG_CONV_PACKED_H

#ifndef PACKED
#define PACKED 0
#endif
#ifndef SIMD
#define SIMD 0
#endif

#if PACKED
#if !SEPARABLE || !PIMG_PACKED
#error "PACKED needs SEPARABLE and a filter the family allows packed lanes for (PIMG_PACKED)"
#endif
#endif
#if SIMD
#if SEPARABLE || PACKED || !PIMG_SIMD
#error "SIMD takes the K x K taps (not SEPARABLE or PACKED) of a filter the family allows signed lanes for (PIMG_SIMD)"
#endif
#endif

#if PACKED || SIMD
/* The first output byte of word p: 0, 1, 4, 5, 8, 9, ... */
#define pimg_pair_byte(p) ((((p) >> 1) << 2) + ((p)&1))

/* Bytes 0 and 2 (pimg_even) or 1 and 3 (pimg_odd) of a word as 16-bit lanes, and the high lane of lo with
   the low lane of hi (pimg_join); on CUDA one byte permute each (ptxas may not find one for the shifts). */
#define pimg_even(w) ((w)&0x00ff00ffu)
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define pimg_odd(w) __byte_perm((w), 0u, 0x4341)
#define pimg_join(lo, hi) __byte_perm((lo), (hi), 0x5432)
#else
#define pimg_odd(w) (((w) >> 8) & 0x00ff00ffu)
#define pimg_join(lo, hi) (((lo) >> 16) | ((hi) << 16))
#endif

/* Input bytes q and q + 2 of the loaded words as the lanes of one word, from even[] (pimg_even of each
   word) and odd[] (pimg_odd); q is a constant once the loops are unrolled, so one branch remains. */
#define pimg_pair(even, odd, q)                                       \
  (((q)&3) == 0   ? (even)[(q) >> 2]                                  \
   : ((q)&3) == 1 ? (odd)[(q) >> 2]                                   \
   : ((q)&3) == 2 ? pimg_join((even)[(q) >> 2], (even)[((q) >> 2) + 1]) \
                  : pimg_join((odd)[(q) >> 2], (odd)[((q) >> 2) + 1]))
#endif

#if PACKED
#define PIMG_PACK_HALF ((unsigned int)(PIMG_DIVISOR / 2) * 0x10001u)

/* Output bytes 4q .. 4q + 3 from the sums of words 2q (bytes 4q, 4q + 2) and 2q + 1 (4q + 1, 4q + 3):
   each lane rounded half up (its sum is non-negative) and divided by the shift, no saturation needed. */
#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && PIMG_PACK_SHIFT == 8
static __device__ __forceinline__ unsigned int pimg_packed_word(unsigned int a, unsigned int b) {
  /* the quotients are bytes 1 and 3 of each word */
  return __byte_perm(a + PIMG_PACK_HALF, b + PIMG_PACK_HALF, 0x7351);
}
#else
#define pimg_packed_word(a, b)                                             \
  (((((a) + PIMG_PACK_HALF) >> PIMG_PACK_SHIFT) & 0x00ff00ffu) |           \
   (((((b) + PIMG_PACK_HALF) >> PIMG_PACK_SHIFT) & 0x00ff00ffu) << 8))
#endif
#endif

#if SIMD
/* Each lane's starting value: 2^15 plus the rounding half. */
#define PIMG_SIMD_BIAS ((unsigned int)(0x8000 + PIMG_DIVISOR / 2) * 0x10001u)

/* A finished sum word as two lanes of 2^15 + q, q = floor((sum + divisor/2) / divisor): the lane shift
   (masked so the high lane's low bits do not enter the low lane) leaves 2^(15-s) + q; rebiased to 2^15 + q. */
#if PIMG_SIMD_SHIFT == 0
#define pimg_simd_quot(a) (a)
#else
#define pimg_simd_quot(a)                                                       \
  ((((a) >> PIMG_SIMD_SHIFT) & ((0xffffu >> PIMG_SIMD_SHIFT) * 0x10001u)) +      \
   (unsigned int)(0x8000 - (0x8000 >> PIMG_SIMD_SHIFT)) * 0x10001u)
#endif

/* Output bytes 4q .. 4q + 3 from the sum words 2q (bytes 4q, 4q + 2) and 2q + 1 (4q + 1, 4q + 3): with
   x, y their lanes 2^15 + q and x', y' the same minus 256, byte = q's low byte where q >= 0 (top bit of
   x), 0 below, 0xff where q >= 256 (top bit of x'). CUDA: three byte permutes, the masks by PRMT's
   sign-replicating selectors (PTX prmt.b32: a selector nibble with its top bit set fills the byte with the
   chosen byte's sign), and one three-input logic op. */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
static __device__ __forceinline__ unsigned int pimg_prmt(unsigned int a, unsigned int b, unsigned int s) {
  unsigned int r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
  return r;
}
static __device__ __forceinline__ unsigned int pimg_simd_word(unsigned int a, unsigned int b) {
  const unsigned int x = pimg_simd_quot(a), y = pimg_simd_quot(b);
  const unsigned int low = pimg_prmt(x, y, 0x6240u);                               /* the q bytes */
  const unsigned int nonneg = pimg_prmt(x, y, 0xFBD9u);                            /* 0xff where q >= 0 */
  const unsigned int over = pimg_prmt(x - 0x01000100u, y - 0x01000100u, 0xFBD9u);  /* 0xff where q >= 256 */
  return (low & nonneg) | over;
}
#else
/* 0xff in bytes 0 and 2 where the low / high lane's top bit is set */
#define pimg_simd_sign(x) ((((x) >> 15) & 0x10001u) * 0xffu)
#define pimg_simd_bytes(x, y, m) ((m(x)) | ((m(y)) << 8))
#define pimg_simd_low(x) ((x)&0x00ff00ffu)
#define pimg_simd_fin(x, y)                                                                           \
  ((pimg_simd_bytes(x, y, pimg_simd_low) & pimg_simd_bytes(x, y, pimg_simd_sign)) |                   \
   pimg_simd_bytes((x)-0x01000100u, (y)-0x01000100u, pimg_simd_sign))
#define pimg_simd_word(a, b) pimg_simd_fin(pimg_simd_quot(a), pimg_simd_quot(b))
#endif
#endif

#endif
