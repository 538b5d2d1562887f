// OpenMP backend: runs the host compiler (fork and exec under a guard, no shell) once per
// configuration, caches the shared libraries in memory and on disk (cache sub "openmp"), loads them
// with dlopen and calls the entry as a HostKernelFn on host buffers, timed with the host clock.
#include "openmp_backend.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "host_memory.hpp"
#include "temp_dir.hpp"
#include "pimg/cache.hpp"
#include "pimg/config.hpp"
#include "pimg/registry.hpp"

extern char** environ;

namespace pimg {
namespace {

namespace fs = std::filesystem;

// Flags every kernel and the availability probe are built with; defines and plan options follow.
const std::vector<std::string> kBaseFlags = {"-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-std=c++17"};

// Compiled to check that the compiler builds and the runtime runs OpenMP shared libraries.
constexpr const char* kProbeSource = R"(#include <omp.h>
extern "C" int pimg_openmp_probe(int* max_threads) {
  int threads = 0;
#pragma omp parallel reduction(+ : threads)
  threads += 1;
  *max_threads = omp_get_max_threads();
  return threads > 0 ? _OPENMP : 0;
}
)";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

struct ToolRun {
  bool ok = false;        // started and exited with status 0
  bool refused = false;   // exited with status 1, GCC's and Clang's for errors in the input (a crash, a killed
                          // cc1plus or an internal error exits otherwise: 4, or by a signal)
  std::string output;     // stdout and stderr together, then why it failed
};

// The compiler's guard: a child that leads a process group of its own, runs the tool in it and, when
// its parent (the tuner or its worker) dies, kills the whole group, the compiler's own children
// (cc1plus, as, ld) included. Only async-signal-safe calls after fork.
extern "C" void kill_tool_group(int) { ::kill(0, SIGKILL); }

[[noreturn]] void guard_tool(pid_t parent, char* const* args, char* const* env, const char* log_path) {
  ::setpgid(0, 0);
  struct sigaction sa {};
  sa.sa_handler = kill_tool_group;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) kill_tool_group(0);
  const pid_t tool = ::fork();
  if (tool < 0) ::_exit(126);
  if (tool == 0) {
    ::signal(SIGTERM, SIG_DFL);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execvpe(args[0], args, env);
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(tool, &status, 0) < 0 && errno == EINTR) {
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

// Runs argv (argv[0] looked up in PATH) with no shell, stdin from /dev/null and stdout and stderr
// both captured through a file in `dir`, under a guard that takes it down with its parent. TMPDIR is
// `dir`, so the compiler's own temporary files go where a later sweep finds them.
ToolRun run_tool(const std::vector<std::string>& argv, const fs::path& dir) {
  ToolRun r;
  const std::string log_path = (dir / "tool.log").string();
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string tmpdir = "TMPDIR=" + dir.string();
  std::vector<char*> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "TMPDIR=", 7) != 0) env.push_back(*e);
  env.push_back(const_cast<char*>(tmpdir.c_str()));
  env.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.output = fmt::format("cannot run '{}': {}", argv[0], std::strerror(errno));
    return r;
  }
  if (pid == 0) guard_tool(parent, args.data(), env.data(), log_path.c_str());
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      r.output = fmt::format("waiting for '{}' failed: {}", argv[0], std::strerror(errno));
      return r;
    }
  }
  r.output = read_file(log_path);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code == 0) {
    r.ok = true;
  } else if (code == 127 || code == 126) {
    r.output += fmt::format("cannot run '{}': not found, not executable, or no room for its log", argv[0]);
  } else if (code > 128) {
    r.output += fmt::format("'{}' was killed by signal {} ({})", argv[0], code - 128, strsignal(code - 128));
  } else {
    r.refused = code == 1;
    r.output += fmt::format("'{}' exited with status {}", argv[0], code);
  }
  return r;
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dynamic loader error";
}

std::string openmp_version_text(int v) {
  static const std::map<int, const char*> names = {{200505, "2.5"}, {200805, "3.0"}, {201107, "3.1"},
                                                   {201307, "4.0"}, {201511, "4.5"}, {201811, "5.0"},
                                                   {202011, "5.1"}, {202111, "5.2"}};
  auto it = names.find(v);
  return it == names.end() ? fmt::format("OpenMP {}", v) : fmt::format("OpenMP {} ({})", it->second, v);
}

class OmpProgram final : public Program {
 public:
  OmpProgram(HostKernelFn f, void* library) : fn(f), lib(library) {}
  HostKernelFn fn;
  void* lib;  // the loaded library (never closed): LaunchPlan::globals are its variables
};

// The compiler and everything learnt about it, shared by a backend and the devices it opened:
// the probe result (computed once) and the libraries loaded so far (the memory cache).
class Toolchain {
 public:
  const BackendStatus& status() {
    std::call_once(probed_, [this] { probe(); });
    return status_;
  }
  const std::string& version() {
    status();
    return version_;
  }
  int openmp_version() {
    status();
    return openmp_version_;
  }
  int max_threads() {
    status();
    return max_threads_;
  }

