// Where NPP's levels come from (issue 34): nppiFilterBorder_8u_C3R_Ctx, seed 003's 5x5 Gaussian (divisor 256,
// replicate border) on an interleaved 3-channel image (1024x1024 by default), timed as the tuner times a CUDA
// library call (an L2 sweep of twice the L2's size, then a spin kernel holding the start event, the call and the
// stop event back: bench/npp_spin_bench.cu, docs/measurement.md). The tuner's NPP row at this size ran at one of
// several levels by process and by allocation (0.015-0.025 ms, bench/results/2026-12-01-h200-wide-conv): this
// program asks whether the level is a function of where the buffers lie. On an H200 (bench/results/
// 2026-12-02-h200-fourth-machine) it is: two levels, each placement at one of them in both passes, set by the physical
// memory an allocation draws (the same offsets in another process ran at another level as often as not).
//
// One pool of --pool-mib MiB (one cudaMalloc) holds --placements pairs of (input, output) at random offsets (512-byte
// multiples, not overlapping); every placement is timed --runs times in each of two passes, the second in another
// order, so a level that belongs to the placement shows in both passes and one that belongs to the moment does not.
// Then --fresh pairs of new cudaMalloc buffers (each kept, so each gets a new address), timed the same way.
// Prints one line per placement: pass, index, input and output offsets (from the pool, and their addresses modulo
// 2 MiB and 64 KiB), median and minimum in ms. Needs a GPU and NPP 13 (dlopen'ed); exits 1 without them.
//   npp_levels_bench [--size WxH] [--runs N] [--placements P] [--fresh F] [--pool-mib M] [--seed S]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "npp_standalone.cuh"
#include "timing/spin.cu"  // pimg_spin and pimg_l2_sweep: the tuner's own timing kernels

namespace {

constexpr const char* kProgram = "npp_levels_bench";
using namespace npp_standalone;

[[noreturn]] void fail(const std::string& what) { npp_standalone::fail(kProgram, what); }
void check(cudaError_t e, const char* call) { npp_standalone::check(kProgram, e, call); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int width = 1024, height = 1024, runs = 60, placements = 16, fresh = 8, pool_mib = 64;
  unsigned seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--size" && more && std::sscanf(argv[++i], "%dx%d", &width, &height) == 2) continue;
    if (a == "--runs" && more && (runs = std::atoi(argv[++i])) >= 5) continue;
    if (a == "--placements" && more && (placements = std::atoi(argv[++i])) >= 1) continue;
    if (a == "--fresh" && more && (fresh = std::atoi(argv[++i])) >= 0) continue;
    if (a == "--pool-mib" && more && (pool_mib = std::atoi(argv[++i])) >= 8) continue;
    if (a == "--seed" && more) {
      seed = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
      continue;
    }
    std::fprintf(stderr,
                 "usage: npp_levels_bench [--size WxH] [--runs N>=5] [--placements P>=1] [--fresh F>=0] "
                 "[--pool-mib M>=8] [--seed S]\n");
    return 2;
  }
  const FilterBorder filter = load_filter_border(kProgram, "nppiFilterBorder_8u_C3R_Ctx");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const NppStreamContext ctx = default_stream_context(kProgram, prop);

