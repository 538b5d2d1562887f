// The sequential runner: for each selected device, problem and variant, asks the strategy for
// configurations, skips those already stored (resume), evaluates the rest and stores each result
// in its own transaction. Observers see progress; they never change what is measured.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pimg/registry.hpp"
#include "pimg/result.hpp"
#include "pimg/space.hpp"
#include "pimg/store.hpp"

namespace pimg {

class Store;
class Transport;

struct RunEvent {
  const DeviceInfo* device = nullptr;
  const Problem* problem = nullptr;
  const Variant* variant = nullptr;
  const Config* config = nullptr;
  const EvalResult* result = nullptr;
  bool skipped = false;  // already stored; not measured again
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_start(std::size_t planned) { (void)planned; }
  virtual void on_message(const std::string& line) { (void)line; }
  virtual void on_result(const RunEvent& e) { (void)e; }
  virtual void on_finish() {}
};

struct TuneOptions {
  std::vector<std::string> backends;  // empty: the space file's
  std::vector<std::string> devices;   // index or name substring; empty: the space file's
  std::optional<int> repeats;         // exactly this many timed runs (measure.repeats and max_repeats)
  bool resume = true;                 // skip configurations already stored (but env_error ones)
  // Offer the strategy the family's stored results of other devices and problems as priors (and say
  // which); off, a search knows only its own space's results.
  bool transfer = false;
  std::set<Status> retry;             // stored failures of these statuses are measured again
  // Only the space's ladder is measured (the steps of a seed's table, when the search would take too long):
  // no search, no confirmation, whole-program or picture stage.
  bool ladder_only = false;
  // Evaluate in a supervised worker process (also needs the space's measure.isolation) started
  // as `worker_exe worker`; false evaluates in this process.
  bool isolation = true;
  std::string worker_exe = "/proc/self/exe";
  std::string command_line;
  // Non-empty: the picture stage writes the input, the best output and failed outputs with their differences
  // as PNG files here, listed in pictures.tsv (pimg/picture.hpp); the CLI's --report puts them beside it.
  std::string pictures_dir;
};

// A device chosen for tuning, with the reason when a selected backend has none.
struct SelectedDevice {
  const Backend* backend = nullptr;
  DeviceInfo info;
};

// Resolves the space's backend/device selection (and the CLI overrides). Throws UsageError for an
// unknown backend or a device selector that matches nothing.
std::vector<SelectedDevice> select_devices(const Registry& reg, const Space& space, const TuneOptions& opt,
                                           RunObserver& obs);

// Which of the selected devices a rank drives: ranks on one host take the devices of each kind
// (backend, name, driver, platform: what the store tells apart) by local rank, rank k the k-th;
// a rank beyond the count drives none of that kind unless `share_devices` (then k mod count, and
// ranks sharing a device measure time-shared: for checking a space, not for timings).
struct DistributedOptions {
  int local_rank = 0;
  bool share_devices = false;
};

struct TuneSummary {
  std::size_t measured = 0, skipped = 0, ok = 0, failed = 0;
  std::int64_t run_id = 0;
  std::vector<std::size_t> per_rank;  // a distributed run's evaluations by rank; empty otherwise
};

// A tuning run in two steps: the constructor checks and prepares everything (devices, spaces,
// strategies, inputs and references) and throws UsageError for bad input before the store is even
// opened; run() then measures and stores.
class Tuner {
 public:
  Tuner(const Registry& reg, const Space& space, const TuneOptions& opt, RunObserver& obs);
  ~Tuner();
  std::size_t planned() const;
  TuneSummary run(Store& store, RunObserver& obs);

  // The same run spread over the ranks of an MPI job (docs/mpi.md, part 2): every rank constructs
  // the same Tuner; rank 0 passes the store, hands configurations out and is the only writer, the
  // others pass nullptr, evaluate on their own device and return an empty summary; rank 0's counts
  // every rank's work.
  TuneSummary run_distributed(Store* store, RunObserver& obs, Transport& net, const DistributedOptions& opt);

  struct Impl;  // the runners' shared inside: tuner/src/run/tuner_impl.hpp

 private:
  std::unique_ptr<Impl> impl_;
};

// The run record of a command of this build (host, UTC start, git commit, version).
RunInfo this_run(const std::string& command_line);

}  // namespace pimg
