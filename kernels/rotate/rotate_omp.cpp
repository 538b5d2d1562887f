// The rotate family on the CPU, compiled by the OpenMP backend once per configuration: the problem
// (PIMG_CHANNELS, PIMG_PLANAR, PIMG_INTERP, PIMG_FILL, PIMG_COS, PIMG_SIN) and the knobs (DECOMP, SCHED,
// CHUNK, THREADS, SIMD, TILE_X, TILE_Y) arrive as -D defines. Each run of output pixels starts from the rule's
// source point and steps by its integer increments (the point of step t is the start plus t increments).
// SIMD=1 splits each run into the steps whose reads all lie inside the image, found by integer division
// (no checks, '#pragma omp simd'), and the checked steps either side; SIMD=0 checks every pixel.
#include <cstdint>

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
