// The sequential or distributed run of a tuning command (spread.hpp).
#include "cli/spread.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "pimg/errors.hpp"

namespace pimg::cli {

RunPlace::RunPlace(bool share_devices) : launch_(mpi_launch_from_env()), share_devices_(share_devices) {
  distributed_ = launch_ && launch_->size > 1;
  if (share_devices && !distributed_) throw UsageError("--share-devices: only for runs under mpirun with several ranks");
}

Store* RunPlace::open_store(const std::string& db) {
  if (!rank0()) return nullptr;
  if (!store_) store_.emplace(db);
  return &*store_;
}

std::optional<TuneSummary> RunPlace::run(Tuner& tuner, RunObserver& progress) {
  if (!store_ && rank0()) throw std::logic_error("RunPlace::run: open_store first");
  if (!distributed_) return tuner.run(*store_, progress);
  const auto net = open_mpi_transport();
  const DistributedOptions opt{launch_->local_rank, share_devices_};
  if (rank0()) return tuner.run_distributed(&*store_, progress, *net, opt);
  try {
    tuner.run_distributed(nullptr, silent_, *net, opt);
  } catch (const std::exception& e) {
    fmt::print(stderr, "pimg-tune (rank {}): error: {}\n", launch_->rank, e.what());
    std::fflush(stderr);
    std::_Exit(1);
  }
  return std::nullopt;
}

}  // namespace pimg::cli
