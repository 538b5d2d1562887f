// cl_vec: kernels/conv/conv_vec.cl (the OpenCL port of cuda_vec), every work-item computes `vec` consecutive
// output bytes (pixels and channels together) of `rows` consecutive rows, loading each input row's segment
// once as aligned vectors and storing each output row's bytes with one vector store; literal weights,
// unrolled taps, and with separable=1 a row pass then a column pass. Work-items at the image's left and right
// edges, and every work-item of rows that are not vec-aligned, take a checked byte path.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <initializer_list>

#include "cl_common.hpp"

namespace pimg::conv {
namespace {

// An integer parameter (its default when the configuration leaves it out) that must be one of `allowed`.
int one_of(const Config& c, const std::string& name, int def, std::initializer_list<int> allowed) {
  const std::int64_t v = c.has(name) ? c.integer(name) : def;
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return static_cast<int>(v);
  throw PlanError(fmt::format("{}={} is not one of {}", name, v, fmt::join(allowed, ", ")));
}

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
    out.push_back({"vec", false, {}, std::int64_t{16}, "output bytes per work-item along a row (4, 8 or 16): one vector"});
    out.push_back({"rows", false, {}, std::int64_t{8}, "consecutive output rows per work-item (1..32)"});
    out.push_back({"separable", false, {}, std::int64_t{0},
                   "1: filter each row along x, then the rows along y (only for a separable filter)"});
    out.push_back({"packed", false, {}, std::int64_t{0},
                   "1 (with separable=1): two 16-bit lanes per 32-bit word in both passes (where the filter's "
                   "sums fit 16 bits)"});
    return out;
  }

  // args: in, out, width, height, out_width, out_height
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) const override {
    const ConvSpec s = spec_of(p);
    const ClKnobs k = cl_read_knobs(c, d);  // block_x, block_y against the device's work-group limits
    const int vec = one_of(c, "vec", 16, {4, 8, 16});
    const std::int64_t rows = c.has("rows") ? c.integer("rows") : 8;
    if (rows < 1 || rows > 32) throw PlanError(fmt::format("rows={} is outside 1..32", rows));
    const int separable = one_of(c, "separable", 0, {0, 1});
    const int packed = one_of(c, "packed", 0, {0, 1});
    check_passes(w, separable, packed);

    LaunchPlan plan;
    plan.entry = "conv_vec";
    add_problem_defines(plan, w);
    add_define(plan, "BLOCK_X", std::to_string(k.block_x));
    add_define(plan, "BLOCK_Y", std::to_string(k.block_y));
    add_define(plan, "VEC", std::to_string(vec));
    add_define(plan, "ROWS", std::to_string(rows));
    add_define(plan, "SEPARABLE", std::to_string(separable));
    add_define(plan, "PACKED", std::to_string(packed));

    // x: vec-byte vectors of an output row; y: groups of `rows` rows of every plane.
    const auto bx = static_cast<std::size_t>(k.block_x), by = static_cast<std::size_t>(k.block_y);
    const std::size_t row_bytes = static_cast<std::size_t>(s.out_width) * (s.planar ? 1 : s.channels);
    const std::size_t planes = s.planar ? static_cast<std::size_t>(s.channels) : 1;
    const std::size_t groups = ceil_div(static_cast<std::size_t>(s.out_height), static_cast<std::size_t>(rows));
    plan.dims = 2;
    plan.global = {ceil_div(ceil_div(row_bytes, static_cast<std::size_t>(vec)), bx) * bx,
                   ceil_div(planes * groups, by) * by, 1};
    plan.local = {bx, by, 1};

    plan.args = {KernelArg::buf("in"), KernelArg::buf("out")};
    cl_add_scalar_args(plan, s);
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cl_vec() { return std::make_unique<ClVec>(); }

}  // namespace pimg::conv
