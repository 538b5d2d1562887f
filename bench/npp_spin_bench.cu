// A standalone reference for the tuner's NPP baseline: nppiFilterBorder_8u_C1R_Ctx with seed 000's 3x3
// sharpen (replicate border) on a WxH u8 image (8192x8192 by default), timed the way NVIDIA's NVBench times
// a kernel, as the tuner does: before each run the L2 is emptied by reading a buffer of twice its size, filled once
// (a memset before each run, NVBench's flush, leaves dirty lines whose write-back the timed call would pay:
// docs/measurement.md), and a spin kernel waiting on a host-pinned flag is queued, so the start event, the NPP call and the stop event are all
// enqueued before the GPU reaches them and the host's launch latency is hidden; the flag is then released.
// The same call is also timed with events around it and no spin kernel ("call time", launch included).
// Prints one JSON object: median, 95% interval of the median and minimum of each method, and whether the
// output equals the conv rule. Needs a GPU and NPP 13 (dlopen'ed); says so and exits 1 without them.
//   npp_spin_bench [--size WxH] [--runs N] [--border replicate|valid]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "npp_standalone.cuh"
#include "timing/spin.cu"  // pimg_l2_sweep: the tuner's L2 sweep, so that both empty the L2 alike

namespace {

constexpr const char* kProgram = "npp_spin_bench";
using namespace npp_standalone;

[[noreturn]] void fail(const std::string& what) { npp_standalone::fail(kProgram, what); }
void check(cudaError_t e, const char* call) { npp_standalone::check(kProgram, e, call); }

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Spins until the host sets *flag (or a second has passed, so a lost release cannot hang the GPU).
__global__ void spin(const volatile int* flag) {
  const unsigned long long start = global_ns();
  while (*flag == 0 && global_ns() - start < 1000000000ull) {
  }
}

struct Summary {
  double median = 0, low = 0, high = 0, min = 0;
};

// The median and its 95% interval from order statistics (ranks n/2 -+ 1.96 sqrt(n)/2), as distribution-free
// as the median itself.
Summary summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  Summary s;
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  const double half = 1.96 * std::sqrt(static_cast<double>(n)) / 2;
  const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(n / 2.0 - half)));
  const auto hi = static_cast<std::size_t>(std::min(n - 1.0, std::ceil(n / 2.0 + half)));
  s.low = v[lo];
  s.high = v[hi];
  s.min = v.front();
  return s;
}

