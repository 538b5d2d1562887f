// bgr2rgba on the CPU, compiled by the OpenMP backend once per configuration: rows or tiles over
// threads (common/pix_omp.h). SHUFFLE 0: each pixel's R G B A written as one 32-bit word (PIMG_ALPHA in
// the top byte) in a loop left to the compiler's vectoriser; SHUFFLE 1: four pixels at a time with one
// 16-byte byte shuffle (pshufb / tbl) and the alpha OR-ed in, the last pixels of a row one by one;
// SHUFFLE 2 (AVX2): eight pixels per step, a 32-byte load whose dwords vpermd spreads over the two
// 16-byte lanes, then one vpshufb; SHUFFLE 3 (AVX-512 VBMI and BW): sixteen pixels per step, a masked
// 48-byte load and one vpermb whose masked-off bytes are the alpha, every row's ends by masked loads and
// stores (no scalar tail), the stores 64-byte aligned. STREAM 1 (SHUFFLE 2 or 3 only): the aligned
// stores are non-temporal (no read for ownership, the output not kept in cache), fenced per task.
// SHUFFLE 2 and 3 are compile errors where the host compiler does not target their ISA.
#include <cstdint>
#include <cstring>

#include "common/pix_omp.h"

#if !defined(SHUFFLE) || !defined(STREAM)
#error "bgr2rgba_omp.cpp needs SHUFFLE and STREAM"
#endif
#if SHUFFLE < 0 || SHUFFLE > 3
#error "SHUFFLE must be 0, 1, 2 (AVX2) or 3 (AVX-512 VBMI)"
#endif
#if STREAM && SHUFFLE < 2
#error "STREAM needs SHUFFLE 2 or 3"
#endif
#if SHUFFLE == 2 && !defined(__AVX2__)
#error "shuffle 2 needs a host compiler target with AVX2 (-march=native on such a CPU)"
#endif
#if SHUFFLE == 3 && (!defined(__AVX512VBMI__) || !defined(__AVX512BW__))
#error "shuffle 3 needs a host compiler target with AVX-512 VBMI and BW (-march=native on such a CPU)"
#endif
#if SHUFFLE >= 2
#include <immintrin.h>
#endif

namespace {

typedef std::uint8_t v16u8 __attribute__((vector_size(16)));

// B G R of pixels x .. x+3 (12 of the 16 bytes at src + 3x) to R G B A at dst + 4x.
inline void four_pixels(const std::uint8_t* src, std::uint8_t* dst) {
  v16u8 v;
  std::memcpy(&v, src, 16);
#if defined(__clang__)
  v16u8 o = __builtin_shufflevector(v, v, 2, 1, 0, 0, 5, 4, 3, 0, 8, 7, 6, 0, 11, 10, 9, 0);
#else
  const v16u8 mask = {2, 1, 0, 0, 5, 4, 3, 0, 8, 7, 6, 0, 11, 10, 9, 0};
  v16u8 o = __builtin_shuffle(v, mask);
#endif
  const v16u8 alpha_at = {0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255};
  const v16u8 alpha = {0, 0, 0, PIMG_ALPHA, 0, 0, 0, PIMG_ALPHA, 0, 0, 0, PIMG_ALPHA, 0, 0, 0, PIMG_ALPHA};
  o = (o & ~alpha_at) | alpha;
  std::memcpy(dst, &o, 16);
}

inline void one_pixel(const std::uint8_t* src, std::uint8_t* dst, int x) {
  const std::uint32_t word = src[3 * x + 2] | (std::uint32_t{src[3 * x + 1]} << 8) |
                             (std::uint32_t{src[3 * x]} << 16) | (std::uint32_t{PIMG_ALPHA} << 24);
  std::memcpy(dst + 4 * x, &word, 4);
}

#if SHUFFLE >= 2
constexpr int kAlphaWord = static_cast<int>(static_cast<std::uint32_t>(PIMG_ALPHA) << 24);
#endif

#if SHUFFLE == 2
// Pixels x .. x+7 (24 of the 32 bytes at src + 3x) to dst + 4x: vpermd puts bytes 0..15 in the low lane
// and 12..27 in the high one, then the in-lane shuffle of four_pixels; dst 32-byte aligned when STREAM.
inline void eight_pixels(const std::uint8_t* src, std::uint8_t* dst) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
  const __m256i spread = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6));
  const __m256i order = _mm256_setr_epi8(2, 1, 0, -1, 5, 4, 3, -1, 8, 7, 6, -1, 11, 10, 9, -1,  //
                                         2, 1, 0, -1, 5, 4, 3, -1, 8, 7, 6, -1, 11, 10, 9, -1);
  const __m256i o = _mm256_or_si256(_mm256_shuffle_epi8(spread, order), _mm256_set1_epi32(kAlphaWord));
