// The conv family on the CPU, compiled by the OpenMP backend once per configuration: the problem
// (PIMG_K, PIMG_WEIGHTS, PIMG_BORDER, ...) and the knobs (DECOMP, SCHED, UNROLL, ARITH, SIMD, TILE_X,
// TILE_Y) arrive as -D defines, so every choice below is made at compile time; the thread count and the
// schedule's chunk size are -D defines too or, as the conv variants pass them, values set before each launch
// (common/omp_schedule.h): they change no code, only the arguments of the runtime's calls. A batch
// (PIMG_BATCH images one after another) is more planes: image i's plane p is plane i * planes + p.
#include <cstdint>

#include "conv/conv_rule.h"

#if !defined(DECOMP) || !defined(SCHED) || !defined(UNROLL) || !defined(ARITH) || !defined(SIMD)
#error "conv_omp.cpp needs DECOMP, SCHED, UNROLL, ARITH and SIMD defined"
#endif

// SCHED_KIND, CHUNK and PIMG_NUM_THREADS (THREADS=0 leaves the count to OpenMP); CHUNK and THREADS come as
// defines or, without them, as the variables the backend sets before every launch.
#include "common/omp_schedule.h"

namespace {

constexpr int kK = PIMG_K;
constexpr int kR = PIMG_R;
constexpr int kBorder = PIMG_BORDER;
constexpr int kDivisor = PIMG_DIVISOR;
#ifndef PIMG_BATCH
#define PIMG_BATCH 1
#endif
// Planes processed separately: each channel of a planar image, else the one interleaved plane; every
// image's of a batch.
constexpr int kPlanes = (PIMG_PLANAR ? PIMG_CHANNELS : 1) * PIMG_BATCH;
// Samples between horizontally adjacent pixels of one channel within a row of a plane.
constexpr int kStep = PIMG_PLANAR ? 1 : PIMG_CHANNELS;
// From an output column (or row) to the input column of its window centre: valid output starts R in.
constexpr int kShift = kBorder == PIMG_BORDER_VALID ? kR : 0;
constexpr int kWeights[kK * kK] = {PIMG_WEIGHTS};
constexpr int kTapIndex[kK * kK] = {PIMG_TAPS};

struct Args {
  const std::uint8_t* in;
  std::uint8_t* out;
  const std::int32_t* weights;  // K*K, row-major
  const std::int32_t* taps;     // per tap, its index among the distinct weights
  const std::int32_t* lut;      // lut[d*256 + v] = distinct weight d times v
  int width, height, out_width, out_height;
};

inline int imin(int a, int b) { return a < b ? a : b; }
inline int imax(int a, int b) { return a > b ? a : b; }

// Tap t's contribution for input sample v: multiplied or looked up; unrolled, the weight (or its
// table row) is a compile-time constant, otherwise it is read from the buffers.
inline int tap(const Args& a, int t, int v) {
#if ARITH == 1 && UNROLL
  return a.lut[kTapIndex[t] * 256 + v];
#elif ARITH == 1
  return a.lut[a.taps[t] * 256 + v];
#elif UNROLL
  return kWeights[t] * v;
#else
  return a.weights[t] * v;
#endif
}

// The window sum of one output sample; sample(row, kx) reads tap column kx from `row`, one of the
// K input rows of the window. Unrolled, taps with weight zero drop out at compile time.
template <class Sample>
inline int window(const Args& a, const std::uint8_t* const* rows, Sample sample) {
  int acc = 0;
#if UNROLL
#pragma GCC unroll 32
  for (int ky = 0; ky < kK; ++ky) {
#pragma GCC unroll 32
    for (int kx = 0; kx < kK; ++kx)
      if (kWeights[ky * kK + kx] != 0) acc += tap(a, ky * kK + kx, sample(rows[ky], kx));
  }
#else
  for (int ky = 0; ky < kK; ++ky)
    for (int kx = 0; kx < kK; ++kx) acc += tap(a, ky * kK + kx, sample(rows[ky], kx));
#endif
  return acc;
}

// Output pixels [x0, x1) of output row oy in plane p (every channel of them when interleaved).
void conv_segment(const Args& a, int p, int oy, int x0, int x1) {
  // The window's input rows: clamped for replicate, null outside a zero border.
  const std::uint8_t* rows[kK];
  [[maybe_unused]] bool rows_inside = true;
  const std::uint8_t* plane = a.in + static_cast<long>(p) * a.width * a.height * kStep;
  for (int ky = 0; ky < kK; ++ky) {
    int y = oy + kShift + ky - kR;
    if (y < 0 || y >= a.height) {
      if (kBorder == PIMG_BORDER_ZERO) {
        rows[ky] = nullptr;
        rows_inside = false;
        continue;
      }
      y = pimg_clamp_int(y, 0, a.height - 1);
    }
    rows[ky] = plane + static_cast<long>(y) * a.width * kStep;
  }
  std::uint8_t* out = a.out + static_cast<long>(p) * a.out_width * a.out_height * kStep +
                      static_cast<long>(oy) * a.out_width * kStep;

  // Any pixel, each tap checked against the image's edges.
  auto checked = [&](int from, int to) {
    for (int ox = from; ox < to; ++ox)
      for (int c = 0; c < kStep; ++c) {
        const int cx = ox + kShift;
        const int acc = window(a, rows, [&](const std::uint8_t* row, int kx) -> int {
          int x = cx + kx - kR;
          if (x < 0 || x >= a.width) {
            if (kBorder == PIMG_BORDER_ZERO) return 0;
            x = pimg_clamp_int(x, 0, a.width - 1);
          }
          return row ? row[x * kStep + c] : 0;
        });
        out[ox * kStep + c] = static_cast<std::uint8_t>(pimg_conv_finish(acc, kDivisor));
      }
  };

#if SIMD
  // Pixels whose window lies inside the image in rows with every input row present: no checks,
  // one vectorised loop over the row's samples; the pixels either side take the checked path.
  int lo = x0, hi = x0;
  if (rows_inside) {
    lo = imin(imax(x0, kR - kShift), x1);
    hi = imax(lo, imin(x1, a.width - kR - kShift));
  }
  checked(x0, lo);
#if UNROLL
  // Unrolled taps are straight-line code: one simd loop, each lane one output sample.
#pragma omp simd
  for (int j = lo * kStep; j < hi * kStep; ++j) {
    const int first = j + (kShift - kR) * kStep;  // sample of the window's leftmost tap
    const int acc = window(a, rows, [&](const std::uint8_t* row, int kx) -> int { return row[first + kx * kStep]; });
    out[j] = static_cast<std::uint8_t>(pimg_conv_finish(acc, kDivisor));
  }
#else
  // Runtime taps stay outside the simd loops (an inner tap loop would stop vectorisation): blocks
  // of samples accumulate tap by tap, then finish.
  constexpr int kBlock = 256;
  for (int b = lo * kStep; b < hi * kStep; b += kBlock) {
    const int n = imin(kBlock, hi * kStep - b);
    int acc[kBlock];
#pragma omp simd
    for (int j = 0; j < n; ++j) acc[j] = 0;
    for (int ky = 0; ky < kK; ++ky)
      for (int kx = 0; kx < kK; ++kx) {
        const std::uint8_t* src = rows[ky] + b + (kShift - kR + kx) * kStep;
        const int t = ky * kK + kx;
#pragma omp simd
        for (int j = 0; j < n; ++j) acc[j] += tap(a, t, src[j]);
      }
#pragma omp simd
    for (int j = 0; j < n; ++j) out[b + j] = static_cast<std::uint8_t>(pimg_conv_finish(acc[j], kDivisor));
  }
#endif
  checked(hi, x1);
#else
  checked(x0, x1);
#endif
}

}  // namespace

