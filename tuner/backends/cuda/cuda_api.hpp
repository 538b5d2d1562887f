// The CUDA driver API and the NPP filter functions as tables of function pointers filled by
// dlopen/dlsym at run time, so pimg-tune neither links nor needs them (NVRTC: tuner/nvrtc). Private to
// the CUDA backend: it includes cuda.h, whose macros map names such as cuMemAlloc to their _v2 symbols.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

namespace pimg::cuda {

// Every driver function the backend calls. The names go through cuda.h's macros both for the member
// (cuMemAlloc becomes cuMemAlloc_v2) and for the symbol looked up, so the two always agree.
#define PIMG_CUDA_DRIVER_FUNCTIONS(X)                                                                           \
  X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet)      \
  X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)                    \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleUnload)     \
  X(cuModuleGetFunction) X(cuLaunchKernel) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH)           \
  X(cuMemsetD8) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuArrayCreate) X(cuArrayDestroy) X(cuMemcpy2D)             \
  X(cuTexObjectCreate) X(cuTexObjectDestroy) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)                \
  X(cuEventSynchronize) X(cuEventElapsedTime) X(cuMemHostGetDevicePointer) X(cuMemsetD32Async)                 \
  X(cuMemcpyDtoDAsync) X(cuModuleGetGlobal) X(cuMemcpyDtoD) X(cuFuncSetAttribute)

#define PIMG_CUDA_MEMBER(fn) decltype(&::fn) fn = nullptr;

struct DriverApi {
  PIMG_CUDA_DRIVER_FUNCTIONS(PIMG_CUDA_MEMBER)
};

#undef PIMG_CUDA_MEMBER

// NPP's own types, declared here with NPP 13's layout (nppdefs.h) because only the library, not its
// headers, is needed at run time.
struct NppiSize {
  int width, height;
};
struct NppiPoint {
  int x, y;
};
struct NppStreamContext {
  CUstream hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  std::size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
};
enum NppiBorderType : int { NPP_BORDER_UNDEFINED = 0, NPP_BORDER_CONSTANT = 1, NPP_BORDER_REPLICATE = 2 };
using NppStatus = int;  // 0 success, negative errors, positive warnings

// nppiFilterBorder_8u_C1R_Ctx and _C3R_Ctx share this signature.
using NppFilterBorderFn = NppStatus (*)(const unsigned char* src, int src_step, NppiSize src_size, NppiPoint src_offset,
                                        unsigned char* dst, int dst_step, NppiSize roi, const int* kernel,
                                        NppiSize kernel_size, NppiPoint anchor, int divisor, NppiBorderType border,
                                        NppStreamContext ctx);

struct NppApi {
  NppFilterBorderFn filter_border_c1 = nullptr;
  NppFilterBorderFn filter_border_c3 = nullptr;
};

// Each library is loaded once per process and stays loaded. On failure the result is null and
// `error` says why (the libraries tried and dlerror's text).
const DriverApi* driver_api(std::string& error);
const NppApi* npp_api(std::string& error);

// dlopen of the first name that loads: each soname as given, then inside each toolkit directory
// (toolkit_library_dirs() of tuner/nvrtc/nvrtc_loader.hpp);
// null with the loader's messages in `tried`.
void* open_toolkit_library(const std::vector<std::string>& names, std::string& tried);

// "CUDA_ERROR_NO_DEVICE" for a driver result, from cuGetErrorName.
std::string error_name(const DriverApi& api, CUresult r);

}  // namespace pimg::cuda
