// cl_vec: kernels/conv/conv_vec.cl (the OpenCL port of cuda_vec), every work-item computes `vec` consecutive
// output bytes (pixels and channels together) of `rows` consecutive rows, loading each input row's segment
// once as aligned vectors and storing each output row's bytes with one vector store; literal weights,
// unrolled taps, and with separable=1 a row pass then a column pass. Work-items at the image's left and right
// edges, and every work-item of rows that are not vec-aligned, take a checked byte path.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <initializer_list>

#include "conv/cl_common.hpp"

namespace pimg::conv {
namespace {

// args: in, out, width, height, out_width, out_height
LaunchPlan cl_vec_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  require_one_image(s);
  const ClKnobs k = cl_read_knobs(x);  // block_x, block_y against the device's work-group limits
  const int vec = x.int_knob("vec"), rows = x.int_knob("rows");
  const int separable = x.int_knob("separable"), packed = x.int_knob("packed"), simd = x.int_knob("simd");
  check_passes(w, separable, packed, simd);

  LaunchPlan plan;
  plan.entry = "conv_vec";
  add_problem_defines(plan, w);
  add_define(plan, "BLOCK_X", std::to_string(k.block_x));
  add_define(plan, "BLOCK_Y", std::to_string(k.block_y));
  add_vec_body_defines(plan, vec, rows, separable, packed, simd);

  set_vec_body_geometry(plan, s, static_cast<std::size_t>(k.block_x), static_cast<std::size_t>(k.block_y), vec, rows);

  plan.args = {KernelArg::buf("in"), KernelArg::buf("out")};
  add_scalar_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cl_vec() {
  std::vector<ParamDecl> params = cl_block_params();
  for (ParamDecl& d : vec_body_params("work-item")) params.push_back(std::move(d));
  return make_variant({"cl_vec", "conv", "opencl", "conv/conv_vec.cl",
                       "OpenCL vectorised convolution: vec output bytes x rows rows per work-item, each input row "
                       "loaded once as aligned vectors, one vector store per output row",
                       std::move(params), cl_vec_plan});
}

}  // namespace pimg::conv