  // Seed 003's Gaussian, [1 4 6 4 1]^T [1 4 6 4 1] / 256 (symmetric, so NPP's flip changes nothing).
  const int row[5] = {1, 4, 6, 4, 1};
  int weights[25];
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 5; ++x) weights[y * 5 + x] = row[y] * row[x];
  const std::size_t bytes = static_cast<std::size_t>(width) * height * 3;
  const std::size_t pool_bytes = static_cast<std::size_t>(pool_mib) << 20;
  if (2 * bytes + 1024 > pool_bytes) fail("the pool cannot hold two images");
  std::vector<unsigned char> host(bytes);
  unsigned state = 1107;
  for (auto& v : host) v = static_cast<unsigned char>((state = state * 1664525u + 1013904223u) >> 24);

  unsigned char *pool = nullptr, *flush = nullptr;
  int *kernel = nullptr, *flag = nullptr, *device_flag = nullptr, *timed_out = nullptr;
  const std::size_t flush_bytes = 2 * static_cast<std::size_t>(prop.l2CacheSize) / 16 * 16;
  check(cudaMalloc(&pool, pool_bytes), "cudaMalloc");
  check(cudaMalloc(&flush, flush_bytes + 16), "cudaMalloc");
  check(cudaMemset(flush, 0x5a, flush_bytes + 16), "cudaMemset");
  check(cudaMalloc(&kernel, sizeof weights), "cudaMalloc");
  check(cudaMalloc(&timed_out, sizeof(int)), "cudaMalloc");
  check(cudaMemset(timed_out, 0, sizeof(int)), "cudaMemset");
  check(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
  check(cudaHostGetDevicePointer(&device_flag, flag, 0), "cudaHostGetDevicePointer");
  check(cudaMemcpy(kernel, weights, sizeof weights, cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");

  // Times `runs` cold calls on (in, out): the median and the minimum.
  auto timed = [&](unsigned char* in, unsigned char* out) {
    check(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    auto call = [&] {
      const int status = filter(in, width * 3, NppiSize{width, height}, NppiPoint{0, 0}, out, width * 3,
                                NppiSize{width, height}, kernel, NppiSize{5, 5}, NppiPoint{2, 2}, 256,
                                kNppBorderReplicate, ctx);
      if (status < 0) fail("nppiFilterBorder_8u_C3R_Ctx: NPP status " + std::to_string(status));
    };
    for (int w = 0; w < 3; ++w) call();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      pimg_l2_sweep<<<prop.multiProcessorCount * 4, 512>>>(reinterpret_cast<const uint4*>(flush), flush_bytes / 16,
                                                          1u, reinterpret_cast<unsigned*>(flush + flush_bytes));
      *static_cast<volatile int*>(flag) = 0;
      pimg_spin<<<1, 1>>>(device_flag, 500000000ull, timed_out);
      check(cudaGetLastError(), "spin kernel");
      check(cudaEventRecord(start, nullptr), "cudaEventRecord");
      call();
      check(cudaEventRecord(stop, nullptr), "cudaEventRecord");
      *static_cast<volatile int*>(flag) = 1;
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float t = 0;
      check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
      ms.push_back(t);
    }
    return std::pair{median(ms), *std::min_element(ms.begin(), ms.end())};
  };
  auto report = [&](const char* what, int pass, int index, unsigned char* in, unsigned char* out,
                    std::pair<double, double> t) {
    const auto addr = [](unsigned char* p) { return static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)); };
    std::printf("%s %d %d in_off=%llu out_off=%llu in_mod2M=%llu out_mod2M=%llu in_mod64K=%llu out_mod64K=%llu "
                "in_addr=0x%llx out_addr=0x%llx median_ms=%.5f min_ms=%.5f\n",
                what, pass, index, addr(in) - addr(pool), addr(out) - addr(pool), addr(in) % (2u << 20),
                addr(out) % (2u << 20), addr(in) % 65536, addr(out) % 65536, addr(in), addr(out), t.first, t.second);
    std::fflush(stdout);
  };

  std::mt19937_64 rng(seed);
  const std::size_t slots = (pool_bytes - bytes) / 512;
  std::vector<std::pair<std::size_t, std::size_t>> place;
  while (static_cast<int>(place.size()) < placements) {
    const std::size_t a = rng() % slots * 512, b = rng() % slots * 512;
    if (a + bytes <= b || b + bytes <= a) place.emplace_back(a, b);
  }
  std::printf("device=\"%s\" l2_bytes=%d size=%dx%dx3 runs=%d pool_mib=%d seed=%u\n", prop.name, prop.l2CacheSize,
              width, height, runs, pool_mib, seed);
  std::vector<int> order(place.size());
  std::iota(order.begin(), order.end(), 0);
  for (int pass = 1; pass <= 2; ++pass) {
    if (pass == 2) std::shuffle(order.begin(), order.end(), rng);
    for (int i : order) {
      unsigned char* in = pool + place[i].first;
      unsigned char* out = pool + place[i].second;
      report("placement", pass, i, in, out, timed(in, out));
    }
  }
  std::vector<unsigned char*> kept;
  for (int f = 0; f < fresh; ++f) {
    unsigned char *in = nullptr, *out = nullptr;
    check(cudaMalloc(&in, bytes), "cudaMalloc");
    check(cudaMalloc(&out, bytes), "cudaMalloc");
    kept.push_back(in);
    kept.push_back(out);
    report("fresh", 1, f, in, out, timed(in, out));
  }
  int timeouts = 0;
  check(cudaMemcpy(&timeouts, timed_out, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (timeouts) std::printf("warning: the spin kernel gave up at least once (a call waited on the device)\n");
  for (unsigned char* p : kept) cudaFree(p);
  cudaFreeHost(flag);
  cudaFree(timed_out);
  cudaFree(kernel);
  cudaFree(flush);
  cudaFree(pool);
  return 0;
}
