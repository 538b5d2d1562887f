// Finds and dlopens NVRTC: the candidate files of every library directory, each asked its version,
// the newest kept; the others are closed again. Every failure is kept as text for BackendStatus, the
// compile logs and the tests' skip message.
#include "nvrtc_loader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <glob.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <type_traits>

namespace pimg::cuda {
namespace {

namespace fs = std::filesystem;

std::string last_dlerror() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

// The directories an ld.so.conf file lists, following its `include GLOB` lines (relative globs are
// relative to /etc, as ldconfig reads them); `depth` stops include loops.
void conf_dirs(const std::string& file, std::vector<std::string>& out, int depth) {
  if (depth > 8) return;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    if (word != "include") {
      out.push_back(word);
      continue;
    }
    std::string pattern;
    while (words >> pattern) {
      if (pattern.front() != '/') pattern = "/etc/" + pattern;
      glob_t g{};
      if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
        for (std::size_t i = 0; i < g.gl_pathc; ++i) conf_dirs(g.gl_pathv[i], out, depth + 1);
      globfree(&g);
    }
  }
}

// libnvrtc.so or libnvrtc.so.<digits and dots>; not libnvrtc-builtins nor the .alt builds.
bool is_nvrtc_name(const std::string& name) {
  static const std::string stem = "libnvrtc.so";
  if (name == stem) return true;
  if (name.size() <= stem.size() + 1 || name.compare(0, stem.size() + 1, stem + ".") != 0) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(stem.size()) + 1, name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

// Every NVRTC file of the directories, each real file once, in directory order.
std::vector<std::string> candidates() {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& dir : library_dirs()) {
    std::error_code ec;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (is_nvrtc_name(e.path().filename().string())) names.push_back(e.path().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      const fs::path real = fs::canonical(n, ec);
      if (!ec && seen.insert(real.string()).second) out.push_back(n);
    }
  }
  return out;
}

// Opens one file and fills `api` from it; the handle, or null with `error` saying why.
void* open_one(const std::string& file, NvrtcApi& api, std::string& error) {
  void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    error = last_dlerror();
    return nullptr;
  }
  std::string missing;
  auto resolve = [&](const char* symbol, auto& out) {
    out = reinterpret_cast<std::remove_reference_t<decltype(out)>>(dlsym(lib, symbol));
    if (!out && missing.empty()) missing = symbol;
  };
  resolve("nvrtcGetErrorString", api.nvrtcGetErrorString);
  resolve("nvrtcVersion", api.nvrtcVersion);
  resolve("nvrtcCreateProgram", api.nvrtcCreateProgram);
  resolve("nvrtcDestroyProgram", api.nvrtcDestroyProgram);
  resolve("nvrtcCompileProgram", api.nvrtcCompileProgram);
  resolve("nvrtcGetProgramLogSize", api.nvrtcGetProgramLogSize);
  resolve("nvrtcGetProgramLog", api.nvrtcGetProgramLog);
  resolve("nvrtcGetPTXSize", api.nvrtcGetPTXSize);
  resolve("nvrtcGetPTX", api.nvrtcGetPTX);
  resolve("nvrtcGetCUBINSize", api.nvrtcGetCUBINSize);
  resolve("nvrtcGetCUBIN", api.nvrtcGetCUBIN);
  if (missing.empty() && api.nvrtcVersion(&api.major, &api.minor) != kNvrtcSuccess) missing = "a working nvrtcVersion";
  if (!missing.empty()) {
    error = fmt::format("{}: missing {} (NVRTC older than 11.1?)", file, missing);
    dlclose(lib);
    return nullptr;
  }
  api.path = file;
  return lib;
}

struct Loaded {
  NvrtcApi api;
  std::string error;
  bool ok = false;
};

Loaded load() {
  Loaded s;
  if (const char* forced = std::getenv("PIMG_NVRTC"); forced && *forced) {
    std::string error;
    if (open_one(forced, s.api, error)) s.ok = true;
    else s.error = fmt::format("NVRTC not loadable from PIMG_NVRTC={}: {}", forced, error);
    return s;
  }
  void* best = nullptr;
  std::string errors;
  for (const auto& file : candidates()) {
    NvrtcApi api;
    std::string error;
    void* lib = open_one(file, api, error);
    if (!lib) {
      errors += (errors.empty() ? "" : "; ") + error;
      continue;
    }
    if (!best || std::pair{api.major, api.minor} > std::pair{s.api.major, s.api.minor}) {
      if (best) dlclose(best);
      best = lib;
      s.api = api;
    } else {
      dlclose(lib);
    }
  }
  if (best) {
    s.ok = true;
    return s;
  }
  std::string dirs;
  for (const auto& d : library_dirs()) dirs += (dirs.empty() ? "" : ":") + d;
  s.error = fmt::format("NVRTC not found: no loadable libnvrtc.so[.N] in {}{} (PIMG_NVRTC=/path/libnvrtc.so.N names one)",
                        dirs, errors.empty() ? "" : "; " + errors);
  return s;
}

}  // namespace

std::vector<std::string> toolkit_library_dirs() {
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  return dirs;
}

std::vector<std::string> library_dirs() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("LD_LIBRARY_PATH")) {
    std::istringstream parts(path);
    std::string d;
    while (std::getline(parts, d, ':'))
      if (!d.empty()) dirs.push_back(d);
  }
  conf_dirs("/etc/ld.so.conf", dirs, 0);
  for (const char* d : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) dirs.push_back(d);
  for (auto& d : toolkit_library_dirs()) dirs.push_back(std::move(d));
  std::vector<std::string> unique;
  for (auto& d : dirs)
    if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(std::move(d));
  return unique;
}

const NvrtcApi* nvrtc_api(std::string& error) {
  static const Loaded state = load();
  if (!state.ok) {
    error = state.error;
    return nullptr;
  }
  return &state.api;
}

}  // namespace pimg::cuda