  CompileResult compile(const KernelSource& source, const LaunchPlan& plan) {
    CompileResult r;
    if (!status().available) {
      r.log = "the openmp backend is unavailable: " + status_.reason;
      return r;
    }
    std::vector<std::string> flags = kBaseFlags;
    for (const auto& [name, value] : plan.defines) flags.push_back("-D" + name + "=" + value);
    flags.insert(flags.end(), plan.options.begin(), plan.options.end());
    const std::string key = hash128(join({source.hash, compiler_, join(flags, "\n"), version_, cpu_model_}, "\n\n"));

    void* lib = nullptr;
    {
      std::lock_guard lock(mu_);
      if (auto it = libraries_.find(key); it != libraries_.end()) lib = it->second;
    }
    if (lib) {
      r.cached = true;
      r.log = "loaded from the memory cache";
    } else {
      lib = load_or_build(source, flags, key, r);
      if (!lib) return r;
      std::lock_guard lock(mu_);
      libraries_.emplace(key, lib);
    }
    dlerror();
    void* sym = dlsym(lib, plan.entry.c_str());
    if (!sym) {
      r.log += fmt::format("\nno symbol '{}' in the compiled library (is it extern \"C\"?)", plan.entry);
      return r;
    }
    r.program = std::make_shared<OmpProgram>(reinterpret_cast<HostKernelFn>(sym), lib);
    return r;
  }

