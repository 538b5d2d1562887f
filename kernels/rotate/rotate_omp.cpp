// The rotate family on the CPU, compiled by the OpenMP backend once per configuration: the problem
// (PIMG_CHANNELS, PIMG_PLANAR, PIMG_INTERP, PIMG_FILL, PIMG_COS, PIMG_SIN) and the knobs (DECOMP, SCHED,
// CHUNK, THREADS, TILE_X, TILE_Y) arrive as -D defines. Each run of output pixels starts from the rule's
// source point and steps by its integer increments.
#include <cstdint>

#include "rotate/rotate_rule.h"

#if !defined(DECOMP) || !defined(SCHED) || !defined(CHUNK) || !defined(THREADS)
#error "rotate_omp.cpp needs DECOMP, SCHED, CHUNK and THREADS defined"
#endif

#define PIMG_SCHED_STATIC 0
#define PIMG_SCHED_DYNAMIC 1
#define PIMG_SCHED_GUIDED 2
#if SCHED == PIMG_SCHED_STATIC
#define SCHED_KIND static
#elif SCHED == PIMG_SCHED_DYNAMIC
#define SCHED_KIND dynamic
#elif SCHED == PIMG_SCHED_GUIDED
#define SCHED_KIND guided
#else
#error "SCHED must be PIMG_SCHED_STATIC, PIMG_SCHED_DYNAMIC or PIMG_SCHED_GUIDED"
#endif

#if THREADS > 0
#define PIMG_NUM_THREADS num_threads(THREADS)
#else
#define PIMG_NUM_THREADS
#endif

namespace {

constexpr int kChannels = PIMG_CHANNELS;
constexpr int kPlanar = PIMG_PLANAR;

// Output pixels [x0, x1) of row y, every channel.
inline void rotate_run(const std::uint8_t* in, std::uint8_t* out, int width, int height, int y, int x0, int x1) {
  int px = pimg_rot_px(x0, y, width, height, PIMG_COS, PIMG_SIN);
  int py = pimg_rot_py(x0, y, width, height, PIMG_COS, PIMG_SIN);
  for (int x = x0; x < x1; ++x) {
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
    px += 2 * PIMG_COS;
    py += 2 * PIMG_SIN;
  }
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
