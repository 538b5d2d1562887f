// 8192x8192 u8, replicated border, PROBLEM_sharpen (sharpen3, 1 channel) or PROBLEM_gauss (gaussian5, 3 interleaved
// channels): every kernel of VARIANTS_INC checked byte for byte against the CPU rule, then timed cold (L2 flushed by
// a 512 MiB memset before each launch) beside a device-to-device copy of the same bytes; medians of REPS launches,
// the configurations interleaved round by round.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
typedef void (*launch_fn)(const unsigned char*, unsigned char*, int, int, cudaStream_t);
#define V(tag) extern "C" void launch_##tag(const unsigned char*, unsigned char*, int, int, cudaStream_t);
#include VARIANTS_INC
#undef V
struct Entry { const char* name; launch_fn fn; };
static const Entry kEntries[] = {
#define V(tag) {#tag, launch_##tag},
#include VARIANTS_INC
#undef V
};
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
int main(int argc, char** argv) {
  const int W = 8192, H = 8192, REPS = argc > 1 ? atoi(argv[1]) : 30;
#if PROBLEM_gauss
  const int C = 3;
#else
  const int C = 1;
#endif
  const size_t n = (size_t)W * H * C;
  std::vector<unsigned char> img(n), ref(n), got(n);
  std::mt19937_64 g(7);
  for (size_t i = 0; i < n; i += 8) { uint64_t r = g(); memcpy(&img[i], &r, 8); }
  auto P = [&](int xx, int yy, int c) { xx = std::min(std::max(xx, 0), W - 1); yy = std::min(std::max(yy, 0), H - 1); return (int)img[((size_t)yy * W + xx) * C + c]; };
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
#if PROBLEM_gauss
        static const int w5[5] = {1, 4, 6, 4, 1};
        int s = 0;
        for (int ky = 0; ky < 5; ++ky)
          for (int kx = 0; kx < 5; ++kx) s += w5[ky] * w5[kx] * P(x + kx - 2, y + ky - 2, c);
        s = (s + 128) / 256;
#else
        int s = 5 * P(x, y, c) - P(x - 1, y, c) - P(x + 1, y, c) - P(x, y - 1, c) - P(x, y + 1, c);
#endif
        ref[((size_t)y * W + x) * C + c] = (unsigned char)std::min(std::max(s, 0), 255);
      }
  unsigned char *din, *dout, *dflush;
  CK(cudaMalloc(&din, n)); CK(cudaMalloc(&dout, n)); CK(cudaMalloc(&dflush, 512u << 20));
  CK(cudaMemcpy(din, img.data(), n, cudaMemcpyHostToDevice));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  const int ne = sizeof(kEntries) / sizeof(kEntries[0]);
  std::vector<int> ok(ne);
  for (int k = 0; k < ne; ++k) {
    CK(cudaMemset(dout, 0xAB, n));
    kEntries[k].fn(din, dout, W, H, s);
    CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), dout, n, cudaMemcpyDeviceToHost));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; ++i) if (got[i] != ref[i]) { if (!bad) first = i; ++bad; }
    ok[k] = bad == 0;
    if (bad) printf("WRONG %s: %zu bytes differ, first at x=%zu y=%zu got %d want %d\n", kEntries[k].name, bad, (first / C) % W, (first / C) / W, got[first], ref[first]);
  }
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<std::vector<float>> t(ne + 1);
  for (int r = 0; r < REPS; ++r)
    for (int k = 0; k <= ne; ++k) {
      if (k < ne && !ok[k]) continue;
      CK(cudaMemsetAsync(dflush, r & 255, 512u << 20, s));
      CK(cudaEventRecord(a, s));
      if (k < ne) kEntries[k].fn(din, dout, W, H, s); else CK(cudaMemcpyAsync(dout, din, n, cudaMemcpyDeviceToDevice, s));
      CK(cudaEventRecord(b, s));
      CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b)); t[k].push_back(ms);
    }
  auto med = [](std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  const float copy = med(t[ne]);
  printf("copy_d2d %.4f ms (%.0f GB/s)\n", copy, 2.0 * n / copy / 1e6);
  for (int k = 0; k < ne; ++k) if (ok[k]) { float m = med(t[k]); printf("%-40s %.4f ms  %.1f%% of the copy  (%.0f GB/s)\n", kEntries[k].name, m, 100.0 * copy / m, 2.0 * n / m / 1e6); }
  return 0;
}