std::string json(const Summary& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "{\"median_ms\": %.5f, \"ci_low_ms\": %.5f, \"ci_high_ms\": %.5f, \"min_ms\": %.5f}",
                s.median, s.low, s.high, s.min);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  int width = 8192, height = 8192, runs = 200;
  bool valid = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--size" && i + 1 < argc && std::sscanf(argv[++i], "%dx%d", &width, &height) == 2) continue;
    if (a == "--runs" && i + 1 < argc && (runs = std::atoi(argv[++i])) >= 10) continue;
    if (a == "--border" && i + 1 < argc) {
      const std::string b = argv[++i];
      if (b == "replicate" || b == "valid") {
        valid = b == "valid";
        continue;
      }
    }
    std::fprintf(stderr, "usage: npp_spin_bench [--size WxH] [--runs N>=10] [--border replicate|valid]\n");
    return 2;
  }
  if (width < 3 || height < 3) fail("the image must be at least 3x3");
  const FilterBorder filter = load_filter_border(kProgram, "nppiFilterBorder_8u_C1R_Ctx");

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  // The stream context, made once: the legacy default stream, which the events below time.
  const NppStreamContext ctx = default_stream_context(kProgram, prop);

  // Seed 000's sharpen, reversed as NPP's FilterBorder convolves (symmetric anyway); divisor 1.
  const int weights[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
  const int r = 1, out_w = valid ? width - 2 : width, out_h = valid ? height - 2 : height;
  const std::size_t in_bytes = static_cast<std::size_t>(width) * height, out_bytes = static_cast<std::size_t>(out_w) * out_h;
  std::vector<unsigned char> host_in(in_bytes), host_out(out_bytes);
  unsigned state = 1107;
  for (auto& v : host_in) v = static_cast<unsigned char>((state = state * 1664525u + 1013904223u) >> 24);

  unsigned char *in = nullptr, *out = nullptr, *flush = nullptr;
  int* kernel = nullptr;
  int* flag = nullptr;
  const std::size_t flush_bytes = 2 * static_cast<std::size_t>(prop.l2CacheSize) / 16 * 16;
  check(cudaMalloc(&in, in_bytes), "cudaMalloc");
  check(cudaMalloc(&out, out_bytes), "cudaMalloc");
  check(cudaMalloc(&flush, flush_bytes + 16), "cudaMalloc");
  check(cudaMemset(flush, 0x5a, flush_bytes + 16), "cudaMemset");  // one byte value: the words' xor is 0, never 1
  check(cudaMalloc(&kernel, sizeof weights), "cudaMalloc");
  check(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
  int* device_flag = nullptr;
  check(cudaHostGetDevicePointer(&device_flag, flag, 0), "cudaHostGetDevicePointer");
  check(cudaMemcpy(in, host_in.data(), in_bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(kernel, weights, sizeof weights, cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");

  const NppiPoint offset = valid ? NppiPoint{r, r} : NppiPoint{0, 0};
  auto call = [&] {
    const int status = filter(in + offset.y * width + offset.x, width, NppiSize{width, height}, offset, out, out_w,
                              NppiSize{out_w, out_h}, kernel, NppiSize{3, 3}, NppiPoint{r, r}, 1, kNppBorderReplicate,
                              ctx);
    if (status < 0) fail("nppiFilterBorder_8u_C1R_Ctx: NPP status " + std::to_string(status));
  };
  auto elapsed = [&] {
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return static_cast<double>(ms);
  };
  auto empty_l2 = [&] {
    pimg_l2_sweep<<<prop.multiProcessorCount * 4, 512>>>(reinterpret_cast<const uint4*>(flush), flush_bytes / 16, 1u,
                                                  reinterpret_cast<unsigned*>(flush + flush_bytes));
    check(cudaGetLastError(), "L2 sweep");
  };
  std::vector<double> spin_ms, call_ms;
  for (int warm = 0; warm < 5; ++warm) call();
  check(cudaDeviceSynchronize(), "warm-up");
  for (int i = 0; i < runs; ++i) {
    // NVBench's way (with the clean flush): flush, block the stream, enqueue start / call / stop, release.
    empty_l2();
    *static_cast<volatile int*>(flag) = 0;
    spin<<<1, 1>>>(device_flag);
    check(cudaGetLastError(), "spin kernel");
    check(cudaEventRecord(start, nullptr), "cudaEventRecord");
    call();
    check(cudaEventRecord(stop, nullptr), "cudaEventRecord");
    *static_cast<volatile int*>(flag) = 1;
    spin_ms.push_back(elapsed());
    // Call time: the same, without the spin kernel (the host's launch of the call is timed too).
    empty_l2();
    check(cudaDeviceSynchronize(), "flush");
    check(cudaEventRecord(start, nullptr), "cudaEventRecord");
    call();
    check(cudaEventRecord(stop, nullptr), "cudaEventRecord");
    call_ms.push_back(elapsed());
  }
  check(cudaMemcpy(host_out.data(), out, out_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");

  // The conv rule (divisor 1: sums saturated to [0, 255]) with replicated edges, on every pixel.
  std::size_t wrong = 0;
  for (int y = 0; y < out_h; ++y)
    for (int x = 0; x < out_w; ++x) {
      const int cx = valid ? x + r : x, cy = valid ? y + r : y;
      int acc = 0;
      for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx) {
          const int xx = std::clamp(cx + kx - r, 0, width - 1), yy = std::clamp(cy + ky - r, 0, height - 1);
          acc += weights[ky * 3 + kx] * host_in[static_cast<std::size_t>(yy) * width + xx];
        }
      wrong += host_out[static_cast<std::size_t>(y) * out_w + x] != std::clamp(acc, 0, 255);
    }

  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("{\"program\": \"npp_spin_bench\", \"device\": \"%s\", \"cuda_driver\": %d, \"cuda_runtime\": %d,\n"
              " \"call\": \"nppiFilterBorder_8u_C1R_Ctx(sharpen3, divisor 1, NPP_BORDER_REPLICATE%s)\",\n"
              " \"width\": %d, \"height\": %d, \"runs\": %d, \"l2_bytes\": %d, \"flush_bytes\": %zu,\n"
              " \"spin\": %s,\n \"call_time\": %s,\n \"exact\": %s, \"wrong_pixels\": %zu}\n",
              prop.name, driver, runtime, valid ? ", inner ROI" : "", width, height, runs, prop.l2CacheSize,
              flush_bytes, json(summarise(spin_ms)).c_str(), json(summarise(call_ms)).c_str(),
              wrong == 0 ? "true" : "false", wrong);
  cudaFreeHost(flag);
  cudaFree(kernel);
  cudaFree(flush);
  cudaFree(out);
  cudaFree(in);
  return wrong == 0 ? 0 : 1;
}