// buffers: in, out, weights, taps, lut; ints: width, height, out_width, out_height.
extern "C" void conv_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const Args a{static_cast<const std::uint8_t*>(buffers[0]),  static_cast<std::uint8_t*>(buffers[1]),
               static_cast<const std::int32_t*>(buffers[2]), static_cast<const std::int32_t*>(buffers[3]),
               static_cast<const std::int32_t*>(buffers[4]), static_cast<int>(ints[0]),
               static_cast<int>(ints[1]),                    static_cast<int>(ints[2]),
               static_cast<int>(ints[3])};
#if DECOMP == 0
  // One task per output row of each plane (planar images: channel x rows; a batch: image x plane x rows).
  const int tasks = kPlanes * a.out_height;
#pragma omp parallel for schedule(SCHED_KIND, CHUNK) PIMG_NUM_THREADS
  for (int i = 0; i < tasks; ++i) conv_segment(a, i / a.out_height, i % a.out_height, 0, a.out_width);
#elif DECOMP == 1
#if !defined(TILE_X) || !defined(TILE_Y)
#error "DECOMP=1 (tiles) needs TILE_X and TILE_Y"
#endif
  // One task per TILE_X x TILE_Y tile of output pixels, every plane of it.
  const int tiles_y = (a.out_height + TILE_Y - 1) / TILE_Y;
  const int tiles_x = (a.out_width + TILE_X - 1) / TILE_X;
#pragma omp parallel for collapse(2) schedule(SCHED_KIND, CHUNK) PIMG_NUM_THREADS
  for (int ty = 0; ty < tiles_y; ++ty)
    for (int tx = 0; tx < tiles_x; ++tx) {
      const int y0 = ty * TILE_Y, y1 = imin(y0 + TILE_Y, a.out_height);
      const int x0 = tx * TILE_X, x1 = imin(x0 + TILE_X, a.out_width);
      for (int p = 0; p < kPlanes; ++p)
        for (int oy = y0; oy < y1; ++oy) conv_segment(a, p, oy, x0, x1);
    }
#else
#error "DECOMP must be 0 (rows) or 1 (tiles)"
#endif
}
