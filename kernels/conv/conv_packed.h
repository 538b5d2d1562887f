/* Two 16-bit lanes per 32-bit word for the separable conv kernels (PACKED 1, CUDA and OpenCL): output bytes
   b and b + 2 of a row share a word, so a multiply-add by a weight serves two bytes. The family allows it
   (PIMG_PACKED) only where no lane can carry into the other: non-negative row and column weights, the row
   pass's sums and the whole sum plus the rounding half under 2^16, the divisor 2^PIMG_PACK_SHIFT with a
   shift of at most 8 and no quotient over 255. The sums are the int path's sums, so the bytes are too.
   Word p of a row's VEC/2 words holds output bytes pimg_pair_byte(p) and pimg_pair_byte(p) + 2: words
   2q and 2q + 1 together are output bytes 4q .. 4q + 3. */
#ifndef PIMG_CONV_PACKED_H
#define PIMG_CONV_PACKED_H

#ifndef PACKED
#define PACKED 0
#endif

#if PACKED
#if !SEPARABLE || !PIMG_PACKED
#error "PACKED needs SEPARABLE and a filter the family allows packed lanes for (PIMG_PACKED)"
#endif

/* The first output byte of word p: 0, 1, 4, 5, 8, 9, ... */
#define pimg_pair_byte(p) ((((p) >> 1) << 2) + ((p)&1))

/* Input bytes q and q + 2 of the loaded words as the lanes of one word, from even[] (bytes 0 and 2 of each
   word) and odd[] (bytes 1 and 3); q is a constant once the loops are unrolled, so one branch remains. */
#define pimg_pair(even, odd, q)                                                             \
  (((q)&3) == 0   ? (even)[(q) >> 2]                                                        \
   : ((q)&3) == 1 ? (odd)[(q) >> 2]                                                         \
   : ((q)&3) == 2 ? (((even)[(q) >> 2] >> 16) | ((even)[((q) >> 2) + 1] << 16))             \
                  : (((odd)[(q) >> 2] >> 16) | ((odd)[((q) >> 2) + 1] << 16)))

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

#endif