#if STREAM
  _mm256_stream_si256(reinterpret_cast<__m256i*>(dst), o);
#else
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), o);
#endif
}

// Pixels [x0, x1) of one row.
inline void row(const std::uint8_t* src, std::uint8_t* dst, int x0, int x1) {
  int x = x0;
#if STREAM
  // One pixel at a time up to the first 32-byte aligned output pixel (dst is 4-byte aligned).
  while (x < x1 && (reinterpret_cast<std::uintptr_t>(dst + 4 * x) & 31) != 0) one_pixel(src, dst, x++);
#endif
  // A 32-byte load reads 8 bytes past the eighth pixel: stop where that would leave the row.
  for (; x + 11 <= x1; x += 8) eight_pixels(src + 3 * x, dst + 4 * x);
  for (; x + 6 <= x1; x += 4) four_pixels(src + 3 * x, dst + 4 * x);
  for (; x < x1; ++x) one_pixel(src, dst, x);
}
#elif SHUFFLE == 3
// Output byte 4i + c takes input byte 3i + 2 - c (c < 3); byte 4i + 3 is left to the alpha.
inline __m512i vbmi_order() {
  alignas(64) std::uint8_t idx[64];
  for (int i = 0; i < 16; ++i) {
    idx[4 * i] = static_cast<std::uint8_t>(3 * i + 2);
    idx[4 * i + 1] = static_cast<std::uint8_t>(3 * i + 1);
    idx[4 * i + 2] = static_cast<std::uint8_t>(3 * i);
    idx[4 * i + 3] = 0;
  }
  return _mm512_load_si512(idx);
}

// n (1..16) pixels: the 3n input bytes by a masked load (nothing read past them), the 4n output bytes
// by a masked store.
inline void few_pixels(const std::uint8_t* src, std::uint8_t* dst, int n, __m512i order, __m512i alpha) {
  const __m512i v = _mm512_maskz_loadu_epi8((~0ULL) >> (64 - 3 * n), src);
  const __m512i o = _mm512_mask_permutexvar_epi8(alpha, 0x7777777777777777ULL, order, v);
  _mm512_mask_storeu_epi8(dst, (~0ULL) >> (64 - 4 * n), o);
}

// Pixels [x0, x1) of one row: masked steps up to the first 64-byte aligned output pixel and after the
// last whole step, sixteen pixels per aligned store in between.
inline void row(const std::uint8_t* src, std::uint8_t* dst, int x0, int x1) {
  const __m512i order = vbmi_order(), alpha = _mm512_set1_epi32(kAlphaWord);
  int x = x0;
  if ((reinterpret_cast<std::uintptr_t>(dst) & 3) == 0) {
    const int lead = static_cast<int>((64 - (reinterpret_cast<std::uintptr_t>(dst + 4 * x) & 63)) & 63) / 4;
    const int n = lead < x1 - x ? lead : x1 - x;
    if (n > 0) few_pixels(src + 3 * x, dst + 4 * x, n, order, alpha);
    x += n;
    for (; x + 16 <= x1; x += 16) {
      const __m512i v = _mm512_maskz_loadu_epi8(0xFFFFFFFFFFFFULL, src + 3 * x);
      const __m512i o = _mm512_mask_permutexvar_epi8(alpha, 0x7777777777777777ULL, order, v);
#if STREAM
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + 4 * x), o);
#else
      _mm512_store_si512(reinterpret_cast<__m512i*>(dst + 4 * x), o);
#endif
    }
  }
  // The last pixels, or (output not 4-byte aligned, so never 64-byte aligned) the whole row: masked steps.
  for (; x < x1; x += 16) few_pixels(src + 3 * x, dst + 4 * x, x1 - x < 16 ? x1 - x : 16, order, alpha);
}
#endif

}  // namespace

// buffers: in (B G R), out (R G B A); ints: width, height.
extern "C" void bgr2rgba_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
  pix_for_rows(height, width, [&](int y0, int y1, int x0, int x1) {
    for (int y = y0; y < y1; ++y) {
      const std::uint8_t* src = in + (static_cast<long>(y) * width) * 3;
      std::uint8_t* dst = out + (static_cast<long>(y) * width) * 4;
#if SHUFFLE >= 2
      row(src, dst, x0, x1);
#else
      int x = x0;
#if SHUFFLE
      // A 16-byte load reads 4 bytes past the fourth pixel: stop where that would leave the row.
      for (; x + 6 <= x1; x += 4) four_pixels(src + 3 * x, dst + 4 * x);
#endif
#pragma omp simd
      for (int i = x; i < x1; ++i) one_pixel(src, dst, i);
#endif
    }
#if STREAM
    _mm_sfence();  // the non-temporal stores before the loop's closing barrier
#endif
  });
}
