// The distributed runner's transport over MPI, through the plugin tuner/mpi_runner/ builds: loaded
// with dlopen only when mpirun started this process, so pimg-tune never links MPI.
#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "pimg/transport.hpp"

#ifndef PIMG_MPI_TRANSPORT_PLUGIN
#define PIMG_MPI_TRANSPORT_PLUGIN ""
#endif

namespace pimg {
namespace {

std::optional<int> env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0 || x > 1 << 24) return std::nullopt;
  return static_cast<int>(x);
}

// The plugin: beside the executable (an installed layout), else where this build wrote it, unless
// PIMG_MPI_TRANSPORT names one.
std::string plugin_path() {
  if (const char* p = std::getenv("PIMG_MPI_TRANSPORT"); p && *p) return p;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = exe.parent_path() / "libpimg_mpi_transport.so";
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
  return PIMG_MPI_TRANSPORT_PLUGIN;
}

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    const std::string path = plugin_path();
    if (path.empty())
      throw std::runtime_error("started by mpirun, but this pimg-tune was built without MPI (no distributed runner)");
    lib_ = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!lib_) throw std::runtime_error(fmt::format("cannot load the MPI plugin {}: {}", path, dlerror()));
    load(init_, "pimg_mpi_init");
    load(send_, "pimg_mpi_send");
    load(probe_, "pimg_mpi_probe");
    load(recv_, "pimg_mpi_recv");
    load(finalize_, "pimg_mpi_finalize");
    load(error_, "pimg_mpi_last_error");
    if (init_(&rank_, &size_) != 0) throw std::runtime_error(error_());
  }
  ~MpiTransport() override { finalize_(); }  // the plugin stays loaded: MPI cannot be unloaded safely

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void send(int to, const std::string& bytes) override {
    if (send_(to, bytes.data(), bytes.size()) != 0) throw std::runtime_error(error_());
  }
  std::optional<std::pair<int, std::string>> poll() override {
    int from = 0;
    std::size_t bytes = 0;
    const int got = probe_(&from, &bytes);
    if (got < 0) throw std::runtime_error(error_());
    if (got == 0) return std::nullopt;
    std::string data(bytes, '\0');
    if (recv_(from, data.data(), bytes) != 0) throw std::runtime_error(error_());
    return std::make_pair(from, std::move(data));
  }

 private:
  template <class F>
  void load(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib_, name));
    if (!f) throw std::runtime_error(fmt::format("MPI plugin: missing {}", name));
  }
  void* lib_ = nullptr;
  int (*init_)(int*, int*) = nullptr;
  int (*send_)(int, const void*, std::size_t) = nullptr;
  int (*probe_)(int*, std::size_t*) = nullptr;
  int (*recv_)(int, void*, std::size_t) = nullptr;
  int (*finalize_)() = nullptr;
  const char* (*error_)() = nullptr;
  int rank_ = 0, size_ = 1;
};

}  // namespace

std::optional<MpiLaunch> mpi_launch_from_env() {
  struct Names {
    const char *rank, *size, *local_rank, *local_size;
  };
  // Open MPI's mpirun, then MPICH's Hydra.
  for (const Names& n : {Names{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                              "OMPI_COMM_WORLD_LOCAL_SIZE"},
                        Names{"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"}}) {
    auto rank = env_int(n.rank), size = env_int(n.size);
    if (!rank || !size || *size < 1 || *rank >= *size) continue;
    MpiLaunch l;
    l.rank = *rank;
    l.size = *size;
    l.local_rank = env_int(n.local_rank).value_or(*rank);
    l.local_size = env_int(n.local_size).value_or(*size);
    return l;
  }
  return std::nullopt;
}

std::pair<int, std::string> Transport::receive() {
  for (auto nap = std::chrono::microseconds(20);; nap = std::min(nap * 2, std::chrono::microseconds(100))) {
    if (auto m = poll()) return std::move(*m);
    std::this_thread::sleep_for(nap);
  }
}

std::unique_ptr<Transport> open_mpi_transport() { return std::make_unique<MpiTransport>(); }

}  // namespace pimg
