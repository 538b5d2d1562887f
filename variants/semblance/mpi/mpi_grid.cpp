// mpi_grid: the semblance grid search across MPI processes, run by the mpi backend's worker
// pimg-mpi-semblance (native/semblance_mpi.cpp, built once; the knobs reach it at run
// time). The grid's points are shared out among the ranks, each computes its own with OpenMP
// threads, and the best point is found with MPI_Allreduce / MPI_MAXLOC. Parameters: ranks, OpenMP
// threads per rank, scheme (how the points are shared out and what reaches rank 0).
#include <fmt/format.h>

#include "semblance/semblance_variants.hpp"

namespace pimg::semblance {
namespace {

std::vector<ParamDecl> mpi_grid_params() {
  return {
      int_range("ranks", 2, fmt::format("MPI processes (mpirun -np, oversubscribed where there are fewer cores), 1..{}", kMaxRanks), 1, kMaxRanks),
      int_range("threads", 1, "OpenMP threads in each rank, at least 1", 1, 4096),
      {"scheme", true, {"blocks", "cyclic", "best"}, std::string("cyclic"),
       "blocks: contiguous blocks of points, every value gathered to rank 0 (MPI_Gatherv); cyclic: point i on "
       "rank i % ranks, gathered into place through a strided datatype; best: cyclic, only the best point "
       "reaches rank 0 (BEST output)"},
  };
}

LaunchPlan mpi_grid_plan(const PlanContext& x) {
  const SembSpec s = spec_of(x.problem);
  const int ranks = x.int_knob("ranks");
  const int threads = x.int_knob("threads");
  const std::string scheme = x.text_knob("scheme");
  if (ranks > s.points())
    throw PlanError(fmt::format("ranks={} leaves a rank without grid points (the grid has {} points)", ranks,
                                s.points()));
  LaunchPlan plan;
  plan.entry = "pimg-mpi-semblance";
  add_problem_defines(plan, x.workload);
  plan.defines.emplace_back("MPI_RANKS", std::to_string(ranks));
  plan.defines.emplace_back("THREADS", std::to_string(threads));
  plan.defines.emplace_back("SCHEME", scheme);
  plan.dims = 1;
  plan.global = {static_cast<std::size_t>(ranks), 1, 1};
  plan.args = {KernelArg::buf("samples"), KernelArg::buf("geom"), KernelArg::buf("axes"), KernelArg::buf("out")};
  add_real_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_mpi_grid() {
  return make_variant({"mpi_grid", "semblance", "mpi", "semblance/mpi/native/semblance_mpi.cpp",
                       "MPI ranks each compute a share of the grid's points (OpenMP threads inside); the best point by "
                       "MPI_Allreduce/MPI_MAXLOC, the values gathered to rank 0 or only the best",
                       mpi_grid_params(), mpi_grid_plan});
}

}  // namespace pimg::semblance
