// What the standalone NPP benchmarks (npp_spin_bench.cu, npp_levels_bench.cu) share: NPP 13's types (nppdefs.h),
// declared here because only the library, not its headers, is needed; the library opened by soname; a stream
// context for the legacy default stream; and their error handling (`kProgram` names the program in messages).
#pragma once
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace npp_standalone {

struct NppiSize {
  int width, height;
};
struct NppiPoint {
  int x, y;
};
struct NppStreamContext {
  cudaStream_t hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
};
constexpr int kNppBorderReplicate = 2;
using FilterBorder = int (*)(const unsigned char* src, int src_step, NppiSize src_size, NppiPoint src_offset,
                             unsigned char* dst, int dst_step, NppiSize roi, const int* kernel, NppiSize kernel_size,
                             NppiPoint anchor, int divisor, int border, NppStreamContext ctx);

[[noreturn]] inline void fail(const char* program, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", program, what.c_str());
  std::exit(1);
}

inline void check(const char* program, cudaError_t e, const char* call) {
  if (e != cudaSuccess) fail(program, std::string(call) + ": " + cudaGetErrorString(e));
}

// libnppc first (libnppif needs it), by soname and in the toolkit's library folders.
inline void* open_npp(const char* program, const char* soname) {
  std::vector<std::string> dirs = {""};
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* d = std::getenv(env)) dirs.push_back(std::string(d) + "/lib64/");
  dirs.push_back("/usr/local/cuda/lib64/");
  std::string errors;
  for (const auto& d : dirs) {
    if (void* h = dlopen((d + soname).c_str(), RTLD_NOW | RTLD_GLOBAL)) return h;
    errors += std::string("; ") + dlerror();
  }
  fail(program, std::string("cannot load ") + soname + errors);
}

// Device 0 made current and NPP's FilterBorder `symbol` (e.g. nppiFilterBorder_8u_C1R_Ctx) loaded; fails without a
// GPU or NPP 13.
inline FilterBorder load_filter_border(const char* program, const char* symbol) {
  int devices = 0;
  if (cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0)
    fail(program, std::string("no CUDA device: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "none found"));
  open_npp(program, "libnppc.so.13");
  const auto filter = reinterpret_cast<FilterBorder>(dlsym(open_npp(program, "libnppif.so.13"), symbol));
  if (!filter) fail(program, std::string("libnppif.so.13 has no ") + symbol);
  check(program, cudaSetDevice(0), "cudaSetDevice");
  return filter;
}

// The stream context of the legacy default stream on device 0, made once.
inline NppStreamContext default_stream_context(const char* program, const cudaDeviceProp& prop) {
  NppStreamContext ctx{};
  ctx.hStream = nullptr;
  ctx.nCudaDeviceId = 0;
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  check(program, cudaStreamGetFlags(nullptr, &ctx.nStreamFlags), "cudaStreamGetFlags");
  return ctx;
}

}  // namespace npp_standalone
