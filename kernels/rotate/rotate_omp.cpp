// The rotate family on the CPU, compiled by the OpenMP backend once per configuration: the problem
// (PIMG_CHANNELS, PIMG_PLANAR, PIMG_INTERP, PIMG_FILL, PIMG_COS, PIMG_SIN) and the knobs (DECOMP, SCHED,
// CHUNK, THREADS, SIMD, TILE_X, TILE_Y) arrive as -D defines. Each run of output pixels starts from the rule's
// source point and steps by its integer increments (the point of step t is the start plus t increments).
// SIMD=1 splits each run into the steps whose reads all lie inside the image, found by integer division
// (no checks, '#pragma omp simd'), and the checked steps either side; SIMD=0 checks every pixel. SIMD=2 runs
// the unchecked steps 8 at a time with AVX2 (when the compiler targets it, and not for nearest on 1-byte
// planes; else as SIMD=1): the 8 source points as int32 lanes, one 32-bit gather per tap and plane (an
// interleaved 3-channel pixel's bytes arrive together), the rule's integer arithmetic in lanes, the bytes
// packed and stored contiguously.
#include <cstdint>
// Nearest on 1-byte planes (1 channel, or planar) keeps the '#pragma omp simd' loop: measured on the 2-core
// EPYC (AVX-512), the compiler's own vectorisation of it beat these gathers (6.0 vs 8.9 ms at 2048^2 c1).
#if SIMD == 2 && defined(__AVX2__) && !(PIMG_INTERP == PIMG_ROT_NEAREST && (PIMG_PLANAR || PIMG_CHANNELS == 1))
#include <immintrin.h>
#define PIMG_ROT_AVX2 1
#else
#define PIMG_ROT_AVX2 0
#endif

#include "rotate/rotate_rule.h"

#if !defined(DECOMP) || !defined(SCHED) || !defined(CHUNK) || !defined(THREADS) || !defined(SIMD)
#error "rotate_omp.cpp needs DECOMP, SCHED, CHUNK, THREADS and SIMD defined"
#endif

#include "common/omp_schedule.h"

