// mpi_rows: the conv family across MPI processes (seed 003), output rows split into one block per
// rank, run by the mpi backend's worker pimg-mpi-conv (native/conv_mpi.cpp, built once; the
// knobs reach it at run time). Parameters: ranks, OpenMP threads per rank, communication scheme.
#include <fmt/format.h>

#include <algorithm>

#include "conv/openmp_variants.hpp"
#include "pimg/registry.hpp"
#include "conv/variant_base.hpp"

namespace pimg::conv {
namespace {

constexpr std::int64_t kMaxRanks = 64;

std::vector<ParamDecl> mpi_rows_params() {
  return {
      int_range("ranks", 2,
                fmt::format("MPI processes (mpirun -np, oversubscribed where there are fewer cores), 1..{}", kMaxRanks),
                1, kMaxRanks),
      int_range("threads", 1, "OpenMP threads in each rank, at least 1", 1, 1024),
      {"scheme", true, {"scatter", "halo", "owned"}, std::string("halo"),
       "scatter: the root scatters rows plus halo every run (seed 003); halo: rows scattered once, halo rows "
       "swapped with neighbours every run (MPI_Sendrecv); owned: each rank reads its own rows, non-blocking "
       "halo exchange overlapped with the interior rows"},
  };
}

LaunchPlan mpi_rows_plan(const PlanContext& x) {
  const Problem& p = x.problem;
  const Workload& w = x.workload;
  const Config& c = x.config;
  require_one_image(spec_of(p));
  const std::vector<ParamDecl>& decls = x.params;
  const std::int64_t ranks = omp_int_param(c, decls, "ranks");
  const std::int64_t threads = omp_int_param(c, decls, "threads");
  const std::string scheme = std::get<std::string>(omp_param(c, decls, "scheme"));
  const std::int64_t out_height = w.scalars.at("out_height");
  const std::int64_t radius = std::stoll(w.defines.at("PIMG_R"));
  // Halo rows come from the neighbours only, so every block must be at least a radius tall.
  if (ranks > out_height / std::max<std::int64_t>(radius, 1))
    throw PlanError(fmt::format("ranks={} splits {} output rows into blocks thinner than the filter radius {}", ranks,
                                out_height, radius));
  LaunchPlan plan;
  plan.entry = "pimg-mpi-conv";
  add_problem_defines(plan, w);
  add_define(plan, "MPI_RANKS", std::to_string(ranks));
  add_define(plan, "THREADS", std::to_string(threads));
  add_define(plan, "SCHEME", scheme);
  plan.dims = 1;
  plan.global = {static_cast<std::size_t>(ranks), 1, 1};
  plan.args = host_image_args(w);
  return plan;
}

}  // namespace

void register_mpi_variants(Registry& reg) {
  reg.add_variant(make_variant({"mpi_rows", "conv", "mpi", "conv/mpi/native/conv_mpi.cpp",
                                "MPI ranks each convolve a block of output rows (OpenMP threads inside), gathered to rank 0; "
                                "the scheme says how the input rows and halos travel",
                                mpi_rows_params(), mpi_rows_plan}));
}

}  // namespace pimg::conv
