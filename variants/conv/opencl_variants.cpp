// The OpenCL conv variants' registration and the helpers they share (cl_common.hpp): parameter
// declarations, knob parsing with device checks, defines, launch geometry and scalar arguments.
#include <fmt/format.h>

#include "cl_common.hpp"
#include "pimg/registry.hpp"

namespace pimg::conv {
namespace {

// Every knob cl_read_knobs() reads, checked against these declarations (a variant declares a subset).
const std::vector<ParamDecl>& all_knobs() {
  static const std::vector<ParamDecl> decls = cl_knob_params(true);
  return decls;
}

}  // namespace

std::vector<ParamDecl> cl_block_params() {
  const ClKnobs def;
  return {int_range("block_x", def.block_x, "work-group width (local size x)", 1, 4096),
          int_range("block_y", def.block_y, "work-group height (local size y)", 1, 4096)};
}

std::vector<ParamDecl> cl_knob_params(bool with_arith) {
  const ClKnobs def;
  std::vector<ParamDecl> out = cl_block_params();
  out.push_back(int_range("items_x", def.items_x, "output pixels per work item along x", 1, 4096));
  out.push_back(int_range("items_y", def.items_y, "output pixels per work item along y", 1, 4096));
  out.push_back(text_choice("filter_mem", {"global", "constant", "private"}, "constant",
                            "where the weights live: __global or __constant argument, or private compile-time literals"));
  out.push_back(
      int_choice("unroll", def.unroll, "1: #pragma unroll on the tap loops; 0: leave loops to the compiler", {0, 1}));
  if (with_arith)
    out.push_back(text_choice("arith", {"mul", "lut"}, "mul",
                              "mul: weight * pixel; lut: a per-weight table of weight * v for every byte v"));
  return out;
}

ClKnobs cl_read_knobs(const PlanContext& x) {
  ClKnobs k;
  read_shared_knobs(k, PlanContext{x.problem, x.workload, x.config, x.device, all_knobs()});
  x.check_group(k.block_x, k.block_y);
  return k;
}

void cl_check_constant_bytes(std::size_t bytes, const PlanContext& x) {
  check_constant_bytes(bytes, x, "__constant arguments");
}

void cl_add_defines(LaunchPlan& plan, const Workload& w, const ClKnobs& k, bool with_arith) {
  add_shared_defines(plan, w, k);
  if (with_arith) add_define(plan, "ARITH", std::to_string(k.arith));
}

void cl_set_geometry(LaunchPlan& plan, const ConvSpec& s, const ClKnobs& k) {
  require_one_image(s);
  cl_set_direct_geometry(plan, s, k, 0, 0);
}

void cl_set_direct_geometry(LaunchPlan& plan, const ConvSpec& s, const ClKnobs& k, int channel_z, double max_group) {
  set_block_geometry(plan, s, k);
  set_batch_depth(plan, s, channel_z, max_group, 0);
}

void register_opencl_variants(Registry& reg) {
  reg.add_variant(make_cl_direct());
  reg.add_variant(make_cl_tiled());
  reg.add_variant(make_cl_vec());
  reg.add_variant(make_cl_image());
  reg.add_variant(make_selftest_compile_error());
  reg.add_variant(make_selftest_wrong_result());
  reg.add_variant(make_selftest_hang());
  reg.add_variant(make_selftest_crash());
  reg.add_variant(make_selftest_memory());
}

}  // namespace pimg::conv
