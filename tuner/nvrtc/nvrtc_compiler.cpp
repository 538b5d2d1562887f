// NVRTC compiles through the dlopen'ed table of nvrtc_loader.hpp: options from a plan, the program
// log, and the cubin for the requested real architecture.
#include "nvrtc_compiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "nvrtc_loader.hpp"

namespace pimg::cuda {
namespace {

std::string nvrtc_error(const NvrtcApi& api, const char* call, NvrtcStatus r) {
  return fmt::format("{}: {}", call, api.nvrtcGetErrorString(r));
}

// Owns one nvrtcProgram.
class ProgramHandle {
 public:
  explicit ProgramHandle(const NvrtcApi& api) : api_(api) {}
  ~ProgramHandle() {
    if (prog_) api_.nvrtcDestroyProgram(&prog_);
  }
  ProgramHandle(const ProgramHandle&) = delete;
  ProgramHandle& operator=(const ProgramHandle&) = delete;
  NvrtcProgram* out() { return &prog_; }
  NvrtcProgram get() const { return prog_; }

 private:
  const NvrtcApi& api_;
  NvrtcProgram prog_ = nullptr;
};

std::string program_log(const NvrtcApi& api, NvrtcProgram p) {
  std::size_t n = 0;
  if (api.nvrtcGetProgramLogSize(p, &n) != kNvrtcSuccess || n == 0) return {};
  std::string log(n, '\0');
  if (api.nvrtcGetProgramLog(p, log.data()) != kNvrtcSuccess) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::string nvrtc_status() {
  std::string error;
  nvrtc_api(error);
  return error;
}

std::string nvrtc_version() {
  std::string error;
  const NvrtcApi* api = nvrtc_api(error);
  return api ? fmt::format("{}.{}", api->major, api->minor) : std::string();
}

std::string nvrtc_library() {
  std::string error;
  const NvrtcApi* api = nvrtc_api(error);
  return api ? api->path : std::string();
}

bool define_is_read(const std::string& source, const std::string& name) {
  if (source.find("#include") != std::string::npos || source.find("##") != std::string::npos) return true;
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = source.find(name); at != std::string::npos; at = source.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at == 0 || !ident(source[at - 1])) && (end == source.size() || !ident(source[end]))) return true;
  }
  return false;
}

std::vector<std::string> nvrtc_options(const LaunchPlan& plan, int compute_capability, const std::string* source) {
  // NVRTC 11 refuses a second -std (13 warns and takes the last): a plan's own standard replaces ours.
  const bool own_std = std::any_of(plan.options.begin(), plan.options.end(),
                                   [](const std::string& o) { return o.rfind("-std", 0) == 0 || o.rfind("--std", 0) == 0; });
  std::vector<std::string> out = {fmt::format("--gpu-architecture=sm_{}", compute_capability)};
  if (!own_std) out.push_back("-std=c++17");
  out.push_back("-default-device");
  for (const auto& [name, value] : plan.defines)
    if (!source || define_is_read(*source, name)) out.push_back(fmt::format("-D{}={}", name, value));
  for (const auto& o : plan.options)
    if (o.rfind(kHarnessOptionPrefix, 0) != 0) out.push_back(o);
  return out;
}

bool plan_wants_pinned(const LaunchPlan& plan) {
  for (const auto& o : plan.options)
    if (o == kPinnedOption) return true;
  return false;
}

NvrtcResult nvrtc_compile(const KernelSource& source, const std::vector<std::string>& options) {
  NvrtcResult r;
  std::string error;
  const NvrtcApi* api = nvrtc_api(error);
  if (!api) {
    r.log = error;
    return r;
  }
  ProgramHandle prog(*api);
  NvrtcStatus res = api->nvrtcCreateProgram(prog.out(), source.text.c_str(), source.path.c_str(), 0, nullptr, nullptr);
  if (res != kNvrtcSuccess) {
    r.log = nvrtc_error(*api, "nvrtcCreateProgram", res);
    return r;
  }
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  res = api->nvrtcCompileProgram(prog.get(), static_cast<int>(argv.size()), argv.data());
  r.log = program_log(*api, prog.get());
  if (res != kNvrtcSuccess) {
    r.log += (r.log.empty() ? "" : "\n") + nvrtc_error(*api, "nvrtcCompileProgram", res);
    r.rejected = res == kNvrtcErrorCompilation;
    return r;
  }
  std::size_t size = 0;
  res = api->nvrtcGetCUBINSize(prog.get(), &size);
  if (res != kNvrtcSuccess || size == 0) {
    r.log += (r.log.empty() ? "" : "\n") +
             (res != kNvrtcSuccess ? nvrtc_error(*api, "nvrtcGetCUBINSize", res)
                                   : std::string("NVRTC produced no cubin (is the architecture a real sm_XY?)"));
    return r;
  }
  r.cubin.resize(size);
  res = api->nvrtcGetCUBIN(prog.get(), reinterpret_cast<char*>(r.cubin.data()));
  if (res != kNvrtcSuccess) {
    r.cubin.clear();
    r.log += (r.log.empty() ? "" : "\n") + nvrtc_error(*api, "nvrtcGetCUBIN", res);
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace pimg::cuda
