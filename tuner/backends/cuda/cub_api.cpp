// Loads libpimg_cub.so and resolves its own C interface (cub/pimg_cub.h) and, on demand, the families' (see cub_api.hpp).
#include "cub_api.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace pimg::cuda {
namespace {

struct LoadedCub {
  CubApi api;
  std::string error;
  bool ok = false;
};

template <class F>
bool resolve_cub(void* lib, const char* name, F& fn, std::string& error) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) error = std::string("libpimg_cub lacks ") + name;
  return fn != nullptr;
}

LoadedCub load() {
  LoadedCub l;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("PIMG_CUB_LIBRARY"); env && *env) candidates.emplace_back(env);
#ifdef PIMG_CUB_LIBRARY
  candidates.emplace_back(PIMG_CUB_LIBRARY);
#endif
  candidates.emplace_back("libpimg_cub.so");
  void* lib = nullptr;
  std::string tried;
  for (const auto& c : candidates) {
    lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* e = dlerror();
    tried += (tried.empty() ? "" : "; ") + c + ": " + (e ? e : "not loadable");
  }
  if (!lib) {
    l.error = "libpimg_cub.so not found (built only where nvcc is; set PIMG_CUB_LIBRARY): " + tried;
    return l;
  }
  l.api.library = lib;
  l.ok = resolve_cub(lib, "pimg_cub_synchronize", l.api.synchronize, l.error) &&
         resolve_cub(lib, "pimg_cub_error", l.api.error, l.error);
  return l;
}

}  // namespace

const CubApi* cub_api(std::string& error) {
  static const LoadedCub loaded = load();
  if (!loaded.ok) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

const CubApi* load_cub() {
  std::string error;
  const CubApi* api = cub_api(error);
  if (!api) throw std::runtime_error(error);
  return api;
}

void* cub_symbol(const CubApi& api, const char* symbol) {
  dlerror();
  void* sym = dlsym(api.library, symbol);
  if (!sym) throw std::runtime_error(std::string("libpimg_cub lacks ") + symbol);
  return sym;
}

void check_cub(const CubApi& api, int code, const char* what) {
  if (code != 0) throw std::runtime_error(std::string(what) + ": " + api.error(code));
}

}  // namespace pimg::cuda