namespace {

constexpr int kChannels = PIMG_CHANNELS;
constexpr int kPlanar = PIMG_PLANAR;

// Channel c of output pixel (x, y) from source point (px, py), every check of the rule made.
inline void checked_pixel(const std::uint8_t* in, std::uint8_t* out, int width, int height, int x, int y, int px,
                          int py) {
#if PIMG_INTERP == PIMG_ROT_NEAREST
  // One bounds check and one source pixel for every channel.
  const int n = pimg_rot_nearest_pixel(px, py, width, height);
  for (int c = 0; c < kChannels; ++c) {
    const int v = n < 0 ? PIMG_FILL : in[kPlanar ? c * width * height + n : n * kChannels + c];
    out[pimg_rot_index(x, y, c, width, height, kChannels, kPlanar)] = static_cast<std::uint8_t>(v);
  }
#else
  for (int c = 0; c < kChannels; ++c)
    out[pimg_rot_index(x, y, c, width, height, kChannels, kPlanar)] = static_cast<std::uint8_t>(
        pimg_rot_sample(in, px, py, c, width, height, kChannels, kPlanar, PIMG_INTERP, PIMG_FILL));
#endif
}

#if SIMD > 2
#error "SIMD must be 0, 1 or 2"
#endif

#if SIMD
inline long floor_div(long p, long q) { return p >= 0 ? p / q : -((-p + q - 1) / q); }  // q > 0

// Narrows [lo, hi) to the steps t for which 0 <= a + b t < limit (an empty result stays inside [lo, hi]).
inline void clip(long a, long b, long limit, int& lo, int& hi) {
  const long top = hi;
  long l = lo, h = hi;
  if (b == 0) {
    if (a < 0 || a >= limit) h = l;
  } else if (b > 0) {
    l = l > floor_div(-a + b - 1, b) ? l : floor_div(-a + b - 1, b);
    h = h < floor_div(limit - a + b - 1, b) ? h : floor_div(limit - a + b - 1, b);
  } else {
    h = h < floor_div(a, -b) + 1 ? h : floor_div(a, -b) + 1;
    l = l > floor_div(a - limit, -b) + 1 ? l : floor_div(a - limit, -b) + 1;
  }
  l = l < top ? l : top;
  lo = static_cast<int>(l);
  hi = static_cast<int>(h > l ? h : l);
}

// The pixel of the interior loop: every source read is known to lie inside the image.
inline void interior_pixel(const std::uint8_t* in, std::uint8_t* out, int width, int height, int x, int y, int px,
                           int py) {
#if PIMG_INTERP == PIMG_ROT_NEAREST
  const int n = ((py + 65536) >> PIMG_ROT_FRAC) * width + ((px + 65536) >> PIMG_ROT_FRAC);
  for (int c = 0; c < kChannels; ++c)
    out[pimg_rot_index(x, y, c, width, height, kChannels, kPlanar)] = in[kPlanar ? c * width * height + n : n * kChannels + c];
#else
  // pimg_rot_blend expanded: top (256-fy) + bot fy is exactly the sum of the four taps times the products of
  // their weights, so the weights are formed once per pixel and each channel takes four multiplies.
  const int qx = pimg_rot_q8(px), qy = pimg_rot_q8(py);
  const int fx = qx & 255, fy = qy & 255;
  const int w00 = (256 - fx) * (256 - fy), w10 = fx * (256 - fy), w01 = (256 - fx) * fy, w11 = fx * fy;
  const int step = kPlanar ? 1 : kChannels, row = width * step;
  for (int c = 0; c < kChannels; ++c) {
    const std::uint8_t* p = in + pimg_rot_index((qx >> 8) - 1, (qy >> 8) - 1, c, width, height, kChannels, kPlanar);
    out[pimg_rot_index(x, y, c, width, height, kChannels, kPlanar)] =
        static_cast<std::uint8_t>((p[0] * w00 + p[step] * w10 + p[row] * w01 + p[row + step] * w11 + 32768) >> 16);
  }
#endif
}
#endif

#if PIMG_ROT_AVX2
// The 8 lanes' bytes (the low kChannels bytes of each 32-bit lane for interleaved pixels, the low byte for a
// plane) stored contiguously at `out`: 8 kChannels bytes, nothing past them.
inline void store_lanes(std::uint8_t* out, __m256i v, int bytes_per_lane) {
  if (bytes_per_lane == 3) {
    const __m256i pack = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                          0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    v = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, pack), _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(v));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 16), _mm256_extracti128_si256(v, 1));
  } else {
    const __m256i pack = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    v = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, pack), _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(v));
  }
}

// Steps [t, t + 8) of a run whose reads all lie inside the image and whose source rows stay above the last
// (so a 32-bit gather past a tap's bytes stays inside the buffer). Same integers as interior_pixel.
inline void interior_8(const std::uint8_t* in, std::uint8_t* out, int width, int height, int x, int y, int px,
                       int py, int t) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i vx = _mm256_add_epi32(_mm256_set1_epi32(px + 2 * PIMG_COS * t),
                                      _mm256_mullo_epi32(lane, _mm256_set1_epi32(2 * PIMG_COS)));
  const __m256i vy = _mm256_add_epi32(_mm256_set1_epi32(py + 2 * PIMG_SIN * t),
                                      _mm256_mullo_epi32(lane, _mm256_set1_epi32(2 * PIMG_SIN)));
  const int* base = reinterpret_cast<const int*>(in);
  std::uint8_t* o = out + pimg_rot_index(x + t, y, 0, width, height, kChannels, kPlanar);
#if PIMG_INTERP == PIMG_ROT_NEAREST
  const __m256i ix = _mm256_srai_epi32(_mm256_add_epi32(vx, _mm256_set1_epi32(65536)), PIMG_ROT_FRAC);
  const __m256i iy = _mm256_srai_epi32(_mm256_add_epi32(vy, _mm256_set1_epi32(65536)), PIMG_ROT_FRAC);
  const __m256i n = _mm256_add_epi32(_mm256_mullo_epi32(iy, _mm256_set1_epi32(width)), ix);
  // Interleaved 3 channels (1-byte planes keep the scalar loop, above): one gather per pixel's 3 bytes.
  store_lanes(o, _mm256_i32gather_epi32(base, _mm256_mullo_epi32(n, _mm256_set1_epi32(kChannels)), 1), 3);
