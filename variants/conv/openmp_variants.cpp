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
       "(OMP_NUM_THREADS, else one per core)", {}, 0, 1024},
      {"schedule", true, {"static", "dynamic", "guided"}, std::string("static"), "OpenMP loop schedule kind"},
      {"chunk", false, {}, std::int64_t{1}, "schedule chunk size in tasks (rows or tiles), at least 1", {}, 1, 1 << 20},
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
  const bool text = std::any_of(decls.begin(), decls.end(), [&](const ParamDecl& d) { return d.name == name && d.is_text; });
  return text ? Value(text_value(c, decls, name)) : Value(int_value(c, decls, name));
}

std::int64_t omp_int_param(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name) {
  return int_value(c, decls, name);
}

LaunchPlan omp_conv_plan(const Workload& w, const Config& c, const std::vector<ParamDecl>& decls, int decomp) {
  const std::int64_t threads = omp_int_param(c, decls, "threads");
  const std::int64_t chunk = omp_int_param(c, decls, "chunk");
  const std::int64_t unroll = omp_int_param(c, decls, "unroll");
  const std::int64_t simd = omp_int_param(c, decls, "simd");
  std::string schedule = std::get<std::string>(omp_param(c, decls, "schedule"));
  const std::string arith = std::get<std::string>(omp_param(c, decls, "arith"));
  std::transform(schedule.begin(), schedule.end(), schedule.begin(), [](unsigned char ch) { return std::toupper(ch); });

  LaunchPlan plan;
  plan.entry = "conv_omp";
  add_problem_defines(plan, w);
  add_define(plan, "DECOMP", std::to_string(decomp));
  add_define(plan, "SCHED", "PIMG_SCHED_" + schedule);
  // The thread count and chunk size change no code, only the arguments of OpenMP's calls: values set before
  // each launch, so that the 2 x 3 of them share one program (fewer programs to compile on a fresh machine).
  plan.globals = {{"pimg_chunk", chunk}, {"pimg_threads", threads}};
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
