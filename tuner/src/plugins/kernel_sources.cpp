// Kernel sources embedded at build time, with `#include "x"` of other embedded files expanded,
// so every backend (OpenCL, NVRTC, the host compiler) receives one self-contained text; and the
// sources of native calls.
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"

namespace pimg::detail {
struct EmbeddedKernel {
  const char* path;
  const unsigned char* data;
  std::size_t size;
};
extern const EmbeddedKernel kEmbeddedKernels[];
}  // namespace pimg::detail

namespace pimg {
namespace {

const std::map<std::string, std::string>& raw_sources() {
  static const std::map<std::string, std::string> table = [] {
    std::map<std::string, std::string> t;
    for (const auto* k = detail::kEmbeddedKernels; k->path; ++k)
      t[k->path] = std::string(reinterpret_cast<const char*>(k->data), k->size);
    return t;
  }();
  return table;
}

std::string expand(const std::string& path, std::set<std::string>& seen) {
  const auto& raw = raw_sources();
  auto it = raw.find(path);
  PIMG_CHECK(it != raw.end(), "no embedded kernel " + path);
  if (!seen.insert(path).second) return {};  // each header once, like #pragma once
  std::string out;
  std::size_t pos = 0;
  const std::string& text = it->second;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    std::size_t q1 = line.find('"');
    std::size_t q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
    if (line.rfind("#include \"", 0) == 0 && q2 != std::string::npos &&
        raw.count(line.substr(q1 + 1, q2 - q1 - 1))) {
      out += expand(line.substr(q1 + 1, q2 - q1 - 1), seen);
    } else {
      out += line;
      out += '\n';
    }
    pos = end + 1;
  }
  return out;
}

// Sources by path: embedded ones once expanded, and those read at run time (user kernels).
std::mutex sources_mu;
std::map<std::string, KernelSource> expanded;

}  // namespace

const KernelSource* kernel_source(const std::string& path) {
  std::lock_guard lock(sources_mu);
  if (auto it = expanded.find(path); it != expanded.end()) return &it->second;
  if (!raw_sources().count(path)) return nullptr;
  std::set<std::string> seen;
  KernelSource s{path, expand(path, seen), {}, {}};
  s.hash = hash128(s.text);
  return &(expanded[path] = std::move(s));
}

const KernelSource* add_kernel_source(const std::string& path, std::string text) {
  std::lock_guard lock(sources_mu);
  KernelSource s{path, std::move(text), {}, {}};
  s.hash = hash128(s.text);
  auto [it, inserted] = expanded.try_emplace(path, s);
  if (!inserted && it->second.hash != s.hash)
    throw std::runtime_error("kernel source " + path + " was registered twice with different text");
  return &it->second;
}

KernelSource native_source(const NativeCall& call) {
  const std::string key = "builtin:" + call.name + (call.library.empty() ? "" : "\n" + call.library);
  return {"native:" + call.name, "", hash128(key), call};
}

std::vector<std::string> kernel_source_paths() {
  std::vector<std::string> out;
  for (const auto& [p, _] : raw_sources()) out.push_back(p);
  return out;
}

}  // namespace pimg