#else
  // q = (s + 1) in 1/256 pixel, non-negative here; x0 = (q >> 8) - 1, f = q & 255.
  const __m256i byte = _mm256_set1_epi32(255);
  const __m256i round = _mm256_set1_epi32((1 << PIMG_ROT_FRAC) + (1 << (PIMG_ROT_FRAC - 9)));
  const __m256i qx = _mm256_srai_epi32(_mm256_add_epi32(vx, round), PIMG_ROT_FRAC - 8);
  const __m256i qy = _mm256_srai_epi32(_mm256_add_epi32(vy, round), PIMG_ROT_FRAC - 8);
  const __m256i fx = _mm256_and_si256(qx, byte), fy = _mm256_and_si256(qy, byte);
  const __m256i gx = _mm256_sub_epi32(_mm256_set1_epi32(256), fx), gy = _mm256_sub_epi32(_mm256_set1_epi32(256), fy);
  const __m256i w00 = _mm256_mullo_epi32(gx, gy), w10 = _mm256_mullo_epi32(fx, gy);
  const __m256i w01 = _mm256_mullo_epi32(gx, fy), w11 = _mm256_mullo_epi32(fx, fy);
  const __m256i x0 = _mm256_sub_epi32(_mm256_srai_epi32(qx, 8), _mm256_set1_epi32(1));
  const __m256i y0 = _mm256_sub_epi32(_mm256_srai_epi32(qy, 8), _mm256_set1_epi32(1));
  const int plane = width * height, step = kPlanar ? 1 : kChannels;
  __m256i i00 = _mm256_add_epi32(_mm256_mullo_epi32(y0, _mm256_set1_epi32(width)), x0);
  if (step != 1) i00 = _mm256_mullo_epi32(i00, _mm256_set1_epi32(step));
  const __m256i i01 = _mm256_add_epi32(i00, _mm256_set1_epi32(width * step));
  const __m256i half = _mm256_set1_epi32(32768);
  // Channel k (byte k of each lane) of the four taps, blended: (sum p w + 2^15) >> 16, in 0..255.
  auto blend = [&](__m256i p00, __m256i p10, __m256i p01, __m256i p11, int k) {
    const auto ch = [&](__m256i p) { return _mm256_and_si256(_mm256_srli_epi32(p, 8 * k), byte); };
    __m256i s = _mm256_add_epi32(_mm256_mullo_epi32(ch(p00), w00), _mm256_mullo_epi32(ch(p10), w10));
    s = _mm256_add_epi32(s, _mm256_add_epi32(_mm256_mullo_epi32(ch(p01), w01), _mm256_mullo_epi32(ch(p11), w11)));
    return _mm256_srli_epi32(_mm256_add_epi32(s, half), 16);
  };
  if (kPlanar || kChannels == 1) {
    // Plane c: one gather per source row brings both horizontal taps (bytes 0 and 1).
    for (int c = 0; c < kChannels; ++c) {
      const int* b = reinterpret_cast<const int*>(in + c * plane);
      const __m256i top = _mm256_i32gather_epi32(b, i00, 1), bot = _mm256_i32gather_epi32(b, i01, 1);
      const __m256i r = blend(top, _mm256_srli_epi32(top, 8), bot, _mm256_srli_epi32(bot, 8), 0);
      store_lanes(o + c * plane, r, 1);
    }
  } else {
    // Interleaved: one gather per tap brings the pixel's channels (bytes 0..kChannels-1).
    const __m256i right = _mm256_set1_epi32(kChannels);
    const __m256i p00 = _mm256_i32gather_epi32(base, i00, 1);
    const __m256i p10 = _mm256_i32gather_epi32(base, _mm256_add_epi32(i00, right), 1);
    const __m256i p01 = _mm256_i32gather_epi32(base, i01, 1);
    const __m256i p11 = _mm256_i32gather_epi32(base, _mm256_add_epi32(i01, right), 1);
    __m256i r = blend(p00, p10, p01, p11, 0);
    for (int k = 1; k < kChannels; ++k) r = _mm256_or_si256(r, _mm256_slli_epi32(blend(p00, p10, p01, p11, k), 8 * k));
    store_lanes(o, r, kChannels);
  }
#endif
}
#endif

