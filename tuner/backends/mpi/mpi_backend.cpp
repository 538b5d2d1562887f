// MPI backend: finds mpirun and the worker programs, starts one `mpirun -np RANKS WORKER DIR` per
// configuration in its own process group (killed past the run timeout, and with the tuner), writes
// the plan and inputs into DIR, and sends "run" through a FIFO once per launch; the worker answers
// with its times (max over ranks) after writing the gathered output to DIR/out.bin.
#include "mpi_backend.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "host_memory.hpp"
#include "temp_dir.hpp"

namespace pimg {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The worker programs this build makes (tuner/backends/mpi/CMakeLists.txt); a plan's entry names one.
const std::vector<std::string> kWorkers = {"pimg-mpi-conv", "pimg-mpi-semblance"};
// The worker whose ranks run on GPUs, built where CMake found the CUDA toolkit; `--gpus` makes it print
// the host's CUDA devices ("gpus N", then "gpu NAME" each) without starting MPI.
const std::string kGpuWorker = "pimg-mpi-semblance-cuda";

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string tail(const std::string& s, std::size_t n = 2000) { return s.size() > n ? "..." + s.substr(s.size() - n) : s; }

bool executable(const fs::path& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

// The first executable `name` on PATH; empty when none.
fs::path find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && executable(fs::path(dir) / name)) return fs::path(dir) / name;
  return {};
}

// mpirun: $PIMG_MPIRUN, else the first `mpirun` on PATH; empty when none.
fs::path find_mpirun() {
  if (const char* env = std::getenv("PIMG_MPIRUN"); env && *env) return env;
  return find_on_path("mpirun");
}

// Where the workers are: $PIMG_MPI_WORKER_DIR, else the build's folder for them, else the folder of
// the running program.
fs::path worker_dir() {
  if (const char* env = std::getenv("PIMG_MPI_WORKER_DIR"); env && *env) return env;
  if (fs::path built = PIMG_MPI_WORKER_DIR; executable(built / kWorkers.front())) return built;
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec).parent_path();
}

// Starts argv[0] (a path) with stdin from /dev/null and stdout and stderr into `log`, in a new
// process group, killed by the kernel when the thread that started it dies (the tuner's worker
// process killed for a timeout takes mpirun, and mpirun its ranks, with it). -1 on failure.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The job's own launcher variables stay out of the child: under the distributed runner this
  // process is itself a rank of an MPI job, and a nested mpirun that inherits them joins the outer
  // job instead of starting its own.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    const std::string_view v(*e);
    if (v.starts_with("OMPI_") || v.starts_with("PMIX_") || v.starts_with("PMI_") || v.starts_with("OPAL_") ||
        v.starts_with("HYDRA_") || v.starts_with("MPI_LOCAL"))
      continue;
    env_text.emplace_back(v);
  }
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string log_path = log.string();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  // Child: async-signal-safe calls only until exec.
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (null_fd < 0 || log_fd < 0) ::_exit(127);
  ::dup2(null_fd, 0);
  ::dup2(log_fd, 1);
  ::dup2(log_fd, 2);
  ::close_range(3, ~0U, 0);  // nothing of the tuner's (its supervisor's pipe) outlives it in mpirun
  ::execve(args[0], args.data(), envp.data());
  ::_exit(127);
}

// Runs a short command to its end and returns what it printed (empty when it failed).
std::string run_output(const std::vector<std::string>& argv) {
  TempDir tmp("pimg-mpi");
  const pid_t pid = spawn(argv, tmp.path() / "out.log");
  if (pid < 0) return {};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  return read_text(tmp.path() / "out.log");
}

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

struct Found {
  BackendStatus status;
  fs::path mpirun, workers;
  std::string version;  // mpirun --version, first line
  // Open MPI's rsh launcher gives up before starting even local ranks where neither ssh nor rsh is
  // installed (containers, the GPU machines): there the ranks start through the `isolated` launcher.
  bool isolated = false;
  int gpus = 0;                // CUDA devices the ranks can use (kGpuWorker --gpus)
  std::vector<std::string> gpu_names;
};

// The host's CUDA devices as the GPU worker sees them; none where it is missing or finds none.
void probe_gpus(Found& f) {
  const fs::path exe = f.workers / kGpuWorker;
  if (!executable(exe)) return;
  std::istringstream lines(run_output({exe.string(), "--gpus"}));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("gpus ", 0) == 0) f.gpus = std::max(0, std::atoi(line.c_str() + 5));
    if (line.rfind("gpu ", 0) == 0) f.gpu_names.push_back(line.substr(4));
  }
  if (static_cast<int>(f.gpu_names.size()) != f.gpus) f.gpus = 0;  // a garbled answer counts as none
}

