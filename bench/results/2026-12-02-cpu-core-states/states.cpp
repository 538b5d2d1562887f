// What moves the 2-core machine's OpenMP orders (issue 34): two 3x3 sharpen stencils on a 256x256 u8 image, rows
// with schedule(guided, 1) and four 64-row tiles with schedule(static) (the shapes of the pair in
// ../2026-12-02-cpu-pair-order), timed beside two probes: a compute probe (both threads spin on arithmetic, no
// memory) and a memory probe (both threads read a 64 MiB buffer, one word a cache line). Each line: seconds since
// the start, then the medians of 15 interleaved rounds of rows, tiles, the compute probe and the memory probe (us);
// a line every 0.1 s or so. Build: g++ -O2 -march=native -fopenmp states.cpp -o states; run: ./states SECONDS.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

using Clock = std::chrono::steady_clock;
static const int W = 256, H = 256;
static std::vector<uint8_t> in(W * H), out(W * H);
static std::vector<uint64_t> big(8 << 20);  // 64 MiB
static volatile uint64_t sink;

static inline uint8_t px(int x, int y) {
  const int s = 5 * in[y * W + x] - in[y * W + x - 1] - in[y * W + x + 1] - in[(y - 1) * W + x] - in[(y + 1) * W + x];
  return static_cast<uint8_t>(std::clamp(s, 0, 255));
}
static void rows() {
#pragma omp parallel for schedule(guided, 1) num_threads(2)
  for (int y = 1; y < H - 1; ++y)
#pragma omp simd
    for (int x = 1; x < W - 1; ++x) out[y * W + x] = px(x, y);
}
static void tiles() {
#pragma omp parallel for schedule(static) num_threads(2)
  for (int t = 0; t < 4; ++t)
    for (int y = std::max(1, t * 64); y < std::min(H - 1, t * 64 + 64); ++y)
#pragma omp simd
      for (int x = 1; x < W - 1; ++x) out[y * W + x] = px(x, y);
}
static void compute_probe() {
#pragma omp parallel num_threads(2)
  {
    volatile double x = 1.0;
    for (int i = 0; i < 5000; ++i) x = x * 1.0000001 + 1e-9;
  }
}
static void memory_probe() {
  uint64_t acc = 0;
#pragma omp parallel for reduction(^ : acc) num_threads(2) schedule(static)
  for (std::size_t i = 0; i < big.size(); i += 8) acc ^= big[i];
  sink = acc;
}
template <class F>
double us(F f) {
  const auto s = Clock::now();
  f();
  return std::chrono::duration<double, std::micro>(Clock::now() - s).count();
}

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::atoi(argv[1]) : 180;
  std::srand(1107);
  for (auto& v : in) v = static_cast<uint8_t>(std::rand() & 255);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = i;
  const auto t0 = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
    std::vector<double> a, b, c, m;
    for (int r = 0; r < 15; ++r) {
      a.push_back(us(rows));
      b.push_back(us(tiles));
      c.push_back(us(compute_probe));
      m.push_back(us(memory_probe));
    }
    for (auto* v : {&a, &b, &c, &m}) std::sort(v->begin(), v->end());
    std::printf("%.2f %.2f %.2f %.2f %.1f\n", std::chrono::duration<double>(Clock::now() - t0).count(), a[7], b[7], c[7],
                m[7]);
    std::fflush(stdout);
    timespec pause{0, 100000000};
    nanosleep(&pause, nullptr);
  }
}