// Output pixels [x0, x1) of row y, every channel.
inline void rotate_run(const std::uint8_t* in, std::uint8_t* out, int width, int height, int y, int x0, int x1) {
  const int px = pimg_rot_px(x0, y, width, height, PIMG_COS, PIMG_SIN);
  const int py = pimg_rot_py(x0, y, width, height, PIMG_COS, PIMG_SIN);
  int lo = 0, hi = x1 - x0;
#if SIMD
  // The steps whose reads all lie inside the image: nearest 0 <= p + 2^16 < 2^17 w; bilinear (both taps
  // inside) 0 <= p + 2^8 < 2^17 (w - 1). The rest take the checked path.
#if PIMG_INTERP == PIMG_ROT_NEAREST
  const long off = 65536, lim_x = static_cast<long>(width) << PIMG_ROT_FRAC, lim_y = static_cast<long>(height) << PIMG_ROT_FRAC;
#else
  const long off = 256, lim_x = static_cast<long>(width - 1) << PIMG_ROT_FRAC,
             lim_y = static_cast<long>(height - 1) << PIMG_ROT_FRAC;
#endif
  clip(px + off, 2L * PIMG_COS, lim_x, lo, hi);
  clip(py + off, 2L * PIMG_SIN, lim_y, lo, hi);
  for (int t = 0; t < lo; ++t) checked_pixel(in, out, width, height, x0 + t, y, px + 2 * PIMG_COS * t, py + 2 * PIMG_SIN * t);
#if PIMG_ROT_AVX2
  // The vector steps: also every source row above the last, so 4-byte gathers stay inside the buffer.
  int vlo = lo, vhi = hi;
  clip(py + off, 2L * PIMG_SIN, lim_y - (1L << PIMG_ROT_FRAC), vlo, vhi);
  vlo = vlo < hi ? vlo : hi;
  vhi = vhi < hi ? vhi : hi;
  for (int t = lo; t < vlo; ++t)
    interior_pixel(in, out, width, height, x0 + t, y, px + 2 * PIMG_COS * t, py + 2 * PIMG_SIN * t);
  for (; vlo + 8 <= vhi; vlo += 8) interior_8(in, out, width, height, x0, y, px, py, vlo);
  lo = vlo;
#endif
#pragma omp simd
  for (int t = lo; t < hi; ++t)
    interior_pixel(in, out, width, height, x0 + t, y, px + 2 * PIMG_COS * t, py + 2 * PIMG_SIN * t);
  for (int t = hi; t < x1 - x0; ++t)
    checked_pixel(in, out, width, height, x0 + t, y, px + 2 * PIMG_COS * t, py + 2 * PIMG_SIN * t);
#else
  for (int t = lo; t < hi; ++t) checked_pixel(in, out, width, height, x0 + t, y, px + 2 * PIMG_COS * t, py + 2 * PIMG_SIN * t);
#endif
}

inline int imin(int a, int b) { return a < b ? a : b; }

}  // namespace

// buffers: in, out; ints: width, height.
extern "C" void rotate_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
#if DECOMP == 0
  // One task per output row.
#pragma omp parallel for schedule(SCHED_KIND, CHUNK) PIMG_NUM_THREADS
  for (int y = 0; y < height; ++y) rotate_run(in, out, width, height, y, 0, width);
#elif DECOMP == 1
#if !defined(TILE_X) || !defined(TILE_Y)
#error "DECOMP=1 (tiles) needs TILE_X and TILE_Y"
#endif
  // One task per TILE_X x TILE_Y tile: its source region is a rotated tile, which stays in cache.
  const int tiles_y = (height + TILE_Y - 1) / TILE_Y;
  const int tiles_x = (width + TILE_X - 1) / TILE_X;
#pragma omp parallel for collapse(2) schedule(SCHED_KIND, CHUNK) PIMG_NUM_THREADS
  for (int ty = 0; ty < tiles_y; ++ty)
    for (int tx = 0; tx < tiles_x; ++tx) {
      const int x0 = tx * TILE_X, x1 = imin(x0 + TILE_X, width);
      for (int y = ty * TILE_Y; y < imin(ty * TILE_Y + TILE_Y, height); ++y) rotate_run(in, out, width, height, y, x0, x1);
    }
#else
#error "DECOMP must be 0 (rows) or 1 (tiles)"
#endif
}
