// The MPI backend: kernels that run across processes. A configuration's plan names a worker program
// (plan.entry, e.g. pimg-mpi-conv, built with MPI at build time) and its rank count (define
// MPI_RANKS); the backend starts it once per configuration under `mpirun --oversubscribe -np RANKS`,
// hands it the plan and inputs through files, and drives one timed run per launch through a pipe.
// pimg-tune itself does not link MPI. See docs/mpi.md.
#pragma once
#include <memory>

#include "pimg/backend.hpp"

namespace pimg {
std::unique_ptr<Backend> make_mpi_backend();
}
