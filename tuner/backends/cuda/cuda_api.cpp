// Loads libcuda.so.1 and NPP with dlopen on first use and fills the function tables of cuda_api.hpp.
// The toolkit's libraries are tried by soname first, then in $CUDA_HOME, $CUDA_PATH and
// /usr/local/cuda; every failure is kept as text for BackendStatus and compile logs.
#include "cuda_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <vector>

#include "nvrtc_loader.hpp"

namespace pimg::cuda {
namespace {

#define PIMG_STR2(x) #x
#define PIMG_STR(x) PIMG_STR2(x)

std::string last_dlerror() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

// Looks up one symbol into `out`; false (and `error` naming it) when the library lacks it.
template <class Fn>
bool resolve(void* lib, const char* symbol, Fn& out, std::string& error) {
  out = reinterpret_cast<Fn>(dlsym(lib, symbol));
  if (!out) error = fmt::format("missing symbol {}", symbol);
  return out != nullptr;
}

struct Loaded {
  std::string error;
  bool ok = false;
};

}  // namespace

// dlopen of the first name that loads: each soname as given, then inside each toolkit directory.
void* open_toolkit_library(const std::vector<std::string>& names, std::string& tried) {
  std::vector<std::string> candidates = names;
  for (const auto& dir : toolkit_library_dirs())
    for (const auto& n : names) candidates.push_back(dir + "/" + n);
  std::string errors;
  for (const auto& c : candidates) {
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    errors += (errors.empty() ? "" : "; ") + last_dlerror();
  }
  tried = errors;
  return nullptr;
}

const DriverApi* driver_api(std::string& error) {
  static DriverApi api;
  static const Loaded state = [] {
    Loaded s;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      s.error = "libcuda.so.1 not found: " + last_dlerror();
      return s;
    }
    std::string missing;
#define PIMG_LOAD(fn) \
  if (missing.empty()) resolve(lib, PIMG_STR(fn), api.fn, missing);
    PIMG_CUDA_DRIVER_FUNCTIONS(PIMG_LOAD)
#undef PIMG_LOAD
    if (!missing.empty())
      s.error = fmt::format("libcuda.so.1: {} (a driver older than this build's CUDA headers?)", missing);
    s.ok = s.error.empty();
    return s;
  }();
  if (!state.ok) {
    error = state.error;
    return nullptr;
  }
  return &api;
}

const NppApi* npp_api(std::string& error) {
  static NppApi api;
  static const Loaded state = [] {
    Loaded s;
    std::string tried;
    // NPP needs the CUDA runtime and its core library; loading them first from the same places
    // lets libnppif find them by soname even when the toolkit is not on the loader's path.
    for (const char* dep : {"libcudart.so.13", "libnppc.so.13"})
      if (!open_toolkit_library({dep}, tried)) {
        s.error = fmt::format("NPP not found ({}): {}", dep, tried);
        return s;
      }
    void* lib = open_toolkit_library({"libnppif.so.13"}, tried);
    if (!lib) {
      s.error = "NPP not found (libnppif.so.13): " + tried;
      return s;
    }
    std::string missing;
    if (!resolve(lib, "nppiFilterBorder_8u_C1R_Ctx", api.filter_border_c1, missing) ||
        !resolve(lib, "nppiFilterBorder_8u_C3R_Ctx", api.filter_border_c3, missing)) {
      s.error = "libnppif.so.13: " + missing;
      return s;
    }
    s.ok = true;
    return s;
  }();
  if (!state.ok) {
    error = state.error;
    return nullptr;
  }
  return &api;
}

std::string error_name(const DriverApi& api, CUresult r) {
  const char* name = nullptr;
  if (api.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) return fmt::format("CUDA error {}", static_cast<int>(r));
  return name;
}

}  // namespace pimg::cuda
