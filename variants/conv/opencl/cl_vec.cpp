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

class ClVec final : public Variant {
 public:
  std::string name() const override { return "cl_vec"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "opencl"; }
  std::string source() const override { return "conv/conv_vec.cl"; }
  std::string help() const override {
    return "OpenCL vectorised convolution: vec output bytes x rows rows per work-item, each input row loaded "
           "once as aligned vectors, one vector store per output row";
  }
  std::vector<ParamDecl> parameters() const override {
    std::vector<ParamDecl> out = cl_block_params();
    for (ParamDecl& d : vec_body_params("work-item")) out.push_back(std::move(d));
    return out;
  }

  // args: in, out, width, height, out_width, out_height
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    const ConvSpec s = spec_of(p);
    require_one_image(s);
    const ClKnobs k = cl_read_knobs(c, d);  // block_x, block_y against the device's work-group limits
    const auto decls = parameters();
    const auto vec = int_value(c, decls, "vec"), rows = int_value(c, decls, "rows");
    const int separable = static_cast<int>(int_value(c, decls, "separable"));
    const int packed = static_cast<int>(int_value(c, decls, "packed"));
    const int simd = static_cast<int>(int_value(c, decls, "simd"));
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
};

}  // namespace

std::unique_ptr<Variant> make_cl_vec() { return std::make_unique<ClVec>(); }

}  // namespace pimg::conv