 private:
  // The disk cache entry when it loads, else a fresh build written to the cache. Null on failure,
  // with the reason in r.log. Loaded libraries are never closed: programs may point into them. A program
  // the compiler refused (an error status of its own, not a signal or a missing tool) is remembered beside
  // the libraries with its log (KEY.rejected, as the CUDA backend keeps NVRTC's refusals): the same source,
  // flags, compiler and CPU are refused again without running the compiler (a configuration's compile
  // error is met once per configuration, not once per problem and process).
  void* load_or_build(const KernelSource& source, const std::vector<std::string>& flags, const std::string& key,
                      CompileResult& r) {
    const std::string cached_path = cache_path("openmp", key + ".so");
    if (cache_exists("openmp", key + ".so")) {  // checksum intact
      if (void* lib = dlopen(cached_path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        r.cached = true;
        r.log = fmt::format("loaded {} from the disk cache", cached_path);
        return lib;
      }
      r.log = fmt::format("ignoring the unloadable disk cache entry {}: {}\n", cached_path, dl_error());
    } else if (auto refused = cache_read("openmp", key + ".rejected")) {
      r.cached = true;
      r.log.assign(refused->begin(), refused->end());
      return nullptr;
    }
    TempDir tmp("pimg-omp");
    const fs::path src = tmp.path() / "src.cpp";
    const fs::path out = tmp.path() / "lib.so";
    write_file(src, source.text);
    std::vector<std::string> argv{compiler_};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-o", out.string(), src.string()});
    ToolRun run = run_tool(argv, tmp.path());
    r.log += fmt::format("{} [{}]\n{}", join(argv, " "), source.path, run.output);
    if (run.refused) cache_write("openmp", key + ".rejected", {r.log.begin(), r.log.end()});
    if (!run.ok) return nullptr;
    void* lib = dlopen(out.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      r.log += fmt::format("\ndlopen failed: {}", dl_error());
      return nullptr;
    }
    const std::string bytes = read_file(out);
    cache_write("openmp", key + ".so", std::vector<unsigned char>(bytes.begin(), bytes.end()));
    return lib;
  }

  // Finds the compiler, reads its version and builds, loads and calls a tiny OpenMP library.
  void probe() {
    if (const char* env = std::getenv("PIMG_HOST_CXX"); env && *env)
      compiler_ = env;
    else if (*PIMG_DEFAULT_HOST_CXX)
      compiler_ = PIMG_DEFAULT_HOST_CXX;
    else
      compiler_ = "c++";
    cpu_model_ = host_device_info("openmp").name;
    TempDir::sweep("pimg-omp");
    try {
      TempDir tmp("pimg-omp");
      ToolRun v = run_tool({compiler_, "--version"}, tmp.path());
      if (!v.ok) {
        status_ = {false, fmt::format("the host compiler '{}' does not run: {}", compiler_, trim(v.output))};
        return;
      }
      version_ = trim(v.output.substr(0, v.output.find('\n')));
      write_file(tmp.path() / "probe.cpp", kProbeSource);
      std::vector<std::string> argv{compiler_};
      argv.insert(argv.end(), kBaseFlags.begin(), kBaseFlags.end());
      argv.insert(argv.end(), {"-o", (tmp.path() / "probe.so").string(), (tmp.path() / "probe.cpp").string()});
      ToolRun build = run_tool(argv, tmp.path());
      if (!build.ok) {
        status_ = {false, fmt::format("'{}' cannot build an OpenMP shared library: {}", compiler_, trim(build.output))};
        return;
      }
      void* lib = dlopen((tmp.path() / "probe.so").c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) {
        status_ = {false, fmt::format("cannot load an OpenMP shared library built by '{}': {}", compiler_, dl_error())};
        return;
      }
      auto fn = reinterpret_cast<int (*)(int*)>(dlsym(lib, "pimg_openmp_probe"));
      openmp_version_ = fn ? fn(&max_threads_) : 0;
      if (openmp_version_ <= 0) {
        status_ = {false, fmt::format("'{}' built the OpenMP probe without OpenMP", compiler_)};
        return;
      }
      status_ = {true, ""};
    } catch (const std::exception& e) {
      status_ = {false, e.what()};
    }
  }

  std::once_flag probed_;
  BackendStatus status_;
  std::string compiler_, version_, cpu_model_;
  int openmp_version_ = 0;
  int max_threads_ = 0;
  std::mutex mu_;
  std::map<std::string, void*> libraries_;  // cache key -> dlopen handle
};

class OmpDevice final : public HostClockDevice {
 public:
  OmpDevice(DeviceInfo info, std::shared_ptr<Toolchain> tc) : HostClockDevice(std::move(info)), tc_(std::move(tc)) {}
  CompileResult compile(const KernelSource& source, const LaunchPlan& plan) override {
    const auto t0 = std::chrono::steady_clock::now();
    CompileResult r;
    try {
      r = tc_->compile(source, plan);
    } catch (const std::exception& e) {
      r.log += e.what();
    }
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  LaunchResult launch(Program& program, const LaunchPlan& plan,
                      const std::map<std::string, DeviceBuffer*>& buffers) override {
    LaunchResult r;
    auto* p = dynamic_cast<OmpProgram*>(&program);
    if (!p) {
      r.error = "not a program of the openmp backend";
      return r;
    }
    try {
      // The plan's runtime knobs, written into the library's variables before the call (outside its time).
      for (const auto& [name, value] : plan.globals) {
        void* var = dlsym(p->lib, name.c_str());
        if (!var) throw std::runtime_error(fmt::format("no variable '{}' in the compiled library (extern \"C\" int?)", name));
        if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
          throw std::runtime_error(fmt::format("{} = {} does not fit the program's int", name, value));
        *static_cast<int*>(var) = static_cast<int>(value);
      }
      r.kernel_ms = call_host_kernel(p->fn, plan, buffers);
      r.ok = true;
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    return r;
  }

 private:
  std::shared_ptr<Toolchain> tc_;
};

class OpenmpBackend final : public Backend {
 public:
  std::string name() const override { return "openmp"; }
  // The host compiler into the disk cache compile() reads (the same key), one plan after another on each of
  // `threads` threads, without opening a device (the runner's compile pipeline, docs/design.md).
  bool precompiles() const override { return true; }
  std::size_t precompile(const DeviceInfo&, const KernelSource& source, const std::vector<LaunchPlan>& plans,
                         int threads) const override {
    if (source.native || !tc_->status().available) return 0;
    std::atomic<std::size_t> next{0}, compiled{0};
    auto work = [&] {
      for (std::size_t i = next++; i < plans.size(); i = next++) {
        try {
          const CompileResult r = tc_->compile(source, plans[i]);
          if (r.program && !r.cached) ++compiled;
        } catch (const std::exception&) {  // compile() reports it with its log
        }
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min<int>(std::max(threads, 1), static_cast<int>(plans.size())); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    return compiled;
  }
  BackendStatus status() const override { return tc_->status(); }
  std::vector<DeviceInfo> devices() const override {
    if (!tc_->status().available) return {};
    DeviceInfo d = host_device_info("openmp");
    d.caps.program_globals = true;
    d.platform = tc_->version();
    d.driver = openmp_version_text(tc_->openmp_version());
    d.limits["max_threads"] = tc_->max_threads();
    return {d};
  }
  std::unique_ptr<Device> open(const DeviceInfo& info) const override {
    const BackendStatus& s = tc_->status();
    if (!s.available) throw std::runtime_error("the openmp backend is unavailable: " + s.reason);
    return std::make_unique<OmpDevice>(info, tc_);
  }
  std::optional<CopyKernel> copy_kernel(std::size_t bytes) const override {
    const KernelSource* source = kernel_source("copy/copy_omp.cpp");
    if (!source) return std::nullopt;
    CopyKernel k{*source, {}, {}};
    k.plan.entry = "pimg_copy";
    k.plan.dims = 1;
    k.plan.global = {bytes, 1, 1};
    k.plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(static_cast<std::int64_t>(bytes))};
    return k;
  }
  // Chunks of 64 KiB summed on the device's threads (kernels/copy/read_omp.cpp).
  std::optional<CopyKernel> read_kernel(std::size_t bytes) const override {
    const KernelSource* source = kernel_source("copy/read_omp.cpp");
    if (!source || bytes < 16) return std::nullopt;
    CopyKernel k{*source, {}, {}};
    k.plan.entry = "pimg_read";
    k.plan.dims = 1;
    k.plan.global = {bytes, 1, 1};
    k.plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(static_cast<std::int64_t>(bytes / 16 * 16))};
    return k;
  }

 private:
  std::shared_ptr<Toolchain> tc_ = std::make_shared<Toolchain>();
};

}  // namespace

std::unique_ptr<Backend> make_openmp_backend() { return std::make_unique<OpenmpBackend>(); }

}  // namespace pimg