Found probe() {
  Found f;
  f.mpirun = find_mpirun();
  if (f.mpirun.empty() || !executable(f.mpirun)) {
    f.status = {false, "no mpirun on PATH (install Open MPI: openmpi-bin libopenmpi-dev; or set PIMG_MPIRUN)"};
    return f;
  }
  f.version = first_line(run_output({f.mpirun.string(), "--version"}));
  if (f.version.empty()) {
    f.status = {false, fmt::format("'{} --version' does not run", f.mpirun.string())};
    return f;
  }
  f.workers = worker_dir();
  for (const std::string& w : kWorkers)
    if (!executable(f.workers / w)) {
      f.status = {false, fmt::format("no MPI worker program {} in {} (build the {} target, which needs MPI found by "
                                     "CMake, or set PIMG_MPI_WORKER_DIR)",
                                     w, f.workers.string(), w)};
      return f;
    }
  const char* agent = std::getenv("OMPI_MCA_plm_rsh_agent");
  f.isolated = find_on_path("ssh").empty() && find_on_path("rsh").empty() && !(agent && *agent);
  probe_gpus(f);
  f.status = {true, ""};
  return f;
}

class MpiProgram final : public Program {
 public:
  MpiProgram(fs::path exe, KernelSource src) : worker(std::move(exe)), source(std::move(src)), serial(next_serial++) {}
  fs::path worker;
  KernelSource source;  // the variant's source: written beside the plan for workers that compile it (GPU ranks)
  std::uint64_t serial;  // which program a running worker belongs to (addresses are reused)

 private:
  static inline std::atomic<std::uint64_t> next_serial{1};
};

