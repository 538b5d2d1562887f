// libpimg_cub.so (tuner/backends/cuda/cub/) loaded with dlopen on first use: CUB's histogram and the
// histeq LUT kernel, compiled by nvcc with the runtime linked statically. The runtime shares the
// device's primary context, which the backend uses, so device pointers pass straight through.
#pragma once
#include <string>

namespace pimg::cuda {

struct CubApi {
  int (*histogram_even)(const unsigned char* in, unsigned* bins, long long pixels, int channels) = nullptr;
  int (*histogram_prepare)(long long pixels, int channels) = nullptr;
  int (*histeq_lut)(const unsigned* hist, unsigned char* lut, int total) = nullptr;
  int (*synchronize)() = nullptr;
  const char* (*error)(int code) = nullptr;
};

// $PIMG_CUB_LIBRARY, else the library this build made (PIMG_CUB_LIBRARY), else libpimg_cub.so on the
// loader's path. Loaded once per process; null with `error` saying why when it cannot be.
const CubApi* cub_api(std::string& error);
// cub_api() or std::runtime_error saying why it cannot load.
const CubApi* load_cub();
// Throws std::runtime_error "<what>: <CUDA error text>" for a non-zero code of a CubApi call.
void check_cub(const CubApi& api, int code, const char* what);

}  // namespace pimg::cuda
