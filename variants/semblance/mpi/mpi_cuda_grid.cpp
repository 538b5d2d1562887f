// mpi_cuda_grid: the semblance search across MPI processes with a GPU per rank, run by the mpi
// backend's worker pimg-mpi-semblance-cuda (native/semblance_mpi_cuda.cpp). The ranks
// share out the grid's A values; each compiles kernels/semblance/semblance.cu (this variant's source,
// so its hash in the store is the kernel's) for its part of the grid with the configuration's knobs
// and runs it on GPU (local rank % GPUs); the best point by MPI_Allreduce / MPI_MAXLOC. Parameters:
// ranks, scheme, and cuda_grid's kernel knobs (final_block for scheme best, whose ranks reduce on the GPU).
#include <fmt/format.h>

#include "semblance/semblance_variants.hpp"

namespace pimg::semblance {
namespace {

std::vector<ParamDecl> mpi_cuda_grid_params() {
  std::vector<ParamDecl> p = {
      int_range("ranks", 2, fmt::format("MPI processes, 1..{}, each on GPU (local rank % GPUs): ranks beyond the GPUs share them", kMaxRanks), 1, kMaxRanks),
      {"scheme", true, {"blocks", "cyclic", "best"}, std::string("best"),
       "blocks: contiguous runs of A values, every point's values downloaded and gathered to rank 0 "
       "(MPI_Gatherv); cyclic: A value a on rank a % ranks, gathered into place through a strided datatype; "
       "best: cyclic, each rank reduces to its best point on the GPU and only that reaches rank 0 (BEST output)"},
  };
  // The MPI program builds its kernel from the knobs' defines alone: no `math` or `map` knob here.
  for (ParamDecl& d : device_params(DeviceApi::cuda, true))
    if (d.name != "math" && d.name != "map") p.push_back(std::move(d));
  return p;
}

LaunchPlan mpi_cuda_grid_plan(const PlanContext& x) {
  const Problem& p = x.problem;
  const Workload& w = x.workload;
  const DeviceInfo& d = x.device;
  const auto gpus = d.limits.find("cuda_gpus");
  if (gpus == d.limits.end() || gpus->second < 1)
    throw DeviceLacks(fmt::format("no CUDA GPU behind {}'s ranks (the build has no pimg-mpi-semblance-cuda, or it "
                                  "finds no CUDA device)",
                                  d.id()));
  const SembSpec s = spec_of(p);
  const int ranks = x.int_knob("ranks");
  const std::string scheme = x.text_knob("scheme");
  if (ranks > s.n[0])
    throw PlanError(fmt::format("ranks={} leaves a rank without A values (the ranks share out the grid's {})", ranks,
                                s.n[0]));
  const bool argmax = scheme == "best";
  const DeviceKnobs k = read_device_knobs(x, DeviceApi::cuda, argmax);
  LaunchPlan plan;
  plan.entry = "pimg-mpi-semblance-cuda";
  add_problem_defines(plan, w);
  plan.defines.emplace_back("MPI_RANKS", std::to_string(ranks));
  plan.defines.emplace_back("THREADS", "1");
  plan.defines.emplace_back("SCHEME", scheme);
  for (auto& define : knob_defines(k, DeviceApi::cuda, argmax)) plan.defines.push_back(std::move(define));
  plan.dims = 1;
  plan.global = {static_cast<std::size_t>(ranks), 1, 1};
  add_host_grid_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_mpi_cuda_grid() {
  return make_variant({"mpi_cuda_grid", "semblance", "mpi", "semblance/semblance.cu",
                       "MPI ranks each search a share of the grid's A values on their own GPU (cuda_grid's kernel); the best "
                       "point by MPI_Allreduce/MPI_MAXLOC, the values gathered to rank 0 or only the best",
                       mpi_cuda_grid_params(), mpi_cuda_grid_plan});
}

}  // namespace pimg::semblance
