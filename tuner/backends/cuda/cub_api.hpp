// libpimg_cub.so (tuner/backends/cuda/cub/) loaded with dlopen on first use: the families' CUB code
// (variants/<family>/cuda/native/*.cu), compiled by nvcc with the runtime linked statically. The runtime
// shares the device's primary context, which the backend uses, so device pointers pass straight through.
#pragma once
#include <string>

namespace pimg::cuda {

struct CubApi {
  void* library = nullptr;  // the dlopen handle, for the families' functions (cub_function)
  int (*synchronize)() = nullptr;
  const char* (*error)(int code) = nullptr;
};

// $PIMG_CUB_LIBRARY, else the library this build made (PIMG_CUB_LIBRARY), else libpimg_cub.so on the
// loader's path. Loaded once per process; null with `error` saying why when it cannot be.
const CubApi* cub_api(std::string& error);
// cub_api() or std::runtime_error saying why it cannot load.
const CubApi* load_cub();
// A family's C function in the library (declared in its header beside its .cu), or std::runtime_error naming it.
void* cub_symbol(const CubApi& api, const char* symbol);

template <class Fn>
Fn cub_function(const CubApi& api, const char* symbol) {
  return reinterpret_cast<Fn>(cub_symbol(api, symbol));
}

// Throws std::runtime_error "<what>: <CUDA error text>" for a non-zero code of a libpimg_cub.so call.
void check_cub(const CubApi& api, int code, const char* what);

}  // namespace pimg::cuda
