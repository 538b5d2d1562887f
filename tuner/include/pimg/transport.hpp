// How the ranks of a distributed tuning run (`mpirun -np N pimg-tune ...`) talk: whole messages of
// bytes between ranks. pimg-tune does not link MPI; the MPI implementation is a small plugin
// (tuner/mpi_runner/) loaded at run time only when the environment says mpirun started it, so the
// binary runs on machines without MPI.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace pimg {

// Where this process sits in an MPI job, from the launcher's environment (Open MPI, PMIx, or
// MPICH/Hydra and Slurm's PMI); nullopt when it was not started by one.
struct MpiLaunch {
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
};
std::optional<MpiLaunch> mpi_launch_from_env();

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void send(int to, const std::string& bytes) = 0;
  // The next message from any rank, if one has arrived; never blocks.
  virtual std::optional<std::pair<int, std::string>> poll() = 0;
  // Waits for the next message from any rank (sleeping between polls, so an idle rank leaves its
  // core to the ones measuring).
  std::pair<int, std::string> receive();
};

// Initialises MPI through the plugin; throws std::runtime_error naming the plugin and the reason
// when it cannot be loaded (a build without MPI) or MPI_Init fails. MPI is finalised when the
// returned object is destroyed.
std::unique_ptr<Transport> open_mpi_transport();

}  // namespace pimg
