// omp_grid: kernels/semblance/semblance_omp.cpp, the grid search under '#pragma omp parallel for' with
// the schedule, chunk, collapse depth and threads as knobs, plus the E points side by side in a simd
// loop and the seed's transformations (host precomputation, inlining, simplified interpolation, den
// folded into one sum). Its defaults are the seed's straightforward port: schedule(dynamic) over A.
#include <fmt/format.h>

#include "semblance/semblance_variants.hpp"

namespace pimg::semblance {
namespace {

constexpr int kMaxVecE = 4096;

std::vector<ParamDecl> omp_grid_params() {
  return {
      int_range("threads", 0, "OpenMP threads (num_threads); 0 leaves the count to OpenMP", 0, 4096),
      {"schedule", true, {"static", "dynamic", "guided"}, std::string("dynamic"), "OpenMP loop schedule kind"},
      int_range("chunk", 1, "schedule chunk size in tasks, at least 1", 1, 1 << 20),
      int_range("collapse", 1, "loops of the A..E nest shared out by collapse(n): 1 (A only, the seed) to 5 (4 with vec_e)", 1, 5),
      int_choice("vec_e", 0, "1: the E points of one (A, B, C, D) side by side in a '#pragma omp simd' loop inside the trace loop", {0, 1}),
      {"precompute", true, {"host", "kernel"}, std::string("kernel"),
       "per-trace geometry from the host, or from the raw headers for every point (the seed)"},
      int_choice("inline", 0, "1: helpers inlined; 0: real calls (the seed's separate files)", {0, 1}),
      {"interp", true, {"seed", "simplified"}, std::string("seed"), "the seed's interpolation or its simplification"},
      {"window", true, {"arrays", "sum"}, std::string("arrays"),
       "arrays: num and den per window sample (the seed); sum: den folded into one sum"},
      {"opt", true, {"O3", "O2", "O0"}, std::string("O3"),
       "the compiler's optimisation level (seed 004 built its serial code at -O0, -O2 and -O3; threads=1 is "
       "that serial search)"},
  };
}

LaunchPlan omp_grid_plan(const PlanContext& x) {
  const SembSpec s = spec_of(x.problem);
  const int threads = x.int_knob("threads");
  const int chunk = x.int_knob("chunk");
  const int vec_e = x.int_knob("vec_e");
  const int collapse = x.int_knob("collapse");
  if (vec_e && collapse > 4) throw PlanError(fmt::format("collapse={} with vec_e=1: at most 4 (E is the simd loop)", collapse));
  const int inline_helpers = x.int_knob("inline");
  if (vec_e && s.n[4] > kMaxVecE)
    throw PlanError(fmt::format("vec_e keeps E's {} points in stack arrays; at most {}", s.n[4], kMaxVecE));
  std::string schedule = x.text_knob("schedule");
  for (char& ch : schedule) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));

  LaunchPlan plan;
  plan.entry = "semblance_omp";
  add_problem_defines(plan, x.workload);
  plan.defines.emplace_back("SCHED", "PIMG_SCHED_" + schedule);
  const std::pair<const char*, int> knobs[] = {
      {"CHUNK", chunk},
      {"THREADS", threads},
      {"COLLAPSE", collapse},
      {"VEC_E", vec_e},
      {"PRECOMP", x.text_knob("precompute") == "host"},
      {"INLINE", inline_helpers},
      {"INTERP", x.text_knob("interp") == "simplified"},
      {"WINDOW", x.text_knob("window") == "sum"}};
  for (const auto& [name, value] : knobs) plan.defines.emplace_back(name, std::to_string(value));
  // After the backend's own -O3, so the last level given wins; O3 adds nothing (the plan stays as before).
  if (const std::string opt = x.text_knob("opt"); opt != "O3") plan.options.push_back("-" + opt);
  plan.dims = 1;
  plan.global = {static_cast<std::size_t>(s.points()), 1, 1};
  add_host_grid_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_omp_grid() {
  return make_variant({"omp_grid", "semblance", "openmp", "semblance/semblance_omp.cpp",
                       "OpenMP grid search; defaults are the seed's port (schedule(dynamic) over A, helpers called, "
                       "geometry from the headers)",
                       omp_grid_params(), omp_grid_plan});
}

}  // namespace pimg::semblance
