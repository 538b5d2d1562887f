// What the CUDA backend's native calls (library baselines) share: the NPP symbol loader, buffer lookup and status
// checks. Their table, library_calls(), is generated from the families' files (library_calls.cpp.in).
#include "cuda_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

namespace pimg::cuda {

void* npp_symbol(const std::string& library, const std::string& symbol) {
  static std::mutex mu;
  static std::map<std::string, void*> libraries;
  std::lock_guard lock(mu);
  std::string error;
  if (!npp_api(error)) throw std::runtime_error(error);  // loads the runtime and libnppc first
  void*& lib = libraries[library];
  if (!lib) {
    std::string tried;
    lib = open_toolkit_library({library}, tried);
    if (!lib) throw std::runtime_error(fmt::format("NPP library {} not found: {}", library, tried));
  }
  dlerror();
  void* sym = dlsym(lib, symbol.c_str());
  if (!sym) throw std::runtime_error(fmt::format("{} has no symbol {}", library, symbol));
  return sym;
}

CUdeviceptr pointer(const DevicePointers& buffers, const std::string& name) {
  auto it = buffers.find(name);
  if (it == buffers.end()) throw std::runtime_error(fmt::format("the plan has no buffer '{}'", name));
  return it->second;
}

void check_npp(NppStatus status, const char* call) {
  if (status < 0) throw std::runtime_error(fmt::format("{}: NPP status {} (NppStatus of nppdefs.h)", call, status));
}

const DriverApi& library_driver() {
  std::string error;
  const DriverApi* api = driver_api(error);
  if (!api) throw std::runtime_error(error);
  return *api;
}

}  // namespace pimg::cuda