// One running `mpirun ... WORKER DIR`, serving the runs of one configuration.
class Server {
 public:
  Server(const Found& found, const MpiProgram& program, const LaunchPlan& plan,
         const std::map<std::string, DeviceBuffer*>& buffers, double limit_s)
      : serial_(program.serial) {
    int ranks = 0;
    for (const auto& [name, value] : plan.defines)
      if (name == "MPI_RANKS") ranks = std::atoi(value.c_str());
    if (ranks < 1) throw std::runtime_error("the plan has no define MPI_RANKS of at least 1");
    std::ofstream txt(dir_.path() / "plan.txt");
    for (const auto& [name, value] : plan.defines) txt << "define " << name << " " << value << "\n";
    for (const KernelArg& a : plan.args) {
      switch (a.kind) {
        case ArgKind::Buffer: {
          auto it = buffers.find(a.buffer);
          if (it == buffers.end()) throw std::runtime_error(fmt::format("no buffer '{}'", a.buffer));
          txt << "buffer " << a.buffer << "\n";
          if (a.buffer == "out") break;
          std::ofstream bin(dir_.path() / (a.buffer + ".bin"), std::ios::binary);
          const auto& data = static_cast<const HostBuffer_*>(it->second)->data;
          bin.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
          if (!bin.flush()) throw std::runtime_error(fmt::format("cannot write the input {}", a.buffer));
          break;
        }
        case ArgKind::Int: txt << "int " << a.i << "\n"; break;
        case ArgKind::Float: txt << fmt::format("real {:.17g}\n", a.f); break;
        case ArgKind::Image2D: throw std::runtime_error("the mpi backend has no images");
        case ArgKind::Bytes: throw std::runtime_error("the mpi backend takes no raw scalar arguments");
      }
    }
    txt << "source " << program.source.path << "\n";
    if (!txt.flush()) throw std::runtime_error("cannot write the plan file");
    std::ofstream src(dir_.path() / "source.txt", std::ios::binary);
    if (!src.write(program.source.text.data(), static_cast<std::streamsize>(program.source.text.size())).flush())
      throw std::runtime_error("cannot write the kernel source");
    for (const char* fifo : {"cmd", "reply"})
      if (::mkfifo((dir_.path() / fifo).c_str(), 0600) != 0)
        throw std::runtime_error(fmt::format("mkfifo {}: {}", fifo, std::strerror(errno)));
    // Both ends read-write here, so neither open blocks and the worker's opens find a peer.
    cmd_ = ::open((dir_.path() / "cmd").c_str(), O_RDWR | O_CLOEXEC);
    reply_ = ::open((dir_.path() / "reply").c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (cmd_ < 0 || reply_ < 0) throw std::runtime_error(fmt::format("opening the FIFOs: {}", std::strerror(errno)));
    // vader's single-copy mechanism (CMA) needs ptrace rights that containers often withhold; without it
    // large messages go through shared-memory buffers, which every machine allows.
    std::vector<std::string> argv{found.mpirun.string(), "--oversubscribe", "--bind-to", "none",
                                  "--mca", "btl_vader_single_copy_mechanism", "none", "-np", std::to_string(ranks)};
    if (::geteuid() == 0) argv.push_back("--allow-run-as-root");
    if (found.isolated) argv.insert(argv.end(), {"--mca", "plm", "isolated"});
    argv.push_back(program.worker.string());
    argv.push_back(dir_.path().string());
    command_ = fmt::format("{}", fmt::join(argv, " "));
    pid_ = spawn(argv, dir_.path() / "mpirun.log");
    if (pid_ < 0) throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
    // Start-up (mpirun, MPI_Init, reading and scattering the input) gets its own allowance.
    std::string line = wait_line(limit_s + 30);
    if (line != "ready") throw std::runtime_error(fmt::format("{}: {}", command_, line));
  }

  ~Server() {
    if (pid_ > 0) {
      send("quit\n");
      const auto t0 = Clock::now();
      int status = 0;
      while (::waitpid(pid_, &status, WNOHANG) == 0) {
        if (seconds_since(t0) > 5) {
          kill_all();
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    if (cmd_ >= 0) ::close(cmd_);
    if (reply_ >= 0) ::close(reply_);
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::uint64_t serial() const { return serial_; }
  bool alive() const { return pid_ > 0; }

  // One timed run, the ranks' buffers poisoned with `poison` first; the output lands in `out`.
  LaunchResult run(DeviceBuffer& out, double limit_s, std::uint8_t poison) {
    LaunchResult r;
    if (!send(fmt::format("run {}\n", poison))) {
      r.error = "cannot send a command to the MPI worker";
      return r;
    }
    const std::string line = wait_line(limit_s);
    double total = 0, comm = 0, comp = 0;
    if (std::sscanf(line.c_str(), "ok %lf %lf %lf", &total, &comm, &comp) != 3) {
      r.error = fmt::format("{}: {}", command_, line);
      return r;
    }
    const std::string bytes = read_text(dir_.path() / "out.bin");
    auto& dst = static_cast<HostBuffer_&>(out).data;
    // The buffer may be longer than the output (the executor's canary after it): what the worker wrote lands at
    // its start, and a worker that wrote too little or too much is caught by the validation and the canary.
    if (bytes.size() > dst.size()) {
      r.error = fmt::format("the MPI worker wrote {} output bytes into a buffer of {}", bytes.size(), dst.size());
      return r;
    }
    std::memcpy(dst.data(), bytes.data(), bytes.size());
    r.ok = true;
    r.kernel_ms = total;
    r.parts = {{"mpi.comm_ms", comm}};
    return r;
  }

 private:
  bool send(const std::string& text) {
    return ::write(cmd_, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  }

  void kill_all() {
    ::kill(-pid_, SIGKILL);  // mpirun's process group
    ::kill(pid_, SIGKILL);   // ranks outside it die with mpirun (PR_SET_PDEATHSIG in the worker)
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

  // The worker's next answer; on timeout or a dead mpirun, mpirun is killed and the text says why.
  std::string wait_line(double limit_s) {
    const auto t0 = Clock::now();
    for (;;) {
      if (auto nl = pending_.find('\n'); nl != std::string::npos) {
        std::string line = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        if (line.rfind("error ", 0) == 0) line = "the worker failed: " + line.substr(6);
        return line;
      }
      if (pid_ <= 0) return "mpirun is not running";
      pollfd p{reply_, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        char buf[256];
        const ssize_t n = ::read(reply_, buf, sizeof buf);
        if (n > 0) pending_.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return fmt::format("mpirun ended ({}) without answering:\n{}",
                           WIFEXITED(status) ? fmt::format("status {}", WEXITSTATUS(status))
                                             : fmt::format("signal {}", WTERMSIG(status)),
                           tail(read_text(dir_.path() / "mpirun.log")));
      }
      if (seconds_since(t0) > limit_s) {
        kill_all();
        return fmt::format("no answer within {:.1f} s; mpirun and its ranks were killed", limit_s);
      }
    }
  }

  std::uint64_t serial_;
  TempDir dir_{"pimg-mpi"};
  int cmd_ = -1, reply_ = -1;
  pid_t pid_ = -1;
  std::string command_, pending_;
};

class MpiDevice final : public Device {
 public:
  MpiDevice(DeviceInfo info, Found found) : info_(std::move(info)), found_(std::move(found)) {}
  const DeviceInfo& info() const override { return info_; }

  CompileResult compile(const KernelSource& source, const LaunchPlan& plan) override {
    const auto t0 = Clock::now();
    CompileResult r;
    const fs::path exe = found_.workers / plan.entry;
    if (plan.entry.empty() || plan.entry.find('/') != std::string::npos || !executable(exe)) {
      r.log = fmt::format("no MPI worker program '{}' in {}", plan.entry, found_.workers.string());
    } else {
      r.program = std::make_shared<MpiProgram>(exe, source);
      r.log = fmt::format("{} runs {} (built at build time; the configuration is passed at run time)", exe.string(),
                          source.path);
    }
    r.ms = seconds_since(t0) * 1e3;
    return r;
  }
  std::shared_ptr<DeviceBuffer> alloc(std::size_t bytes) override { return host_alloc(bytes); }
  std::shared_ptr<DeviceBuffer> alloc_image(int, int) override {
    throw std::runtime_error("the mpi backend has no images");
  }
  void upload(DeviceBuffer& dst, std::span<const std::uint8_t> src) override { host_upload(dst, src); }
  void download(const DeviceBuffer& src, std::span<std::uint8_t> dst) override { host_download(src, dst); }
  void fill(DeviceBuffer& dst, std::uint8_t value) override { host_fill(dst, value); }
  void set_run_timeout(double seconds) override { timeout_s_ = seconds; }
  void begin_run(const RunSpec& run) override { poison_ = run.poison; }  // the ranks poison with it

  // The first launch of a program starts its worker with the inputs as they are now; later
  // launches of the same program reuse it (one mpirun per configuration).
  LaunchResult launch(Program& program, const LaunchPlan& plan,
                      const std::map<std::string, DeviceBuffer*>& buffers) override {
    LaunchResult r;
    auto* p = dynamic_cast<MpiProgram*>(&program);
    auto out = buffers.find("out");
    if (!p || out == buffers.end()) {
      r.error = p ? "no output buffer" : "not a program of the mpi backend";
      return r;
    }
    // Past the isolation supervisor's own limit (1.1 x timeout + 0.5 s), so that with isolation it
    // stores the timeout; without isolation this is what stops a run that never returns.
    const double limit_s = timeout_s_ * 1.5 + 2;
    try {
      if (!server_ || server_->serial() != p->serial || !server_->alive()) {
        server_.reset();
        server_ = std::make_unique<Server>(found_, *p, plan, buffers, limit_s);
      }
      r = server_->run(*out->second, limit_s, poison_);
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    if (!r.ok) server_.reset();
    return r;
  }

 private:
  DeviceInfo info_;
  Found found_;
  double timeout_s_ = 60;
  std::uint8_t poison_ = 0xA5;  // the current run's (begin_run); the executor's first poison before any
  std::unique_ptr<Server> server_;
};

class MpiBackend final : public Backend {
 public:
  std::string name() const override { return "mpi"; }
  BackendStatus status() const override { return found().status; }
  std::vector<DeviceInfo> devices() const override {
    const Found& f = found();
    if (!f.status.available) return {};
    DeviceInfo d = host_device_info("mpi");
    d.caps.distributed = true;
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    d.platform = d.name;  // the CPU model
    d.name = fmt::format("mpi:{}", host);
    d.vendor = "Open MPI";
    d.driver = f.version;
    d.limits["cores"] = d.compute_units;
    // GPUs behind the ranks (variants that put each rank on a GPU need them); part of the device's
    // identity, so rows measured with them are never mixed with rows measured without.
    d.limits["cuda_gpus"] = f.gpus;
    if (f.gpus > 0) {
      std::map<std::string, int> kinds;
      for (const auto& n : f.gpu_names) ++kinds[n];
      for (const auto& [name, count] : kinds) d.platform += fmt::format(" + {} x {}", count, name);
    }
    return {d};
  }
  std::unique_ptr<Device> open(const DeviceInfo& info) const override {
    const Found& f = found();
    if (!f.status.available) throw std::runtime_error("the mpi backend is unavailable: " + f.status.reason);
    return std::make_unique<MpiDevice>(info, f);
  }
  std::optional<CopyKernel> copy_kernel(std::size_t) const override { return std::nullopt; }

 private:
  const Found& found() const {
    std::call_once(once_, [this] { found_ = probe(); });
    return found_;
  }
  mutable std::once_flag once_;
  mutable Found found_;
};

}  // namespace

std::unique_ptr<Backend> make_mpi_backend() { return std::make_unique<MpiBackend>(); }

}  // namespace pimg
