// cl_image: kernels/conv/conv_image.cl, the input read through the texture path as a 2-D image of
// 1-byte texels (the buffer's bytes: width*channels wide interleaved, height*channels tall planar).
#include <fmt/format.h>

#include "conv/cl_common.hpp"

namespace pimg::conv {
namespace {

class ClImage final : public Variant {
 public:
  std::string name() const override { return "cl_image"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "opencl"; }
  std::string source() const override { return "conv/conv_image.cl"; }
  std::string help() const override {
    return "OpenCL direct convolution reading the input as an image2d_t (texture cache)";
  }
  std::vector<ParamDecl> parameters() const override { return cl_knob_params(false); }

  // args: in (image), weights, out, width, height, out_width, out_height
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    const ConvSpec s = spec_of(p);
    const ClKnobs k = cl_read_knobs(c, d);
    if (device_limit(d, "image_support", 0) == 0) throw PlanError("the device has no image support");
    const int texels_x = s.planar ? s.width : s.width * s.channels;
    const int texels_y = s.planar ? s.height * s.channels : s.height;
    const double max_w = device_limit(d, "image2d_max_width", 0), max_h = device_limit(d, "image2d_max_height", 0);
    if (texels_x > max_w || texels_y > max_h)
      throw PlanError(fmt::format("input image of {}x{} texels exceeds the device's image2d limit {}x{}", texels_x,
                                  texels_y, max_w, max_h));
    if (k.filter_mem == 1) cl_check_constant_bytes(w.input("weights").bytes.size(), d);
    LaunchPlan plan;
    plan.entry = "conv_image";
    cl_add_defines(plan, w, k, false);
    cl_set_geometry(plan, s, k);
    plan.args = {KernelArg::image("in", texels_x, texels_y), KernelArg::buf("weights"), KernelArg::buf("out")};
    add_scalar_args(plan, s);
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cl_image() { return std::make_unique<ClImage>(); }

}  // namespace pimg::conv
