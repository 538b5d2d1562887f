// Where a tuning run happens, shared by the family commands and `t1`: here (the sequential runner), or spread over
// the ranks when an MPI launcher started this process with several (docs/mpi.md, part 2). Every rank checks the
// input itself before this, so bad input ends each with exit code 2 before MPI starts; only rank 0 opens the
// database and prints.
#pragma once
#include <optional>
#include <string>

#include "pimg/runner.hpp"
#include "pimg/store.hpp"
#include "pimg/transport.hpp"

namespace pimg::cli {

class RunPlace {
 public:
  // Throws UsageError for --share-devices without a launcher's several ranks.
  explicit RunPlace(bool share_devices);
  bool rank0() const { return !distributed_ || launch_->rank == 0; }
  // The observer a run reports to: `progress` on rank 0, a silent one on the others.
  RunObserver& observer(RunObserver& progress) { return rank0() ? progress : silent_; }
  // The store rank 0 writes (opened here, after every check); none on the other ranks.
  Store* open_store(const std::string& db);
  // Runs the tuning here or over the ranks. On a rank other than 0 it returns nullopt once rank 0 has stopped it;
  // an error there ends the process (exit code 1) without MPI_Finalize, so mpirun ends the job and rank 0 keeps
  // what it stored.
  std::optional<TuneSummary> run(Tuner& tuner, RunObserver& progress);

 private:
  std::optional<MpiLaunch> launch_;
  bool distributed_ = false;
  bool share_devices_ = false;
  RunObserver silent_;
  std::optional<Store> store_;
};

}  // namespace pimg::cli
