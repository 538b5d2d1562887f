// The OpenMP conv variants' shared knobs and plan (see openmp_variants.hpp), and their registration:
// omp_rows, omp_tiles and the harness self-test selftest_wrong_result_omp.
#include "openmp_variants.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "pimg/registry.hpp"
#include "variant_base.hpp"

namespace pimg::conv {

std::vector<ParamDecl> omp_shared_parameters() {
  return {
      {"threads", false, {}, std::int64_t{0},
       "OpenMP threads (num_threads clause); 0 omits the clause, leaving the count to OpenMP "
       "(OMP_NUM_THREADS, else one per core)", {}, 0},
      {"schedule", true, {"static", "dynamic", "guided"}, std::string("static"), "OpenMP loop schedule kind"},
      {"chunk", false, {}, std::int64_t{1}, "schedule chunk size in tasks (rows or tiles), at least 1", {}, 1},
      {"unroll", false, {}, std::int64_t{1},
       "1: taps fully unrolled with the weights as compile-time constants (zero taps vanish); "
       "0: a runtime loop over the weights buffer", {0, 1}},
      {"arith", true, {"mul", "lut"}, std::string("mul"),
       "mul: weight times pixel; lut: a table of every distinct weight times every pixel value"},
      {"simd", false, {}, std::int64_t{1},
       "1: pixels whose window lies inside the image in a separate '#pragma omp simd' loop without "
       "border checks; 0: one checked loop", {0, 1}},
  };
}

Value omp_param(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name) {
  auto decl = std::find_if(decls.begin(), decls.end(), [&](const ParamDecl& d) { return d.name == name; });
  if (decl == decls.end()) throw PlanError(fmt::format("no parameter '{}'", name));
  const Value v = c.has(name) ? c.at(name) : decl->default_value;
  if (decl->is_text) {
    const auto* text = std::get_if<std::string>(&v);
    if (!text || std::find(decl->choices.begin(), decl->choices.end(), *text) == decl->choices.end())
      throw PlanError(fmt::format("{} must be one of {}, got {}", name, fmt::join(decl->choices, "|"), to_string(v)));
  } else if (!std::holds_alternative<std::int64_t>(v)) {
    throw PlanError(fmt::format("{} must be an integer, got {}", name, to_string(v)));
  }
  return v;
}

std::int64_t omp_int_param(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name) {
  return std::get<std::int64_t>(omp_param(c, decls, name));
}

LaunchPlan omp_conv_plan(const Workload& w, const Config& c, const std::vector<ParamDecl>& decls, int decomp) {
  const std::int64_t threads = omp_int_param(c, decls, "threads");
  const std::int64_t chunk = omp_int_param(c, decls, "chunk");
  const std::int64_t unroll = omp_int_param(c, decls, "unroll");
  const std::int64_t simd = omp_int_param(c, decls, "simd");
  std::string schedule = std::get<std::string>(omp_param(c, decls, "schedule"));
  const std::string arith = std::get<std::string>(omp_param(c, decls, "arith"));
  if (threads < 0) throw PlanError(fmt::format("threads must be 0 (OpenMP decides) or positive, got {}", threads));
  if (chunk < 1) throw PlanError(fmt::format("chunk must be at least 1, got {}", chunk));
  if (unroll != 0 && unroll != 1) throw PlanError(fmt::format("unroll must be 0 or 1, got {}", unroll));
  if (simd != 0 && simd != 1) throw PlanError(fmt::format("simd must be 0 or 1, got {}", simd));
  std::transform(schedule.begin(), schedule.end(), schedule.begin(), [](unsigned char ch) { return std::toupper(ch); });

  LaunchPlan plan;
  plan.entry = "conv_omp";
  add_problem_defines(plan, w);
  add_define(plan, "DECOMP", std::to_string(decomp));
  add_define(plan, "SCHED", "PIMG_SCHED_" + schedule);
  add_define(plan, "CHUNK", std::to_string(chunk));
  add_define(plan, "THREADS", std::to_string(threads));
  add_define(plan, "UNROLL", std::to_string(unroll));
  add_define(plan, "ARITH", arith == "lut" ? "1" : "0");
  add_define(plan, "SIMD", std::to_string(simd));
  const std::int64_t out_width = w.scalars.at("out_width"), out_height = w.scalars.at("out_height");
  plan.dims = 2;
  plan.global = {static_cast<std::size_t>(out_width), static_cast<std::size_t>(out_height), 1};
  plan.args = {KernelArg::buf("in"),
               KernelArg::buf("out"),
               KernelArg::buf("weights"),
               KernelArg::buf("taps"),
               KernelArg::buf("lut"),
               KernelArg::integer(w.scalars.at("width")),
               KernelArg::integer(w.scalars.at("height")),
               KernelArg::integer(out_width),
               KernelArg::integer(out_height)};
  return plan;
}

void register_openmp_variants(Registry& reg) {
  reg.add_variant(make_omp_rows());
  reg.add_variant(make_omp_tiles());
  reg.add_variant(make_omp_selftest());
  reg.add_variant(make_selftest_hang_omp());
  reg.add_variant(make_selftest_crash_omp());
  reg.add_variant(make_selftest_memory_omp());
  reg.add_variant(make_selftest_harness_omp());
}

}  // namespace pimg::conv
